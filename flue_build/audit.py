"""The last line of defence: a built artifact holds exactly what was vetted of every skill folder.

Read back from the finished wheel or sdist, independently of the route that put each member
there (the backend's walk, force-include, shared data, data files, license-files,
script-files, another hook, a custom command):

- every member inside a `_flue_skills/` folder is a planned bundle file or manifest with the
  planned bytes, and every planned file is there;
- nothing remains in a referenced skill's original folder (a wheel ships the bundled copy);
- a member whose origin (from the backend's own file mapping, or for an sdist the file at
  its own path) lies in a skill folder is a file the vetting kept, with the recorded bytes;
- and whatever the routes the build knows of: a member whose path ends in
  `<skill folder name>/<path of a file in it>`, or whose bytes equal those of a file under a
  skill folder (`flue_build.inventory`: every file, noise included), is a vetted copy of
  such a file. Bytes are matched for files of at least `CONTENT_MATCH` bytes, or of the same
  name and not empty: a smaller file says too little to tell a copy from a coincidence
  (`{}`, `pip`, a newline). A member the backend generates itself (`METADATA`, `WHEEL`,
  `RECORD` and the like in `.dist-info/` and `.egg-info/`, an sdist's `PKG-INFO` and
  `setup.cfg`) is matched by path only. A member that is a copy of a file of the project outside every skill folder (its
  origin, with the same bytes) is the project's own: the skill rules do not apply to it.

A wheel is checked without inflating it: its `RECORD` holds the SHA-256 the backend
computed from the very bytes it wrote, and its central directory the size and CRC-32 of
each entry as stored; both must equal what the vetting recorded, so a file swapped during
the build (SHA-256) and an entry rewritten after `RECORD` was written (CRC-32) are both
caught. A member that may hold a skill file's bytes (same size, and the same CRC-32 or
`RECORD` digest) is inflated and hashed, as is an entry the `RECORD` does not list and every
sdist member that needs a digest.

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
from typing import IO, NamedTuple

from flue_build.inventory import Inventory, InventoryFile
from flue_build.pack import BundlePlan
from flue_build.shipping import SkillFolders
from flue_runtime.errors import UnsafeFileError
from flue_runtime.format.diagnostics import Diagnostic, diagnostic
from flue_runtime.format.manifest import BUNDLE_DIR
from flue_runtime.format.messages import piece
from flue_runtime.format.paths import is_inside
from flue_runtime.format.safe_read import read_regular
from flue_runtime.format.vetting import format_size

__all__ = ["Audit", "CONTENT_MATCH", "Origin", "Shipped", "UNKNOWN_ROUTE", "audit"]


_CHUNK = 1 << 20
#: The smallest file matched by its bytes alone, under any name: a line holding a 40-character
#: key is longer; shorter files (`{}`, `pip`, a newline) coincide too often to tell a copy apart.
CONTENT_MATCH = 32
#: The route of a member no build setting the hook knows of put there.
UNKNOWN_ROUTE = "an unknown route (another build hook or a custom command)"


class Origin(NamedTuple):
    """Where the backend took a member from, and the route (build setting) that put it there."""

    source: Path
    route: str


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
        self._read: str | None = None
        self._opener = opener

    def sha256(self) -> str | None:
        """The SHA-256 `RECORD` lists, or else of the bytes."""
        return self._sha256 if self._sha256 is not None else self.read_sha256()

    def read_sha256(self) -> str | None:
        """The SHA-256 of the bytes as stored, whatever `RECORD` says."""
        if self._read is None:
            handle = self._opener()
            if handle is not None:
                with handle:
                    self._read = _sha256(handle)
        return self._read

    def matches(self, vetted: _Vetted) -> bool:
        if self.size != vetted.size or (self.crc32 is not None and self.crc32 != vetted.crc32):
            return False
        return self.sha256() == vetted.sha256

    def may_equal(self, size: int, sha256: str, crc32: int) -> bool:
        """Whether the bytes may be those of a file with this size and digests: the stored CRC-32 or the
        listed SHA-256 agrees (either is enough to look, so neither alone can hide a copy), then the
        bytes are hashed to be sure."""
        if self.size != size:
            return False
        if self.crc32 is not None and self.crc32 != crc32 and self._sha256 != sha256:
            return False
        return self.read_sha256() == sha256


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
    origins: Mapping[str, Origin] | None = None,
    folders: SkillFolders | None = None,
    tree: Path | None = None,
    inventory: Inventory | None = None,
) -> Audit:
    """Problems in `artifact` (a `.whl`, or an sdist whose entries are named without their top
    folder), and what it ships. `original_prefixes`: archive paths (`pkg/skills/refunds/`) that
    must stay empty; `origins`: archive path → the file the backend took it from and the route;
    `tree`: for an sdist, the project folder: every entry also stands for the file at its own path
    there, since that is what it becomes when the sdist is unpacked and built. With `folders`,
    every other member is also matched against every file under the project's skill folders
    (`inventory`, listed now when not given)."""
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

    def report(entry: str, key: str, **values: str) -> None:
        result.problems.append(diagnostic(key, f"{shown}/{entry}", **values))

    members = None
    if folders is not None:
        root = folders.collection.root
        if inventory is None:
            met = [*folders.unreferenced, *(f for f in folders.collection.skills if is_inside(root, f))]
            inventory = Inventory(root, met)
        members = _Members(folders, inventory, origins or {}, tree, shipped, result.problems)
    seen: set[str] = set()

    def check(entry: _Entry) -> None:
        name = entry.name
        if name in expected:
            seen.add(name)
            if not entry.matches(expected[name]):
                report(name, "FLU409 changed")
            else:
                _tally_bundled(shipped, name, entry.size)
            return
        if f"/{BUNDLE_DIR}/" in f"/{name}":
            report(name, "FLU409 bundle")
            return
        if any(name.startswith(prefix) for prefix in original_prefixes):
            report(name, "FLU409 original")
            return
        if members is not None:
            found = members.check(entry, wheel=tree is None)
            if found is not None:
                report(name, "FLU409 carried", **found)

    for entry in _entries(artifact, report):
        try:
            check(entry)
        except (OSError, EOFError, zipfile.BadZipFile, tarfile.TarError, zlib.error) as exc:
            report(entry.name, "FLU409 unreadable", reason=str(exc))
    for name in sorted(set(expected) - seen):
        report(name, "FLU409 missing")
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


class _Members:
    """Each member that is not a bundle file, checked against the skill folders: through its origin
    when the backend says where it came from, then by its path and by its bytes."""

    def __init__(
        self,
        folders: SkillFolders,
        inventory: Inventory,
        origins: Mapping[str, Origin],
        tree: Path | None,
        shipped: Shipped,
        problems: list[Diagnostic],
    ) -> None:
        self.folders, self.inventory, self.origins, self.tree = folders, inventory, origins, tree
        self.shipped, self.problems = shipped, problems
        self._own: dict[Path, _Vetted | None] = {}

    def check(self, entry: _Entry, *, wheel: bool) -> dict[str, str] | None:
        """What is wrong with `entry` (the values of FLU409's `carried` words), if anything."""
        origin = self.origins.get(entry.name)
        route = origin.route if origin is not None else UNKNOWN_ROUTE
        sources = [o for o in (origin.source if origin else None, self.tree / entry.name if self.tree else None) if o]
        for source in dict.fromkeys(sources):
            folder = self.folders.folder_of(source)
            if folder is None:
                if self.folders.folder_of(Path(os.path.realpath(source))) is not None:
                    return self._problem(piece("FLU409 link", source=self._shown(source)), route)
                continue  # outside every skill folder: the project's own file, if the bytes agree (below)
            self._meet(source)
            recorded = self.folders.recorded(source)
            if recorded is None:
                return self._problem(piece("FLU409 is", about=self._about(source)), route)
            if not entry.matches(_Vetted(recorded.size, recorded.sha256, recorded.crc32)):
                return self._problem(piece("FLU409 differs", about=self._about(source)), route)
            _tally_plain(self.shipped, self.folders, source, entry.size, sdist=self.tree is not None)
            return None
        problem = self._matched(entry, sources, route, wheel=wheel)
        markdown = next((s for s in sources if s in self.folders.collection.markdown), None)
        if problem is None and markdown is not None:
            _tally_plain(self.shipped, self.folders, markdown, entry.size, sdist=self.tree is not None)
        return problem

    def _matched(self, entry: _Entry, sources: list[Path], route: str, *, wheel: bool) -> dict[str, str] | None:
        """What is wrong with `entry` by its path and its bytes, whatever its origin said."""
        named = self.inventory.named(entry.name)
        same = [] if named else self._same_bytes(entry, wheel=wheel)
        if not named and not same:
            return None
        if any(self._own_copy(entry, source) for source in sources):
            return None  # a copy of the project's own file outside every skill folder
        for item, through in named:
            self._meet(item.source)
            recorded = self.folders.recorded(item.source)
            if (
                not through
                and recorded is not None
                and entry.matches(_Vetted(recorded.size, recorded.sha256, recorded.crc32))
            ):
                return None
        for item in same:
            self._meet(item.source)
            recorded = self.folders.recorded(item.source)
            if recorded is not None and recorded.sha256 == entry.read_sha256():
                return None  # the bytes of a vetted file
        if named:
            item, through = max(named, key=lambda found: _common_tail(entry.name, found[0]))
            return self._problem(
                piece("FLU409 below" if through else "FLU409 ends", about=self._about(item.source)), route
            )
        return self._problem(piece("FLU409 bytes", about=self._about(same[0].source)), route)

    def _same_bytes(self, entry: _Entry, *, wheel: bool) -> list[InventoryFile]:
        """The files under skill folders whose bytes the entry holds (see `CONTENT_MATCH`)."""
        if _generated(entry.name, wheel=wheel):
            return []
        base = entry.name.rsplit("/", 1)[-1]
        found = []
        for item in self.inventory.sized(entry.size):
            if entry.size < CONTENT_MATCH and item.path.rsplit("/", 1)[-1] != base:
                continue
            digest = self.inventory.digest(item)
            if digest is not None and entry.may_equal(item.size, digest.sha256, digest.crc32):
                found.append(item)
        return found

    def _own_copy(self, entry: _Entry, source: Path) -> bool:
        """Whether `entry` holds the bytes of `source`, a regular file outside every skill folder."""
        if source not in self._own:
            own = None
            if (
                self.folders.folder_of(source) is None
                and self.folders.folder_of(Path(os.path.realpath(source))) is None
            ):
                try:
                    found = read_regular(source, keep=False, digest=True)
                except (OSError, UnsafeFileError):
                    pass
                else:
                    own = _Vetted(found.size, found.sha256, found.crc32)
            self._own[source] = own
        own = self._own[source]
        return own is not None and entry.matches(own)

    def _meet(self, path: Path) -> None:
        """Vet the skill folder of `path` now if the build has not (a folder only this route reached)."""
        self.problems += [d for d in self.folders.meet([path]) if d.is_error]

    def _shown(self, path: Path) -> str:
        return self.folders.collection.display(path)

    def _about(self, path: Path) -> str:
        """`path`, its skill folder, and what the vetting made of it."""
        folder = self.folders.folder_of(path)
        verdict = piece("verdict: vetted") if self.folders.ships(path) else self.folders.why_not(path)
        if folder is None:
            return piece("FLU409 about", path=self._shown(path), verdict=verdict)
        return piece("FLU409 about folder", path=self._shown(path), folder=self._shown(folder), verdict=verdict)

    @staticmethod
    def _problem(what: str, route: str) -> dict[str, str]:
        fix = piece("FLU409 unknown route") if route == UNKNOWN_ROUTE else piece("FLU409 route", route=route)
        return {"what": what, "route": route, "fix": fix}


def _common_tail(member: str, item: InventoryFile) -> int:
    """How many path segments `member` shares with the end of `item`'s path in its project."""
    ours, theirs = member.split("/"), item.source.as_posix().split("/")
    count = 0
    while count < min(len(ours), len(theirs)) and ours[-1 - count] == theirs[-1 - count]:
        count += 1
    return count


#: What the backends write themselves into `.dist-info/` (a wheel) and `.egg-info/` (setuptools' sdist).
_METADATA = frozenset(
    {
        "METADATA",
        "WHEEL",
        "RECORD",
        "entry_points.txt",
        "top_level.txt",
        "dependency_links.txt",
        "namespace_packages.txt",
        "PKG-INFO",
        "SOURCES.txt",
        "requires.txt",
        "not-zip-safe",
        "zip-safe",
    }
)


def _generated(name: str, *, wheel: bool) -> bool:
    """A member the backend writes itself (`_METADATA` in `.dist-info/` or `.egg-info/`; an sdist's
    `PKG-INFO` and `setup.cfg`): its bytes are the backend's, whatever a skill's `.venv/` holds."""
    folder, _, base = name.rpartition("/")
    if folder.rsplit("/", 1)[-1].endswith((".dist-info", ".egg-info")):
        return base in _METADATA
    return not wheel and name in ("PKG-INFO", "setup.cfg")


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
            report(name, "FLU409 twice")
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
