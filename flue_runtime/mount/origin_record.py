"""The origin of exported copies of a remote server's skills: a record beside them that makes a copy mounted again
count as that server's skill.

`export_skills(..., allow_remote=True)` writes a remote skill to `DEST/<server identity>/<name>/`, byte for byte,
and `DEST/<server identity>/.flue-origin.json` beside it: the server's identity and, for each skill, its URI there and
where it came from as messages said it. A folder on disk loaded from there (`mount.disk`: `skill()` in dev mode, a folder TARGET) reads the
record and keeps the origin: its source's `kind` is a source from elsewhere and its `identity` the server's, so
its scripts need the approval policy's yes as the live skill's do (SEP-2640: cached bytes do not acquire local
trust by being stored locally). The record sits outside the skill's folder, so the folder stays the skill's own
files. A record that cannot be read is refused: the copy is never taken for a local skill by mistake.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from flue_runtime.errors import MountError
from flue_runtime.format.safe_read import read_regular
from flue_runtime.mount.vfs import checked_identity

__all__ = ["RECORD", "ExportedSkill", "OriginRecord", "read_origin", "write_origin"]

#: The record's name, in the folder of a server's exported skills.
RECORD = ".flue-origin.json"
#: The most bytes a record may hold (a few lines per skill): more is refused unread.
_LIMIT = 4 * 1024 * 1024


@dataclass(frozen=True)
class ExportedSkill:
    """One exported skill: its URI at the server, and where it came from as messages said it."""

    uri: str | None
    origin: str


@dataclass(frozen=True)
class OriginRecord:
    """Where the skills of one folder were exported from: the server's identity (`server_identity`), and each
    skill by its name."""

    identity: str
    skills: dict[str, ExportedSkill] = field(default_factory=dict)


def read_origin(skill_folder: Path) -> OriginRecord | None:
    """The record of the folder holding `skill_folder`, None when there is none; `MountError` when one is there but
    is not a record this module wrote."""
    path = skill_folder.parent / RECORD
    if not os.path.lexists(path):
        return None
    try:
        said = json.loads(read_regular(path, limit=_LIMIT).data or b"")
        skills = {
            str(name): ExportedSkill(None if e["uri"] is None else str(e["uri"]), str(e["origin"]))
            for name, e in said["skills"].items()
        }
        record = OriginRecord(checked_identity(said["identity"]), skills)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, MountError) as exc:
        raise MountError(
            f"{path}: the origin record of the skills in {skill_folder.parent} cannot be read ({exc}); they were "
            "exported from a remote server, and are not loaded as local skills without it: export them again"
        ) from None
    return record


def write_origin(server_folder: Path, identity: str, skills: dict[str, ExportedSkill]) -> None:
    """Record `skills` (by name) as exported from the server `identity` into `server_folder`, beside what an earlier
    export recorded there; written whole to a new file, then renamed into place."""
    earlier = read_origin(server_folder / "_") if os.path.lexists(server_folder / RECORD) else None
    kept = dict(earlier.skills) if earlier is not None and earlier.identity == identity else {}
    every = {name: {"uri": e.uri, "origin": e.origin} for name, e in {**kept, **skills}.items()}
    text = json.dumps(
        {"identity": checked_identity(identity), "skills": every},
        indent=1,
        sort_keys=True,
        ensure_ascii=False,
    )
    staged = server_folder / f".{RECORD}.new"
    staged.write_text(text + "\n", encoding="utf-8")
    os.replace(staged, server_folder / RECORD)
