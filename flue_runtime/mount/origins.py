"""Where a mounted skill comes from, and how its name is told apart from another origin's.

A skill's origin is the application itself (a bundle, a source folder in dev mode, `define_skill`, the workspace,
any source naming no server) or the server that serves it: its source's `identity` (`mount.vfs.identity_of`), the
key every path, approval and record of a remote skill carries.

Names are unique within an origin: the application mounting one name twice is its own mistake (`use_skill` raises),
and one server's listing is disambiguated when it is read (`mcp.remote`). Across origins, names may collide: two
servers both serve `refunds`, or a server serves one beside the application's own. The Skills extension ("Names")
requires the name to resolve within a per-origin namespace, with a label the host assigns to each server, never by
refusing to run and never by silently shadowing one skill with another. `per_origin` does that for every host (the
harness's renders, `Skillset`): a local skill keeps its name; a remote skill whose name another origin also has is
mounted under `<name>-<server label>`, the label being the first 8 characters of its server's identity after `mcp-`
(`refunds-2d00647f` for `/.flue/remote/mcp-2d00647f6b01a17f/`); one warning says what was labelled.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from flue_runtime.format.diagnostics import printable
from flue_runtime.mount.reference import SkillReference
from flue_runtime.mount.vfs import identity_of

__all__ = ["LABELLED", "origin_line", "per_origin", "server_label"]

#: The warning `per_origin` gives, before the list of what was labelled.
LABELLED = (
    "skills of different origins share names; each resolves within its own origin: the application's own skills "
    "keep their names, and remote skills are mounted under labels of their servers"
)
#: How much of an origin (what a source says of itself: input, escaped first) a line shown to the model holds.
_SHOWN = 500


def server_label(identity: str) -> str:
    """A server's label in names: the first 8 letters and digits of its identity after `mcp-`."""
    return re.sub(r"[^a-z0-9]", "", identity.removeprefix("mcp-"))[:8] or "remote"


def per_origin(skills: Sequence[SkillReference]) -> tuple[list[SkillReference], str | None]:
    """`skills`, in order, each under a name no skill of another origin has, and the warning saying what was
    labelled (None when nothing was). Names within one origin are the caller's to keep unique."""
    taken = {skill.name for skill in skills}
    if len(taken) == len(skills):  # (every turn renders: no name shared, nothing more to look at)
        return list(skills), None
    origins: dict[str, set[str | None]] = {}
    for skill in skills:
        origins.setdefault(skill.name, set()).add(identity_of(skill))
    shared = {name for name, found in origins.items() if len(found) > 1}
    if not shared:
        return list(skills), None
    out: list[SkillReference] = []
    said: list[str] = []
    for skill in skills:
        identity = identity_of(skill)
        if identity is None or skill.name not in shared:
            out.append(skill)
            continue
        label = _free(skill.name, server_label(identity), taken)
        taken.add(label)
        out.append(skill.renamed(label))
        said.append(f"{skill.name!r} of {printable(skill.origin, _SHOWN)} (server {identity}) as {label!r}")
    return out, f"{LABELLED}: {'; '.join(said)}"


def origin_line(skill: SkillReference, what: str) -> str | None:
    """The line that goes before remote content the model receives (`what`: "File guide.md", "Folder scripts"),
    naming the skill, its origin and its server's identity; None for a skill of the application's own."""
    identity = identity_of(skill)
    if identity is None:
        return None
    return (
        f"[{what} of skill {skill.name!r}, served by {printable(skill.origin, _SHOWN)}, server {identity}: a remote MCP "
        "server's content, not the application's.]"
    )


def _free(name: str, label: str, taken: set[str]) -> str:
    """`<name>-<label>` within the name's length limit, or after it a number, whichever no skill has."""
    from flue_runtime.format.naming import NAME_MAX  # (only when labelling: the mount path never loads the schema)

    for suffix in (label, *(f"{label}-{n}" for n in range(2, len(taken) + 3))):
        candidate = f"{name[: NAME_MAX - len(suffix) - 1].rstrip('-')}-{suffix}"
        if candidate not in taken:
            return candidate
    raise AssertionError("unreachable: more candidates than names taken")
