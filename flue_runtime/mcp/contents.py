"""The files a skills server has read, kept for the next read: each file read from its source once; and `Kept`, the
byte-budget cache that and a host's verified copies of a remote server's files (`Connection.verified`) both are.

A served skill does not change while the server runs: its entry lists every file's size and SHA-256
(computed once per process), and a host refuses any other bytes (SEP-2640, "Integrity and
Verification"). So a file's bytes, once read and found to be the ones the entry lists, answer every
later read of it, and the next `skills/list` or `skills/get` too. They are kept within a byte budget,
the least recently read dropped first, so what the server holds is bounded by the budget, never by
the number of reads; a file larger than the budget is read each time, never kept.

Bytes that are not the listed ones (a folder edited while the server runs) are refused, never
served: the server's listing stays the truth until it restarts.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable

from cachetools import LRUCache

from flue_runtime.errors import SkillVerificationError
from flue_runtime.format.records import PackedFile
from flue_runtime.mcp.entries import file_uri
from flue_runtime.mount.reference import SkillReference

__all__ = ["BUDGET", "Contents", "Kept"]

#: The bytes a server keeps for re-reads: a few thousand skills' SKILL.md and reference pages.
BUDGET = 64 * 1024 * 1024


class Kept:
    """Bytes by key within a byte budget, the least recently read dropped first (cachetools' `LRUCache`, each value
    sized by its length), for any thread; a value larger than the whole budget is never kept."""

    def __init__(self, budget: int = BUDGET) -> None:
        self._cache: LRUCache[Hashable, bytes] = LRUCache(budget, getsizeof=len)
        self._lock = threading.Lock()  # reads run in worker threads

    @property
    def budget(self) -> int:
        return int(self._cache.maxsize)

    @property
    def used(self) -> int:
        return int(self._cache.currsize)

    def get(self, key: Hashable) -> bytes | None:
        """The bytes kept under `key` (now the most recently read), or None: no read, no wait."""
        with self._lock:
            return self._cache.get(key)

    def keep(self, key: Hashable, data: bytes) -> None:
        if len(data) <= self.budget:
            with self._lock:
                self._cache[key] = data

    def clear(self) -> None:
        with self._lock:
            self._cache.clear()


class Contents(Kept):
    """Files read from their skills' sources, by (skill name, path): a skill's name is unique in a server."""

    def kept(self, skill: SkillReference, packed: PackedFile) -> bytes | None:
        """The file's bytes if they are kept (no read, no wait: for the event loop), else None."""
        return self.get((skill.name, packed.path))

    def read(self, skill: SkillReference, packed: PackedFile, uri: str) -> bytes:
        """The bytes of `packed`, one of `skill`'s listed files (served at `uri`), as listed: kept ones, or
        read through the skill's own checked read; `SkillVerificationError` when they are not the listed ones."""
        data = self.kept(skill, packed)
        if data is not None:
            return data
        data = skill.read_bytes(packed.path)
        if not packed.matches(data):
            raise SkillVerificationError(
                file_uri(skill.name),
                uri,
                "changed since this server listed it; restart the server to serve the new version",
            )
        self.keep((skill.name, packed.path), data)
        return data
