"""Session-wide builds of the fixture projects: built once, inspected by many tests."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest
from support import slow
from support.builds import Result, build
from support.projects import ProjectFactory, copy_project


@pytest.fixture(scope="session")
@slow.builds
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Result]]:
    """Each good fixture project built the pypa/build way: an sdist, then a wheel from that sdist."""
    out: dict[str, tuple[Path, Result]] = {}
    for name in ("hatch-src", "hatch-flat", "setuptools-src", "hatch-none"):
        project = copy_project(name, tmp_path_factory.mktemp("built") / name)
        result = build(project)
        assert result.returncode == 0, result.output
        out[name] = (project, result)
    return out


@pytest.fixture(scope="session")
def from_sdist(built: dict[str, tuple[Path, Result]], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each sdist unpacked: its wheel was built from these files, so bytes are compared against them."""
    out: dict[str, Path] = {}
    for name, (_, result) in built.items():
        target = tmp_path_factory.mktemp("unpacked")
        with tarfile.open(result.sdist) as archive:
            archive.extractall(target, filter="data")
        [folder] = list(target.iterdir())
        out[name] = folder
    return out


@pytest.fixture
def project(tmp_path: Path) -> ProjectFactory:
    return ProjectFactory(tmp_path)
