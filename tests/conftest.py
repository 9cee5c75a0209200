from __future__ import annotations

from pathlib import Path

import pytest
from support.paths import FIXTURES

#: Session and module fixtures that build wheels, make venvs or run pip for real: a test that uses
#: one is `slow` (`pytest -m "not slow"` leaves it out). Tests that build by themselves carry the mark.
REAL_BUILDS = frozenset(
    {
        # tests/build
        "built",
        "from_sdist",
        "local_wheels",
        "producer",
        # tests/runtime
        "builds",
        "setups",
        "probes",
        # tests/integrations
        "installed",
        "demo",
        "raw_installed",
        # tests/hostile
        "hostile",
        "hostile_builds",
        "checked",
        "dev_mode",
        "leak_base",
        # tests/harness/test_scripts.py
        "wheel",
    }
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if REAL_BUILDS.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES
