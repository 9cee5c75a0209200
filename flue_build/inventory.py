"""Every file under every skill folder of a project: what a build's audit matches each member of a
finished artifact against, whatever route carried the member there.

The skill folders are found by walking the project (links never followed; noise folders such as
`.venv/`, `build/`, `node_modules/` at the project level left out, so the backends' own build
folders and installed packages are not taken for the project's skills), plus any folder the build
met outside it (a force-included one). Under a skill folder everything is listed with `lstat`,
noise included: a noise folder is never vetted, and this listing is how the audit proves none of
it ships. A regular file's bytes are read (`O_NOFOLLOW`, never through a link) and hashed only
when an artifact holds a member of the same size; a link is known by its path alone.
"""

from __future__ import annotations

import os
import stat
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from flue_build.fswalk import walk_tree
from flue_runtime.errors import UnsafeFileError
from flue_runtime.format.records import SKILL_FILE
from flue_runtime.format.safe_read import read_regular
from flue_runtime.format.vetting import is_noise_dir

__all__ = ["Digest", "Inventory", "InventoryFile"]


class InventoryFile(NamedTuple):
    """An entry under a skill folder that is not a folder: a regular file (its size), a symbolic
    link or a special file (size -1)."""

    folder: Path
    #: The path inside the folder, POSIX.
    path: str
    size: int
    link: bool = False

    @property
    def source(self) -> Path:
        return self.folder.joinpath(*self.path.split("/"))


@dataclass(frozen=True)
class Digest:
    """What a file's bytes hash to: compared with a member's RECORD digest and stored CRC-32."""

    sha256: str
    crc32: int


class Inventory:
    """The files under the skill folders of `root` and of `extra` (folders met outside it), looked up
    by the end of a member's path (`named`) and by size (`sized`), hashed on demand (`digest`)."""

    def __init__(self, root: Path, extra: Iterable[Path] = ()) -> None:
        self.root = root
        self._by_key: dict[str, list[InventoryFile]] = defaultdict(list)
        self._by_size: dict[int, list[InventoryFile]] = defaultdict(list)
        self._names: set[str] = set()
        self._digests: dict[Path, Digest | None] = {}
        self.folders = sorted({*_skill_folders(root), *(Path(os.path.abspath(f)) for f in extra)})
        for folder in self.folders:
            self._names.add(folder.name)
            for item in _entries(folder):
                self._by_key[f"{folder.name}/{item.path}"].append(item)
                if item.size > 0:
                    self._by_size[item.size].append(item)

    def named(self, member: str) -> list[tuple[InventoryFile, bool]]:
        """The files whose `<folder name>/<path>` the member's path ends with, and the links the
        member's path runs through (`True`: the member lies below a link of a skill folder, which
        a backend followed)."""
        parts = member.split("/")
        found: list[tuple[InventoryFile, bool]] = []
        for start, part in enumerate(parts[:-1]):
            if part not in self._names:
                continue
            for end in range(start + 2, len(parts) + 1):
                for item in self._by_key.get("/".join(parts[start:end]), ()):
                    if end == len(parts):
                        found.append((item, False))
                    elif item.link:
                        found.append((item, True))
        return found

    def sized(self, size: int) -> list[InventoryFile]:
        """The regular files of `size` bytes (never an empty one)."""
        return self._by_size.get(size, []) if size > 0 else []

    def digest(self, item: InventoryFile) -> Digest | None:
        """SHA-256 and CRC-32 of a regular file, read without following a link; None when it cannot be
        read as one (gone, swapped for a link or a FIFO since it was listed)."""
        source = item.source
        if source not in self._digests:
            try:
                found = read_regular(source, keep=False, digest=True)
            except (OSError, UnsafeFileError):
                self._digests[source] = None
            else:
                self._digests[source] = Digest(found.sha256, found.crc32)
        return self._digests[source]


def _skill_folders(root: Path) -> Iterator[Path]:
    """Every outermost folder below `root` holding a `SKILL.md` (as `SkillFolders` decides: any entry
    of that name), noise folders and links left out."""
    for folder, dirs, files in walk_tree(root):
        if folder != os.fspath(root) and (SKILL_FILE in files or SKILL_FILE in dirs):
            dirs[:] = []
            yield Path(folder)
            continue
        dirs[:] = [d for d in dirs if not is_noise_dir(d)]


def _entries(folder: Path) -> Iterator[InventoryFile]:
    """Every entry below `folder` that is not a folder, from `lstat` (never followed); iterative."""
    top = os.fspath(folder)
    pending = [""]
    while pending:
        relative = pending.pop()
        try:
            with os.scandir(os.path.join(top, relative) if relative else top) as listing:
                entries = list(listing)
        except OSError:
            continue
        for entry in entries:
            path = f"{relative}/{entry.name}" if relative else entry.name
            try:
                if entry.is_dir(follow_symlinks=False):  # the type scandir read, no further call
                    pending.append(path)
                    continue
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):  # replaced by a folder since it was listed
                pending.append(path)
            elif stat.S_ISREG(info.st_mode):
                yield InventoryFile(folder, path, info.st_size)
            else:
                yield InventoryFile(folder, path, -1, stat.S_ISLNK(info.st_mode))
