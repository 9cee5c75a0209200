from __future__ import annotations

from pathlib import Path

import pytest
from support.paths import FIXTURES

# `support.slow`: `slow` marked next to what builds, and checked; `support.noskip`: no skip in CI;
# `pytester` for the tests of both; `support.wheels`: our wheels, built once for the tests that install them.
pytest_plugins = ("pytester", "support.slow", "support.noskip", "support.wheels")


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES
