"""Vetting verdicts kept while a folder stays as it was: workspace skills are vetted at every prompt.

`vet_skill` reads, hashes and scans every file of a folder; doing that for every workspace
skill at every prompt cost seconds per prompt at a few thousand skills. `VetCache.vet`
vets a folder through the one walk while recording what the walk saw (each listing, each
entry's `lstat`); a later call lists and `lstat`s those entries again and returns the kept
verdict only when every answer is the same, so it is always the verdict a fresh
`vet_skill` would give. Writing, replacing, renaming or chmod-ing an entry changes its
`lstat` (inode, times, size, links, mode); adding or removing one changes a listing.

An entry changed less than `SETTLE_NS` before the vetting is never trusted (git's "racily
clean" entries): file times come from a coarse clock, so a second write within the same
tick, of the same size, could leave every field of the `lstat` as it was.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from flue_runtime.format.safe_read import FileBytes
from flue_runtime.format.skill_folder import VettedSkill, vet_tree
from flue_runtime.format.trees import DiskTree, Stat

#: How long ago an entry must have changed, when it was vetted, for its `lstat` to be trusted.
SETTLE_NS = 2_000_000_000
#: Folders whose verdicts are kept (the least recently used go first).
CACHE_SIZE = 10_000

T = TypeVar("T")
#: What one look at the tree gave: a sorted listing, a `Stat`, or the errno of the error it raised.
_Outcome = tuple[str, ...] | Stat | int | None


class _Watched:
    """A folder on disk that remembers every answer the walk got from it, to ask the same questions later."""

    def __init__(self, root: Path, settle_ns: int) -> None:
        self._tree = DiskTree(root)
        self._settled = time.time_ns() - settle_ns  # an entry changed after this is too recent to trust
        self._seen: dict[tuple[str, str], _Outcome] = {}

    def _look(self, key: tuple[str, str], look: Callable[[], T]) -> T:
        try:
            found = look()
        except OSError as exc:
            self._seen[key] = exc.errno
            raise
        self._seen[key] = found  # type: ignore[assignment]  # a listing or a Stat, by the key's kind
        return found

    def _listing(self, folder: str) -> tuple[str, ...]:
        return tuple(sorted(self._tree.names(folder)))

    def names(self, folder: str) -> list[str]:
        return list(self._look(("names", folder), lambda: self._listing(folder)))

    def stat(self, path: str) -> Stat:
        return self._look(("stat", path), lambda: self._tree.stat(path))

    def read(self, path: str, *, limit: int, keep: bool) -> FileBytes:
        return self._tree.read(path, limit=limit, keep=keep)

    def link_target(self, path: str) -> str:
        return self._tree.link_target(path)

    def unchanged(self) -> bool:
        """Whether every listing and `lstat` the walk saw would come out the same now (and none was too recent to tell)."""
        for (kind, path), seen in self._seen.items():
            if isinstance(seen, Stat) and seen.stamp[3] >= self._settled:
                return False
            try:
                now: _Outcome = self._listing(path) if kind == "names" else self._tree.stat(path)
            except OSError as exc:
                now = exc.errno
            if now != seen:
                return False
        return True


class VetCache:
    """`vet_skill(directory, display=...)` with the default rules, kept per folder while the folder is unchanged.

    `settle_ns`: how long before the vetting an entry must have last changed to be trusted (`SETTLE_NS`).
    """

    def __init__(self, size: int = CACHE_SIZE, *, settle_ns: int = SETTLE_NS) -> None:
        self._size = size
        self._settle_ns = settle_ns
        self._kept: OrderedDict[tuple[str, str], tuple[_Watched, VettedSkill]] = OrderedDict()
        self._lock = threading.Lock()  # sessions discover workspace skills from worker threads

    def vet(self, directory: Path, *, display: str) -> VettedSkill:
        key = (os.fspath(directory), display)
        with self._lock:
            kept = self._kept.get(key)
        if kept is not None and kept[0].unchanged():
            with self._lock:
                if key in self._kept:
                    self._kept.move_to_end(key)
            return kept[1]
        watched = _Watched(directory, self._settle_ns)
        vetted = vet_tree(watched, directory, display=display)
        with self._lock:
            self._kept[key] = (watched, vetted)
            self._kept.move_to_end(key)
            while len(self._kept) > self._size:
                self._kept.popitem(last=False)
        return vetted
