"""The agent: hooks, harness, prompt, tools, sandboxes, stores."""
