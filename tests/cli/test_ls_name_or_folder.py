"""Issue 44 item 10: `flue-skills ls NAME` beside a project folder called NAME. A bare name names an installed
distribution when one is installed (what the user wants after installing the wheel), and the listing says that a
folder of that name is here too and how to list it (`./NAME`, a path); a path names the folder. The installed
distribution is `agent-skills-bundle`, which the test extras install; the folder a fixture project."""

from __future__ import annotations

import contextlib
import io
import shutil
from pathlib import Path

import pytest
from support.paths import PROJECTS

from flue_build.cli import main

NAME = "agent-skills-bundle"


def _ls(target: str, cwd: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["ls", target])
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def beside(tmp_path: Path) -> Path:
    """A folder holding a project folder named like the installed distribution."""
    shutil.copytree(PROJECTS / "hatch-flat", tmp_path / NAME)
    return tmp_path


def test_a_bare_name_lists_the_installed_distribution_and_names_the_folder(beside: Path) -> None:
    status, out, err = _ls(NAME, beside)
    assert status == 0 and "context-audit" in out and "hatch_flat_demo" not in out
    [note] = [line for line in err.splitlines() if "project folder" in line]
    assert f"`flue-skills ls ./{NAME}`" in note, note


@pytest.mark.parametrize("spelled", [f"./{NAME}", f"{NAME}/"])
def test_a_path_lists_the_folder(spelled: str, beside: Path) -> None:
    status, out, err = _ls(spelled, beside)
    assert status == 0 and "hatch_flat_demo" in out and "context-audit" not in out
    assert "project folder" not in err
