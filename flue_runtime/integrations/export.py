"""Write mounted skills to disk as plain skill folders, for runtimes that read skills from a folder.

Each skill becomes `DEST/<name>/` holding SKILL.md and its files, byte for byte, every file
checked against the size and SHA-256 its skill lists (a bundle's manifest, or the vetting of
a folder). A skill a remote server serves is exported only when asked (`allow_remote`), to
`DEST/<server identity>/<name>/` beside an origin record (`mount.origin_record`): mounted again,
the copy is that server's skill, never a local one (its scripts need the approval policy's yes). All skills are written into a staging folder inside DEST first and moved into
place only when every one was read and checked, so a failure leaves DEST as it was. A
folder already there with the same files is left alone; a different one is replaced only
with `force`.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from flue_runtime.errors import DestinationError, ExportError, FlueError
from flue_runtime.format.naming import is_valid_name, name_problems
from flue_runtime.mount.origin_record import ExportedSkill, write_origin
from flue_runtime.mount.reference import SkillReference
from flue_runtime.mount.vfs import identity_of

__all__ = ["Exported", "Written", "checked_files", "export_skills"]


#: What export did to a skill's folder.
Written = Literal["written", "replaced", "unchanged"]


def __getattr__(name: str) -> Any:
    if name == "Outcome":  # its name in 0.1, kept until 0.3 (`flue_runtime.publish.Outcome` is another thing)
        import warnings

        warnings.warn("export.Outcome is export.Written (Outcome goes in 0.3)", DeprecationWarning, stacklevel=2)
        return Written
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class Exported:
    """One skill's folder and what happened to it."""

    name: str
    folder: Path
    outcome: Written


def export_skills(
    skills: Iterable[SkillReference], dest: Path, *, force: bool = False, allow_remote: bool = False
) -> list[Exported]:
    """Write each skill to `dest/<name>/`, a remote server's skill (only with `allow_remote`) to
    `dest/<server identity>/<name>/` with its origin record; `ExportError` (and `dest` unchanged) when one cannot
    be, the `DestinationError` kind when `dest` is at fault."""
    chosen = list(skills)
    for skill in chosen:  # a name becomes a folder: the skill-name rule, whatever source made the reference
        if not is_valid_name(skill.name):
            raise ExportError(
                f"skill {skill.name!r} ({skill.origin}): not a valid skill name "
                f"({'; '.join(name_problems(skill.name))}); nothing was written"
            )
        if identity_of(skill) is not None and not allow_remote:
            raise ExportError(
                f"skill {skill.name!r} is served by a remote server ({skill.origin}); nothing was written: its copy "
                "would keep that origin, under DEST/<server identity>/, only if you ask for it with "
                "allow_remote=True (flue-skills export --allow-remote)"
            )
    places = [(skill, _place(skill)) for skill in chosen]
    if len({place for _, place in places}) != len(places):
        names = ", ".join(sorted(place for _, place in places))
        raise ExportError(f"two skills to export share a name ({names}); export each name once")
    contents = {place: checked_files(skill) for skill, place in places}
    outcomes: dict[str, Written] = {}
    for skill, place in places:
        folder = dest / place
        existing = _existing(folder)
        if existing is None:
            outcomes[place] = "written"
        elif existing == contents[place]:
            outcomes[place] = "unchanged"
        elif force:
            outcomes[place] = "replaced"
        else:
            raise DestinationError(
                f"{folder} exists and differs from skill {skill.name!r} ({skill.origin}); "
                "nothing was written: remove it, choose another folder, or pass --force to replace it"
            )
    try:
        dest.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".flue-export-", dir=dest))
    except OSError as exc:
        raise DestinationError(f"cannot write to {dest}: {exc.strerror or exc}") from None
    try:
        changed = [place for _, place in places if outcomes[place] != "unchanged"]
        for place in changed:
            _write(staging / place, contents[place])
        for place in changed:
            (dest / place).parent.mkdir(exist_ok=True)
            _move_into_place(staging / place, dest / place, staging / f".old-{place.replace('/', '-')}")
        _record_origins(dest, chosen)
    except OSError as exc:
        raise DestinationError(f"cannot write to {dest}: {exc.strerror or exc}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return [Exported(skill.name, dest / place, outcomes[place]) for skill, place in places]


def _place(skill: SkillReference) -> str:
    """Where a skill's folder goes under DEST: `<name>`, or `<server identity>/<name>` for a remote server's."""
    identity = identity_of(skill)
    return skill.name if identity is None else f"{identity}/{skill.name}"


def _record_origins(dest: Path, skills: list[SkillReference]) -> None:
    """The origin record of each server whose skills were exported, beside them (`mount.origin_record`)."""
    by_server: dict[str, dict[str, ExportedSkill]] = {}
    for skill in skills:
        identity = identity_of(skill)
        if identity is not None:
            by_server.setdefault(identity, {})[skill.name] = ExportedSkill(skill.source.uri, skill.origin)
    for identity, exported in by_server.items():
        write_origin(dest / identity, identity, exported)


def checked_files(skill: SkillReference) -> dict[str, bytes]:
    """Every file of `skill`, each verified against the size and digest the skill lists for it."""
    files: dict[str, bytes] = {}
    for packed in skill.files:
        try:
            data = skill.read_bytes(packed.path)
        except FlueError as exc:
            raise ExportError(f"skill {skill.name!r}: cannot read {packed.path}: {exc}") from None
        if not packed.matches(data):
            raise ExportError(
                f"skill {skill.name!r} ({skill.origin}): {packed.path} differs from its manifest "
                f"({len(data)} bytes, expected {packed.size} with sha256 {packed.sha256[:12]}…); nothing was written"
            )
        files[packed.path] = data
    return files


def _existing(folder: Path) -> dict[str, bytes] | None:
    """What an existing export folder holds (None when there is nothing); a link or a file is never read through."""
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        return None
    if not stat.S_ISDIR(info.st_mode):
        return {"": b"not a folder"}  # differs from any skill: replaced only with force
    found: dict[str, bytes] = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            full = Path(root, name)
            entry = os.lstat(full)
            relative = full.relative_to(folder).as_posix()
            if stat.S_ISLNK(entry.st_mode) or not (stat.S_ISDIR(entry.st_mode) or stat.S_ISREG(entry.st_mode)):
                found[relative] = b"not a regular file"
            elif stat.S_ISREG(entry.st_mode):
                found[relative] = full.read_bytes()
    return found


def _write(folder: Path, files: dict[str, bytes]) -> None:
    for path, data in files.items():
        target = folder.joinpath(*path.split("/"))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def _move_into_place(new: Path, folder: Path, aside: Path) -> None:
    """Rename `new` to `folder`; an old `folder` is renamed aside first and put back if that fails."""
    if not os.path.lexists(folder):
        os.replace(new, folder)
        return
    os.replace(folder, aside)  # deleted with the staging folder
    try:
        os.replace(new, folder)
    except OSError:
        os.replace(aside, folder)
        raise
