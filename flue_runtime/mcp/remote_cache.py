"""What a host read from a remote Skills server and verified, kept for the next read (SEP-2640: hosts SHOULD cache
verified content): in this process's memory only, by URI and digest, within a byte budget."""

from __future__ import annotations

import threading
from collections import OrderedDict

from flue_runtime.mcp.contents import BUDGET

__all__ = ["Verified"]


class Verified:
    """Files read from the server and verified against their entries, by URI and digest, within a byte budget
    (the least recently read dropped first): a file whose entry lists the same digest is not read again. Kept in
    this process's memory only: nothing but the host can change them."""

    def __init__(self, budget: int = BUDGET) -> None:
        self.budget = budget
        self.used = 0
        self._kept: OrderedDict[tuple[str, str], bytes] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, uri: str, sha256: str | None) -> bytes | None:
        if sha256 is None:
            return None
        with self._lock:
            data = self._kept.get((uri, sha256))
            if data is not None:
                self._kept.move_to_end((uri, sha256))
            return data

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()
            self.used = 0

    def keep(self, uri: str, sha256: str, data: bytes) -> None:
        if len(data) > self.budget:
            return
        with self._lock:
            if (uri, sha256) in self._kept:
                return
            self._kept[(uri, sha256)] = data
            self.used += len(data)
            while self.used > self.budget:
                _, dropped = self._kept.popitem(last=False)
                self.used -= len(dropped)
