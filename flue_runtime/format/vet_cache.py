"""Vetting verdicts kept while a folder stays as it was: workspace skills are vetted at every prompt.

`vet_skill` reads, hashes and scans every file of a folder; doing that for every workspace
skill at every prompt cost seconds per prompt at a few thousand skills. `VetCache.vet`
vets a folder through the one walk while recording the `lstat` of the folder and of every
entry the walk looked at; a later call takes those `lstat`s again and returns the kept
verdict only when every one is the same, so it is always the verdict a fresh `vet_skill`
would give. Writing, replacing, renaming or chmod-ing an entry changes its `lstat` (inode,
times, size, links, mode); adding, removing or renaming an entry changes its folder's.

An entry changed less than `SETTLE_NS` before the vetting is never trusted (git's "racily
clean" entries): file times come from a coarse clock, so a second write within the same
tick, of the same size, could leave every field of the `lstat` as it was.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Collection
from pathlib import Path

from flue_runtime.format.safe_read import FileBytes
from flue_runtime.format.skill_folder import VettedSkill, vet_tree
from flue_runtime.format.trees import DiskTree, Stat
from flue_runtime.format.vetting import DEFAULT_LIMITS, Limits, allowed_paths

__all__ = ["SETTLE_NS", "VetCache"]


#: How long ago an entry must have changed, when it was vetted, for its `lstat` to be trusted.
SETTLE_NS = 2_000_000_000
#: Folders whose verdicts are kept (the least recently used go first).
CACHE_SIZE = 10_000


class _Watched:
    """A folder on disk that remembers the `lstat` of every entry the walk looked at, and of the folder itself."""

    def __init__(self, root: Path, settle_ns: int) -> None:
        self._tree = DiskTree(root)
        self._settled = time.time_ns() - settle_ns  # an entry changed after this is too recent to trust
        self._seen: dict[str, Stat | int | None] = {}  # path -> its lstat, or the errno lstat failed with
        try:
            self._look("")  # the folder itself: listing it is the walk's first look
        except OSError:
            pass  # recorded; the walk meets the same error and says so

    def _look(self, path: str) -> Stat:
        try:
            found = self._tree.stat(path)
        except OSError as exc:
            self._seen[path] = exc.errno
            raise
        self._seen[path] = found
        return found

    def names(self, folder: str) -> list[str]:
        return self._tree.names(folder)  # its entries are known from its lstat (see `unchanged`)

    def stat(self, path: str) -> Stat:
        return self._look(path)

    def read(self, path: str, *, limit: int, keep: bool) -> FileBytes:
        return self._tree.read(path, limit=limit, keep=keep)

    def link_target(self, path: str) -> str:
        return self._tree.link_target(path)

    def unchanged(self) -> bool:
        """Whether every `lstat` the walk saw would come out the same now (and none changed too recently to tell).

        A folder is listed only after its `lstat` was taken, and adding, removing or renaming an entry
        updates the folder's times (POSIX), so the same folder `lstat`s mean the same listings."""
        for path, seen in self._seen.items():
            if isinstance(seen, Stat) and seen.stamp[3] >= self._settled:
                return False
            try:
                now: Stat | int | None = self._tree.stat(path)
            except OSError as exc:
                now = exc.errno
            if now != seen:
                return False
        return True


#: What a verdict depends on besides the folder: its display, the allowed paths in it, strictness, the limits.
_Key = tuple[str, str, frozenset[str] | None, bool, Limits]


class VetCache:
    """`vet_skill(directory, display=..., allow=..., strict=..., limits=...)`, kept per folder and rules while
    the folder is unchanged.

    `settle_ns`: how long before the vetting an entry must have last changed to be trusted (`SETTLE_NS`).
    """

    def __init__(self, size: int = CACHE_SIZE, *, settle_ns: int = SETTLE_NS) -> None:
        self._size = size
        self._settle_ns = settle_ns
        self._kept: OrderedDict[_Key, tuple[_Watched, VettedSkill]] = OrderedDict()
        self._lock = threading.Lock()  # sessions discover workspace skills from worker threads

    def vet(
        self,
        directory: Path,
        *,
        display: str,
        allow: Collection[str | os.PathLike[str]] | None = None,
        strict: bool = False,
        limits: Limits = DEFAULT_LIMITS,
    ) -> VettedSkill:
        """As `vet_skill` (`allow`: absolute paths, None for a folder in no project)."""
        allowed = None if allow is None else allowed_paths(directory, allow)
        key = (os.fspath(directory), display, allowed, strict, limits)
        with self._lock:
            kept = self._kept.get(key)
        if kept is not None and kept[0].unchanged():
            with self._lock:
                if key in self._kept:
                    self._kept.move_to_end(key)
            return kept[1]
        watched = _Watched(directory, self._settle_ns)
        vetted = vet_tree(watched, directory, display=display, allow=allowed, strict=strict, limits=limits)
        with self._lock:
            self._kept[key] = (watched, vetted)
            self._kept.move_to_end(key)
            while len(self._kept) > self._size:
                self._kept.popitem(last=False)
        return vetted
