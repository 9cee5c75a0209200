"""Serve mounted skills over the Model Context Protocol (the official `mcp` SDK: `pip install 'flue-skills[mcp]'`).

`skills_server(skills, name=...)` returns the SDK's `MCPServer`: the Skills extension
(`skills/list`, `skills/get`, `skill://<name>/<path>` resources), `activate_skill` and
`read_skill_resource` as tools, and the catalog as the server's instructions; `http_serving` serves it
over streamable HTTP, guarded. `remote_skills(target)` is the other side: a host mounting the skills a
remote server serves; `forget_server(identity)` removes what the host keeps on disk of one server's skills.

Without the SDK the package still imports (the HTTP serving's settings, which `flue-skills mcp --help`
lists, need none of it); each of the names below raises the `ImportError` that says what to install, as
`require_sdk()` does.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "EXTENSION_ID",
    "RemoteSkills",
    "SkillsExtension",
    "forget_server",
    "remote_skills",
    "require_sdk",
    "skills_server",
]


def require_sdk() -> None:
    """Raise the `ImportError` that says what to install when the MCP SDK is not installed."""
    try:
        import mcp  # noqa: F401
    except ModuleNotFoundError as exc:
        raise ImportError("flue_runtime.mcp needs the MCP Python SDK: pip install 'flue-skills[mcp]'") from exc


try:
    require_sdk()
except ImportError:  # each public name raises it when asked for (`__getattr__`)
    pass
else:
    from flue_runtime.mcp.entries import EXTENSION_ID
    from flue_runtime.mcp.remote import RemoteSkills, forget_server, remote_skills
    from flue_runtime.mcp.server import SkillsExtension, skills_server


def __getattr__(name: str) -> Any:
    if name in __all__:
        require_sdk()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
