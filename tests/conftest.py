from __future__ import annotations

from pathlib import Path

import pytest
from support.paths import FIXTURES


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES
