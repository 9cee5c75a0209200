"""`BuildError`: a plain `FlueError`; at the backend boundary (`flue_build.backends.boundary`) what stops a
build ends the hook's process quietly with status 1, the error, with its diagnostics, as the exit's cause."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.projects import ProjectFactory

from flue_build.errors import BuildError
from flue_runtime import FlueError

REFUNDS = "src/hatch_src_demo/skills/refunds"


BOUNDARY = """\
from flue_build.backends.boundary import exits
from flue_build.errors import BuildError

with exits():
    raise BuildError("flue-skills: wheel not built")
"""


def test_at_the_backend_boundary_a_build_error_exits_with_status_1_and_prints_nothing_more() -> None:
    proc = subprocess.run([sys.executable, "-c", BOUNDARY], capture_output=True, text=True)
    assert (proc.returncode, proc.stdout, proc.stderr) == (1, "", "")


def test_it_is_a_flue_error_and_no_exit() -> None:
    error = BuildError("flue-skills: wheel not built: x")
    assert isinstance(error, FlueError) and not isinstance(error, SystemExit)
    assert str(error) == "flue-skills: wheel not built: x"


@pytest.mark.slow
def test_hatchling_in_process_exits_with_it_as_the_cause(
    project: ProjectFactory, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from hatchling.build import build_wheel

    tree = project("hatch-src")
    (tree / REFUNDS / ".env").write_text("TOKEN=x\n")
    monkeypatch.chdir(tree)
    with pytest.raises(SystemExit) as caught:
        build_wheel(os.fspath(tmp_path / "out"))
    error = caught.value.__cause__
    assert caught.value.code == 1 and isinstance(error, BuildError)
    assert [d.code for d in error.diagnostics if d.is_error] == ["FLU302"]
    last = capsys.readouterr().err.splitlines()[-1]
    assert (
        last
        == str(error)
        == f"flue-skills: wheel not built: {REFUNDS}/.env: FLU302 `.env` looks like a secret; refused"
    )
    out = tmp_path / "out"
    assert not out.exists() or not list(out.glob("*.whl"))
