"""The Skills extension's shapes (SEP-2640, `io.modelcontextprotocol/skills`) for mounted skills.

Every file of a skill is a resource at `skill://<name>/<path>` (the path percent-encoded
where a URI needs it, so each file has exactly one URI). A skill's entry carries its
SKILL.md frontmatter verbatim as a YAML loader types it (`typed.py`: `false` is JSON `false`,
`7` is `7`; the skill rules still read every value as a string), and every file with its size
and `sha256:` digest from the skill's own file list.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from flue_runtime.errors import AgentError, SkillError
from flue_runtime.format.frontmatter import parse
from flue_runtime.format.records import SKILL_FILE
from flue_runtime.mcp.typed import typed
from flue_runtime.mount.reference import SkillReference

__all__ = [
    "EXTENSION_ID",
    "MAX_FILES",
    "MAX_SIZE",
    "SCHEME",
    "check_servable",
    "entry",
    "file_uri",
    "frontmatter",
    "mime_type",
    "oversize",
    "servable",
]


EXTENSION_ID = "io.modelcontextprotocol/skills"
SCHEME = "skill"
#: The most files, SKILL.md included, and the most bytes in all, of a skill a server should serve (SEP-2640:
#: "Servers SHOULD NOT serve a skill exceeding 512 resource entries" / "whose total file size exceeds 16 MiB").
MAX_FILES = 512
MAX_SIZE = 16 * 1024 * 1024


def file_uri(skill: str, path: str = SKILL_FILE) -> str:
    """The resource URI of file `path` of skill `skill`."""
    return f"{SCHEME}://{skill}/{quote(path, safe='/')}"


def mime_type(path: str) -> str:
    """What a file's name says it holds; SKILL.md is markdown, as the extension asks."""
    if path == SKILL_FILE or path.endswith(".md"):
        return "text/markdown"
    guessed, _ = mimetypes.guess_type(path, strict=False)
    return guessed or "application/octet-stream"


def check_servable(skill: SkillReference) -> None:
    """`AgentError` for a skill mounted under another name (`SkillReference.renamed`): the extension serves SKILL.md
    as written, and a host checks its `name` against the skill's URI, so an alias cannot be served as one."""
    if skill.alias_of is not None:
        raise AgentError(
            f"skill {skill.name!r} is skill {skill.alias_of!r} under another name; an MCP host checks the name in "
            f"its SKILL.md against its URI, so serve it under its own name ({skill.alias_of!r}) and let the host "
            "rename it if it must"
        )


def oversize(skill: SkillReference) -> str | None:
    """Why the extension says a server should not serve `skill` (more than `MAX_FILES` files, or more than `MAX_SIZE`
    bytes in all), or None when it may."""
    files = skill.files
    total = sum(f.size for f in files)
    if len(files) > MAX_FILES:
        return f"{len(files)} files, more than the {MAX_FILES}"
    if total > MAX_SIZE:
        return f"{total:,} bytes in all, more than the {MAX_SIZE:,} (16 MiB)"
    return None


def servable(skills: Iterable[SkillReference], allow_oversize: bool = False) -> tuple[list[SkillReference], list[str]]:
    """The skills a server serves, in order, and a note for each one left out: a skill over the extension's limits
    (`oversize`) unless `allow_oversize`."""
    served: list[SkillReference] = []
    notes: list[str] = []
    for skill in skills:
        why = None if allow_oversize else oversize(skill)
        if why is None:
            served.append(skill)
        else:
            notes.append(
                f"skill {skill.name!r} ({skill.origin}) is not served: {why} the Skills extension says a server "
                "should serve in one skill (allow it with allow_oversize=True, or flue-skills mcp "
                "--allow-oversize-skills)"
            )
    return served, notes


def frontmatter(skill: SkillReference, skill_md: bytes | None = None) -> dict[str, Any]:
    """SKILL.md's frontmatter as a JSON object, every field the author wrote (unknown ones too), typed; from
    `skill_md` when the caller has read SKILL.md already."""
    parsed = parse(skill.read_bytes(SKILL_FILE) if skill_md is None else skill_md, f"{skill.name}/{SKILL_FILE}")
    if parsed.data is None:  # a folder on disk edited into an invalid SKILL.md since it was mounted
        raise SkillError(parsed.diagnostics, f"skill {skill.name!r} ({skill.origin})")
    return typed(parsed)


def entry(skill: SkillReference, skill_md: bytes | None = None) -> dict[str, Any]:
    """The extension's `Skill` entry: the URI of SKILL.md, the frontmatter, every file with its digest."""
    return {
        "uri": file_uri(skill.name),
        "frontmatter": frontmatter(skill, skill_md),
        "resources": [
            {"uri": file_uri(skill.name, f.path), "digest": f"sha256:{f.sha256}", "size": f.size} for f in skill.files
        ],
    }
