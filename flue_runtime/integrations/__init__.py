"""Bundled skills in other hosts: framework adapters and export to disk (MCP is `flue_runtime.mcp`).

Each adapter is imported only when used, and imports its framework only then.
"""

__all__: list[str] = []
