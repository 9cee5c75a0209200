"""Modules imported from folders or zips put on sys.path for one test, and forgotten after it."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from flue_runtime.mount import bundled


class ImportSandbox:
    """Puts entries on sys.path and forgets every module imported from them afterwards."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self.before = set(sys.modules)

    def add(self, entry: Path) -> None:
        sys.path.insert(0, str(entry))
        self.paths.append(str(entry))
        importlib.invalidate_caches()

    def _ours(self, module: object) -> bool:
        """Imported from one of our entries (other modules, like a lazily imported yaml, stay)."""
        spec = getattr(module, "__spec__", None)
        places = [getattr(spec, "origin", None) or "", *(getattr(spec, "submodule_search_locations", None) or [])]
        return any(str(place).startswith(entry) for place in places for entry in self.paths)

    def close(self) -> None:
        for entry in self.paths:
            while entry in sys.path:
                sys.path.remove(entry)
            sys.path_importer_cache.pop(entry, None)
        for name in set(sys.modules) - self.before:
            if self._ours(sys.modules[name]):
                del sys.modules[name]
        bundled.clear_caches()
        importlib.invalidate_caches()


@contextmanager
def imported_from(site: Path) -> Iterator[None]:
    """`site` on sys.path while the block runs; the modules imported from it and the bundle caches forgotten after."""
    box = ImportSandbox()
    box.add(site)
    try:
        yield
    finally:
        box.close()
