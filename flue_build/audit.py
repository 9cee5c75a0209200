"""The last line of defence: a built artifact holds exactly what was vetted of every skill folder.

Read back from the finished wheel or sdist, whatever put each entry there (the backend's
walk, a force-include, shared data, data files, another hook):

- every entry inside a `_flue_skills/` folder is a planned bundle file or manifest with the
  planned bytes, and every planned file is there;
- nothing remains in a referenced skill's original folder (a wheel ships the bundled copy);
- every entry whose origin (from the backend's own file mapping) lies in a skill folder,
  wherever in the archive it landed, is a file the vetting kept, with the recorded bytes.

A wheel is checked without inflating it: its `RECORD` holds the SHA-256 the backend
computed from the very bytes it wrote, and its central directory the size and CRC-32 of
each entry as stored; both must equal what the vetting recorded, so a file swapped during
the build (SHA-256) and an entry rewritten after `RECORD` was written (CRC-32) are both
caught. An entry the `RECORD` does not list, and every sdist entry, is inflated and hashed.

A wrong file in an artifact is the worst outcome of a build: the caller deletes it.
"""

from __future__ import annotations

import base64
import csv
import functools
import hashlib
import io
import os
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from flue_build.pack import BundlePlan
from flue_build.shipping import SkillFolders
from flue_runtime.format.diagnostics import Diagnostic
from flue_runtime.format.manifest import BUNDLE_DIR
from flue_runtime.format.vetting import format_size

_CHUNK = 1 << 20
_HINT = (
    "a conflicting build configuration (force-include, shared-data, data-files, artifacts, another hook) "
    "or a bug; the artifact was deleted"
)


@dataclass(frozen=True)
class _Vetted:
    """What an entry must be: the vetted file's size, SHA-256 and CRC-32."""

    size: int
    sha256: str
    crc32: int


class _Entry:
    """One file entry of an archive: its path, size and CRC-32 as stored (a tar records no CRC), and
    its SHA-256: as the wheel's `RECORD` lists it, or read and hashed once, when first asked (None
    for an entry that is not a regular file)."""

    def __init__(
        self, name: str, size: int, crc32: int | None, listed: str | None, opener: Callable[[], IO[bytes] | None]
    ) -> None:
        self.name, self.size, self.crc32 = name, size, crc32
        self._sha256 = listed
        self._opener = opener

    def sha256(self) -> str | None:
        if self._sha256 is None:
            handle = self._opener()
            if handle is not None:
                with handle:
                    self._sha256 = _sha256(handle)
        return self._sha256

    def matches(self, vetted: _Vetted) -> bool:
        if self.size != vetted.size or (self.crc32 is not None and self.crc32 != vetted.crc32):
            return False
        return self.sha256() == vetted.sha256


@dataclass
class Shipped:
    """What the artifact holds of skills, counted from the entries the audit checked."""

    #: Bundle folders (`pkg/_flue_skills/`) of a wheel.
    bundles: set[str] = field(default_factory=set)
    #: Skills as bundled (their ids) or, in an sdist, as folders: each with its files and bytes.
    skills: dict[str, list[int]] = field(default_factory=dict)
    markdown: list[int] = field(default_factory=list)
    #: Unreferenced skill folders shipped as plain files in a wheel.
    plain: dict[str, list[int]] = field(default_factory=dict)

    def line(self, artifact: str) -> str:
        """One line: how many skills, files, bytes and markdown files went where."""
        parts = []
        if self.skills:
            parts.append(_count(self.skills, "skill"))
        if self.markdown:
            parts.append(f"{_plural(len(self.markdown), 'markdown file')} ({format_size(sum(self.markdown))})")
        what = " and ".join(parts) or "no skills"
        if self.bundles:
            where = f"bundled in {', '.join(sorted(self.bundles))}"
        elif parts:
            where = "at their own paths"
        else:
            where = ""
        line = f"{artifact}: {what}{' ' + where if where else ''}"
        if self.plain:
            line += f"; {_count(self.plain, 'unreferenced skill')} as plain files"
        return line


def _plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def _count(skills: dict[str, list[int]], noun: str) -> str:
    files = sum(len(sizes) for sizes in skills.values())
    size = sum(sum(sizes) for sizes in skills.values())
    return f"{_plural(len(skills), noun)} ({_plural(files, 'file')}, {format_size(size)})"


@dataclass
class Audit:
    problems: list[Diagnostic] = field(default_factory=list)
    shipped: Shipped = field(default_factory=Shipped)


