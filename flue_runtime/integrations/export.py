"""Write mounted skills to disk as plain skill folders, for runtimes that read skills from a folder.

Each skill becomes `DEST/<name>/` holding SKILL.md and its files, byte for byte, every file
checked against the size and SHA-256 its skill lists (a bundle's manifest, or the vetting of
a folder). All skills are written into a staging folder inside DEST first and moved into
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
from typing import Literal

from flue_runtime.errors import DestinationError, ExportError, FlueError
from flue_runtime.format.naming import is_valid_name, name_problems
from flue_runtime.mount.reference import SkillReference

__all__ = ["Exported", "Outcome", "checked_files", "export_skills"]


Outcome = Literal["written", "replaced", "unchanged"]


@dataclass(frozen=True)
class Exported:
    """One skill's folder and what happened to it."""

    name: str
    folder: Path
    outcome: Outcome


def export_skills(skills: Iterable[SkillReference], dest: Path, *, force: bool = False) -> list[Exported]:
    """Write each skill to `dest/<name>/`; `ExportError` (and `dest` unchanged) when one cannot be, the
    `DestinationError` kind when `dest` is at fault."""
    chosen = list(skills)
    for skill in chosen:  # a name becomes a folder: the skill-name rule, whatever source made the reference
        if not is_valid_name(skill.name):
            raise ExportError(
                f"skill {skill.name!r} ({skill.origin}): not a valid skill name "
                f"({'; '.join(name_problems(skill.name))}); nothing was written"
            )
    names = [skill.name for skill in chosen]
    if len(set(names)) != len(names):
        raise ExportError(f"two skills to export share a name ({', '.join(sorted(names))}); export each name once")
    contents = {skill.name: checked_files(skill) for skill in chosen}
    outcomes: dict[str, Outcome] = {}
    for skill in chosen:
        folder = dest / skill.name
        existing = _existing(folder)
        if existing is None:
            outcomes[skill.name] = "written"
        elif existing == contents[skill.name]:
            outcomes[skill.name] = "unchanged"
        elif force:
            outcomes[skill.name] = "replaced"
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
        for skill in chosen:
            if outcomes[skill.name] != "unchanged":
                _write(staging / skill.name, contents[skill.name])
        for skill in chosen:
            if outcomes[skill.name] != "unchanged":
                _move_into_place(staging / skill.name, dest / skill.name, staging / f".old-{skill.name}")
    except OSError as exc:
        raise DestinationError(f"cannot write to {dest}: {exc.strerror or exc}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return [Exported(skill.name, dest / skill.name, outcomes[skill.name]) for skill in chosen]


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
