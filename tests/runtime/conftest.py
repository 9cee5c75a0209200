from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rtsetups import SETUPS, Builds, Setup, build_all, make_setup
from support import slow
from support.imports import ImportSandbox

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


@pytest.fixture(scope="session")
@slow.builds
def builds(tmp_path_factory: pytest.TempPathFactory) -> Builds:
    """flue-skills and the two run-time fixture projects, built once per session."""
    return build_all(tmp_path_factory.mktemp("runtime-builds"))


@pytest.fixture(scope="session")
@slow.builds
def setups(builds: Builds, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Setup]:
    base = tmp_path_factory.mktemp("runtime-setups")
    return {name: make_setup(name, builds, base / name) for name in SETUPS}


@pytest.fixture(scope="session")
@slow.builds
def probes(setups: dict[str, Setup]) -> dict[str, dict[str, Any]]:
    return {name: setup.probe() for name, setup in setups.items()}