def audit(
    artifact: Path,
    bundles: Sequence[BundlePlan] = (),
    original_prefixes: Sequence[str] = (),
    origins: Mapping[str, Path] | None = None,
    folders: SkillFolders | None = None,
    tree: Path | None = None,
) -> Audit:
    """Problems in `artifact` (a `.whl`, or an sdist whose entries are named without their top
    folder), and what it ships. `original_prefixes`: archive paths (`pkg/skills/refunds/`) that
    must stay empty; `origins`: archive path → the file the backend took it from; `tree`: for an
    sdist, the project folder: every entry also stands for the file at its own path there,
    since that is what it becomes when the sdist is unpacked and built."""
    expected: dict[str, _Vetted] = {}
    for bundle in bundles:
        expected[bundle.manifest_path] = _Vetted(
            len(bundle.manifest), hashlib.sha256(bundle.manifest).hexdigest(), zlib.crc32(bundle.manifest)
        )
        for item in bundle.files:
            expected[item.dest] = _Vetted(item.size, item.sha256, item.crc32)
    result = Audit()
    shipped = result.shipped
    shown = artifact.name

    def report(entry: str, message: str) -> None:
        result.problems.append(Diagnostic.make("FLU409", f"{shown}/{entry}", message, _HINT))

    seen: set[str] = set()
    for entry in _entries(artifact, report):
        name = entry.name
        if name in expected:
            seen.add(name)
            if not entry.matches(expected[name]):
                report(name, "bytes differ from the vetted file (changed during the build?)")
            else:
                _tally_bundled(shipped, name, entry.size)
            continue
        if f"/{BUNDLE_DIR}/" in f"/{name}":
            report(name, "not a vetted file, yet it sits in a skill bundle")
            continue
        if any(name.startswith(prefix) for prefix in original_prefixes):
            report(name, "left in a referenced skill's original folder; only the bundled copy may ship")
            continue
        if folders is None:
            continue
        for origin in dict.fromkeys(
            o for o in (origins.get(name) if origins else None, tree / name if tree else None) if o
        ):
            result.problems += [d for d in folders.meet([origin]) if d.is_error]  # another hook's folder: vetted now
            problem = _from_skill_folder(folders, origin, entry)
            if problem:
                report(name, problem)
                break
            _tally_plain(shipped, folders, origin, entry.size, sdist=tree is not None)
    for name in sorted(set(expected) - seen):
        report(name, "a vetted file is missing from the artifact")
    return result


def _tally_bundled(shipped: Shipped, name: str, size: int) -> None:
    """A bundle entry (`pkg/_flue_skills/skills/<id>/...`, `.../markdown/<id>.md`, the manifest) counted."""
    place, _, inside = name.partition(f"{BUNDLE_DIR}/")
    shipped.bundles.add(place + BUNDLE_DIR + "/")
    kind, _, rest = inside.partition("/")
    if kind == "skills":
        shipped.skills.setdefault(place + rest.split("/", 1)[0], []).append(size)
    elif kind == "markdown":
        shipped.markdown.append(size)


def _tally_plain(shipped: Shipped, folders: SkillFolders, origin: Path, size: int, *, sdist: bool) -> None:
    """An entry from a skill folder or a markdown target, at its own path, counted."""
    if origin in folders.collection.markdown:
        shipped.markdown.append(size)
        return
    folder = folders.folder_of(origin)
    if folder is None:
        return
    if sdist:
        shipped.skills.setdefault(os.fspath(folder), []).append(size)
    elif not folders.referenced(folder):
        shipped.plain.setdefault(os.fspath(folder), []).append(size)


def _from_skill_folder(folders: SkillFolders, origin: Path, entry: _Entry) -> str | None:
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
    if not entry.matches(_Vetted(recorded.size, recorded.sha256, recorded.crc32)):
        return f"taken from the skill folder {where} but its bytes differ from the vetted file"
    return None


def _entries(artifact: Path, report: Callable[[str, str], None]) -> Iterator[_Entry]:
    """Every file entry: its archive path (an sdist's without its top folder), size, CRC-32 and SHA-256."""
    if zipfile.is_zipfile(artifact):
        with zipfile.ZipFile(artifact) as archive:
            yield from _zip_entries(archive, artifact.name.endswith(".whl"), report)
        return
    with tarfile.open(artifact) as tar:
        for member in tar:
            if member.isdir():
                continue
            name = member.name.split("/", 1)[1] if "/" in member.name else member.name
            regular = member.isreg() or member.islnk()
            size = member.size if regular else -1
            yield _Entry(name, size, None, None, functools.partial(tar.extractfile, member) if regular else _nothing)


def _zip_entries(archive: zipfile.ZipFile, wheel: bool, report: Callable[[str, str], None]) -> Iterator[_Entry]:
    infos = [info for info in archive.infolist() if not info.is_dir()]
    record = _record(archive, infos) if wheel else {}
    seen: set[str] = set()
    for info in infos:
        name = info.filename
        if name in seen:
            report(name, "a second entry of this name: which one an installer keeps is undefined")
            continue
        seen.add(name)
        digest, size = record.get(name, (None, None))
        listed = digest if size in (None, info.file_size) else None
        yield _Entry(name, info.file_size, info.CRC, listed, functools.partial(archive.open, info))


def _record(archive: zipfile.ZipFile, infos: list[zipfile.ZipInfo]) -> dict[str, tuple[str, int | None]]:
    """A wheel's RECORD: entry → (hex SHA-256, size) for every line with a SHA-256; {} without one."""
    names = [i.filename for i in infos if i.filename.count("/") == 1 and i.filename.endswith(".dist-info/RECORD")]
    if len(names) != 1:
        return {}
    out: dict[str, tuple[str, int | None]] = {}
    text = archive.read(names[0]).decode("utf-8", "replace")
    for row in csv.reader(io.StringIO(text)):
        if len(row) < 2 or not row[1].startswith("sha256="):
            continue
        try:
            digest = base64.urlsafe_b64decode(row[1][7:] + "=" * (-len(row[1][7:]) % 4)).hex()
        except ValueError:
            continue
        size = int(row[2]) if len(row) > 2 and row[2].isdigit() else None
        out[row[0]] = (digest, size)
    return out


def _nothing() -> None:
    return None


def _sha256(handle: IO[bytes]) -> str:
    digest = hashlib.sha256()
    while chunk := handle.read(_CHUNK):
        digest.update(chunk)
    return digest.hexdigest()
