"""The trees the vetting walk reads: a folder on disk, files held in memory, or files a source lists.

One walk (`flue_runtime.format.vetting.walk`) judges them all, so a skill in a
`MemorySandbox`, given to `define_skill(files=...)` or loaded from a user's `SkillSource`
meets the rules a folder on disk meets; only what a tree can hold differs (memory and
listings have no links, special files or hard links). Paths are POSIX and relative to the
tree's root ("" is the root).
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from flue_runtime.errors import UnsafeFileError
from flue_runtime.format.messages import piece
from flue_runtime.format.records import ListedFile
from flue_runtime.format.safe_read import FileBytes, inspect_bytes, read_regular

__all__ = ["DiskTree", "ListedTree", "MemoryTree", "Stat", "Tree", "listing_mismatch"]


@dataclass(frozen=True, slots=True)
class Stat:
    """What `lstat` says of an entry, as far as the walk needs it."""

    mode: int
    size: int
    nlink: int = 1
    #: (device, inode, mtime ns, ctime ns) on disk: writing, replacing, renaming or chmod-ing an
    #: entry changes them, so equal stats mean an unchanged entry (all 0 in memory).
    stamp: tuple[int, int, int, int] = (0, 0, 0, 0)


class Tree(Protocol):
    def names(self, folder: str) -> list[str]:
        """The entries of `folder`, in any order; `OSError` when it cannot be listed."""
        ...

    def stat(self, path: str) -> Stat:
        """The entry itself, never what a link points to; `OSError` when it cannot be examined."""
        ...

    def read(self, path: str, *, limit: int, keep: bool) -> FileBytes:
        """Size, SHA-256 and content scans of a regular file (its bytes too with `keep`), as `read_regular` does."""
        ...

    def link_target(self, path: str) -> str:
        """Where a symbolic link points ("" when unknown)."""
        ...


class DiskTree:
    """A folder on disk: every entry examined with `lstat`, files read with `read_regular`."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = os.fspath(root)

    def _full(self, path: str) -> str:
        # Plain strings, joined by hand: this runs for every entry a walk meets, where a pathlib object
        # or os.path.join per entry shows (`path` is clean and relative: the walk built it).
        return f"{self.root}{os.sep}{path}" if path else self.root

    def names(self, folder: str) -> list[str]:
        with os.scandir(self._full(folder)) as entries:
            return [entry.name for entry in entries]

    def stat(self, path: str) -> Stat:
        info = os.lstat(self._full(path))
        return Stat(
            info.st_mode, info.st_size, info.st_nlink, (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_ctime_ns)
        )

    def read(self, path: str, *, limit: int, keep: bool) -> FileBytes:
        return read_regular(self._full(path), limit=limit, keep=keep, digest=True, scan=True)

    def link_target(self, path: str) -> str:
        try:
            return os.readlink(self._full(path))
        except OSError:
            return ""


_FILE = stat.S_IFREG | 0o644
_FOLDER = stat.S_IFDIR | 0o755


class MemoryTree:
    """Files held in memory, keyed by clean relative paths; folders are the paths' parents."""

    def __init__(self, files: Mapping[str, bytes]) -> None:
        self._files = files
        self._children = _folders(files)

    def names(self, folder: str) -> list[str]:
        try:
            return list(self._children[folder])
        except KeyError:
            raise FileNotFoundError(errno.ENOENT, "no such folder", folder) from None

    def stat(self, path: str) -> Stat:
        if path in self._files:
            return Stat(_FILE, len(self._files[path]))
        if path in self._children:
            return Stat(_FOLDER, 0)
        raise FileNotFoundError(errno.ENOENT, "no such file", path)

    def read(self, path: str, *, limit: int, keep: bool) -> FileBytes:
        data = self._files[path]
        if len(data) > limit:
            raise UnsafeFileError(path, "FLU311", f"holds {len(data):,} bytes, over {limit:,}")
        return inspect_bytes(data, digest=True, scan=True)

    def link_target(self, path: str) -> str:
        return ""


def _folders(paths: Iterable[str]) -> dict[str, set[str]]:
    """Each folder of `paths` (clean relative paths) with the names in it; "" is the root."""
    children: dict[str, set[str]] = {"": set()}
    for path in paths:
        child = path
        while child:
            parent, _, name = child.rpartition("/")
            children.setdefault(parent, set()).add(name)
            child = parent
    return children


def listing_mismatch(listed: ListedFile, data: bytes, digest: str = "") -> str:
    """How `data` differs from what its source listed (the size first, then the SHA-256 when listed), or "".
    `digest`: the bytes' SHA-256 when the caller has it already."""
    if len(data) != listed.size:
        return piece("listing: size", given=len(data), listed=listed.size)
    if listed.sha256 is not None and (digest or hashlib.sha256(data).hexdigest()) != listed.sha256:
        return piece("listing: digest")
    return ""


class ListedTree:
    """The files a skill source lists (`ListedFile`: path, size, SHA-256 when known), read through `fetch` only
    when the walk reads them; the paths are clean (`skill_path`) and no file is also a folder.

    The walk sees the listed sizes, so its limits hold before any byte is read. A file is read when the caller
    keeps it (SKILL.md), when its listing has no digest, or always with `eager`: its bytes must then be exactly
    what was listed, or the read fails (an `OSError`, which the walk reports as FLU308). A file listed with a
    digest and not read is vetted by name and listed size only: it is in `unscanned`, and whoever reads it later
    checks it against the listing and scans it then.
    """

    def __init__(self, listing: Mapping[str, ListedFile], fetch: Callable[[str], bytes], *, eager: bool = False):
        self._listing = listing
        self._fetch = fetch
        self._eager = eager
        self._children = _folders(listing)
        #: The bytes of the files read with `keep`.
        self.kept: dict[str, bytes] = {}
        #: The files the walk accepted without reading their bytes.
        self.unscanned: set[str] = set()

    def names(self, folder: str) -> list[str]:
        try:
            return list(self._children[folder])
        except KeyError:
            raise FileNotFoundError(errno.ENOENT, "no such folder", folder) from None

    def stat(self, path: str) -> Stat:
        listed = self._listing.get(path)
        if listed is not None:
            return Stat(_FILE, listed.size)
        if path in self._children:
            return Stat(_FOLDER, 0)
        raise FileNotFoundError(errno.ENOENT, "no such file", path)

    def read(self, path: str, *, limit: int, keep: bool) -> FileBytes:
        listed = self._listing[path]
        if listed.sha256 is not None and not keep and not self._eager:
            self.unscanned.add(path)
            return FileBytes(listed.size, None, listed.sha256)
        if listed.size > limit:
            raise UnsafeFileError(path, "FLU311", f"is listed with {listed.size:,} bytes, over {limit:,}")
        data = self._fetch(path)
        if len(data) != listed.size:  # (before hashing what may be far more than was listed)
            raise OSError(errno.EIO, listing_mismatch(listed, data))
        found = inspect_bytes(data, digest=True, scan=True)
        problem = listing_mismatch(listed, data, found.sha256)
        if problem:
            raise OSError(errno.EIO, problem)
        if keep:
            self.kept[path] = data
            return found
        return FileBytes(found.size, None, found.sha256, found.crc32, found.secrets, hidden=found.hidden)

    def link_target(self, path: str) -> str:
        return ""
