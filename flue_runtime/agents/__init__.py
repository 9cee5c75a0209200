"""The agent: hooks, harness, prompt, tools, sandboxes, stores."""

__all__: list[str] = []
