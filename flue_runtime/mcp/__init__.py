"""Serve mounted skills over the Model Context Protocol (the official `mcp` SDK: `pip install 'flue-skills[mcp]'`).

`skills_server(skills, name=...)` returns the SDK's `MCPServer`: the Skills extension
(`skills/list`, `skills/get`, `skill://<name>/<path>` resources), `activate_skill` and
`read_skill_resource` as tools, and the catalog as the server's instructions.
`remote_skills(target)` is the other side: a host mounting the skills a remote server serves;
`forget_server(identity)` removes what the host keeps on disk of one server's skills.
"""

from __future__ import annotations

try:
    import mcp  # noqa: F401  (to say which extra is missing)
except ModuleNotFoundError as exc:
    raise ImportError("flue_runtime.mcp needs the MCP Python SDK: pip install 'flue-skills[mcp]'") from exc

from flue_runtime.mcp.entries import EXTENSION_ID
from flue_runtime.mcp.remote import RemoteSkills, forget_server, remote_skills
from flue_runtime.mcp.server import SkillsExtension, skills_server

__all__ = ["EXTENSION_ID", "RemoteSkills", "SkillsExtension", "forget_server", "remote_skills", "skills_server"]
