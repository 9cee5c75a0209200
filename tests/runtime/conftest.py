from __future__ import annotations

import itertools
from pathlib import Path
from typing import Iterator

import pytest

from rtsupport import ImportSandbox

_counter = itertools.count()


@pytest.fixture
def imports() -> Iterator[ImportSandbox]:
    """sys.path entries and imported modules undone after the test; bundle caches cleared."""
    box = ImportSandbox()
    try:
        yield box
    finally:
        box.close()


@pytest.fixture
def pkg_name(tmp_path: Path) -> str:
    """A package name no other test imports (sys.modules is process-wide)."""
    return f"rt_pkg_{next(_counter)}_{abs(hash(tmp_path)) % 10_000}"
