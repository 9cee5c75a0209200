"""The last line of defence: a built artifact holds exactly what was vetted of every skill folder.

Read back from the finished wheel or sdist, whatever put each entry there (the backend's
walk, a force-include, shared data, data files, another hook):

- every entry inside a `_flue_skills/` folder is a planned bundle file or manifest with the
  planned bytes, and every planned file is there;
- nothing remains in a referenced skill's original folder (a wheel ships the bundled copy);
- every entry whose origin (from the backend's own file mapping) lies in a skill folder,
  wherever in the archive it landed, is a file the vetting kept, with the recorded bytes.

A wrong file in an artifact is the worst outcome of a build: the caller deletes it.
"""

from __future__ import annotations

import hashlib
import os
import tarfile
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO

from flue_build.pack import BundlePlan
from flue_build.shipping import SkillFolders
from flue_runtime.format.diagnostics import Diagnostic
from flue_runtime.format.manifest import BUNDLE_DIR

_CHUNK = 1 << 20
_HINT = (
    "a conflicting build configuration (force-include, shared-data, data-files, artifacts, another hook) "
    "or a bug; the artifact was deleted"
)


def audit(
    artifact: Path,
    bundles: Sequence[BundlePlan] = (),
    original_prefixes: Sequence[str] = (),
    origins: Mapping[str, Path] | None = None,
    folders: SkillFolders | None = None,
    tree: Path | None = None,
) -> list[Diagnostic]:
    """Problems in `artifact` (a `.whl`, or an sdist whose entries are named without their top
    folder). `original_prefixes`: archive paths (`pkg/skills/refunds/`) that must stay
    empty; `origins`: archive path → the file the backend took it from; `tree`: for an
    sdist, the project folder: every entry also stands for the file at its own path there,
    since that is what it becomes when the sdist is unpacked and built."""
    expected: dict[str, str] = {}
    for bundle in bundles:
        expected[bundle.manifest_path] = hashlib.sha256(bundle.manifest).hexdigest()
        for item in bundle.files:
            expected[item.dest] = item.sha256
    problems: list[Diagnostic] = []
    shown = artifact.name

    def report(entry: str, message: str) -> None:
        problems.append(Diagnostic.make("FLU409", f"{shown}/{entry}", message, _HINT))

    seen: set[str] = set()
    for name, handle in _entries(artifact):
        if name in expected:
            seen.add(name)
            if handle is None or _sha256(handle) != expected[name]:
                report(name, "bytes differ from the vetted file (changed during the build?)")
            continue
        if f"/{BUNDLE_DIR}/" in f"/{name}":
            report(name, "not a vetted file, yet it sits in a skill bundle")
            continue
        if any(name.startswith(prefix) for prefix in original_prefixes):
            report(name, "left in a referenced skill's original folder; only the bundled copy may ship")
            continue
        if folders is None:
            continue
        digest = _Digest(handle)
        for origin in dict.fromkeys(
            o for o in (origins.get(name) if origins else None, tree / name if tree else None) if o
        ):
            problems += [d for d in folders.meet([origin]) if d.is_error]  # a folder another hook added: vetted now
            problem = _from_skill_folder(folders, origin, digest)
            if problem:
                report(name, problem)
                break
    for name in sorted(set(expected) - seen):
        report(name, "a vetted file is missing from the artifact")
    return problems


class _Digest:
    """An entry's SHA-256, read once and only when asked; None for an entry that is not a regular file."""

    def __init__(self, handle: IO[bytes] | None) -> None:
        self.handle = handle
        self.value: str | None = None

    def __call__(self) -> str | None:
        if self.value is None and self.handle is not None:
            self.value = _sha256(self.handle)
        return self.value


def _from_skill_folder(folders: SkillFolders, origin: Path, digest: _Digest) -> str | None:
    """What is wrong with an entry taken from `origin`, if that lies in a skill folder."""
    folder = folders.folder_of(origin)
    if folder is None:
        if folders.folder_of(Path(os.path.realpath(origin))) is not None:
            return f"taken from {origin}, a symbolic link into a skill folder"
        return None
    recorded = folders.recorded(origin)
    where = folders.collection.display(folder)
    if recorded is None:
        return f"taken from the skill folder {where} but not a file its vetting kept (noise, refused or excluded)"
    if digest() != recorded:
        return f"taken from the skill folder {where} but its bytes differ from the vetted file"
    return None


def _entries(artifact: Path) -> Iterator[tuple[str, IO[bytes] | None]]:
    """Every file entry: its archive path (an sdist's without its top folder) and its bytes (None
    for a link or another entry that is not a regular file)."""
    wheel = artifact.name.endswith(".whl")

    def named(name: str) -> str:
        return name if wheel or "/" not in name else name.split("/", 1)[1]

    if zipfile.is_zipfile(artifact):
        with zipfile.ZipFile(artifact) as archive:
            for info in archive.infolist():
                if not info.is_dir():
                    with archive.open(info) as handle:
                        yield named(info.filename), handle
        return
    with tarfile.open(artifact) as tar:
        for member in tar:
            if not member.isdir():
                yield named(member.name), tar.extractfile(member) if member.isreg() or member.islnk() else None


def _sha256(handle: IO[bytes]) -> str:
    digest = hashlib.sha256()
    while chunk := handle.read(_CHUNK):
        digest.update(chunk)
    return digest.hexdigest()
