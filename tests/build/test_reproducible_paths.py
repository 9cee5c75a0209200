"""Reproducible wheels across checkouts: the same project checked out at two different paths (other
folder names, other depths, a space in one) builds byte-identical wheels, with either backend."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.builds import build, wheel_files
from support.projects import copy_project

pytestmark = pytest.mark.slow  # real builds, venvs or pip: seconds each


@pytest.mark.parametrize("args", [("--wheel",), ()], ids=["wheel", "via-sdist"])
@pytest.mark.parametrize("name", ["hatch-src", "setuptools-src"])
def test_two_checkouts_at_different_paths_build_byte_identical_wheels(
    name: str, args: tuple[str, ...], tmp_path: Path
) -> None:
    first = copy_project(name, tmp_path / "ci" / name)
    second = copy_project(name, tmp_path / "home" / "someone else" / "src" / "checkout-2")
    one = build(first, *args, outdir=tmp_path / "out-1")
    two = build(second, *args, outdir=tmp_path / "out-2")
    assert one.returncode == 0, one.output
    assert two.returncode == 0, two.output
    assert one.wheel.name == two.wheel.name
    files = wheel_files(one.wheel)
    assert any("/_flue_skills/manifest.json" in n for n in files)  # the bundle is there to compare
    assert not [n for n, data in files.items() if str(tmp_path).encode() in data]  # no build path leaks in
    assert files == wheel_files(two.wheel)
    assert one.wheel.read_bytes() == two.wheel.read_bytes()
