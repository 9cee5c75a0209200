"""`BuildError`: what stops a build ends the hook's process quietly with status 1 (a `SystemExit`),
and code that runs a backend in its own process catches it as a `FlueError`."""

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


def test_a_build_error_exits_with_status_1_and_prints_nothing_more() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "from flue_build.errors import BuildError; raise BuildError('flue-skills: wheel not built')",
        ],
        capture_output=True,
        text=True,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (1, "", "")


def test_it_is_a_flue_error_and_a_system_exit() -> None:
    error = BuildError("flue-skills: wheel not built: x")
    assert isinstance(error, FlueError) and isinstance(error, SystemExit)
    assert error.code == 1 and str(error) == "flue-skills: wheel not built: x"


@pytest.mark.slow
def test_hatchling_in_process_raises_it_with_the_diagnostics(
    project: ProjectFactory, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from hatchling.build import build_wheel

    tree = project("hatch-src")
    (tree / REFUNDS / ".env").write_text("TOKEN=x\n")
    monkeypatch.chdir(tree)
    with pytest.raises(FlueError) as caught:
        build_wheel(os.fspath(tmp_path / "out"))
    assert isinstance(caught.value, BuildError)
    assert [d.code for d in caught.value.diagnostics if d.is_error] == ["FLU302"]
    last = capsys.readouterr().err.splitlines()[-1]
    assert (
        last
        == str(caught.value)
        == f"flue-skills: wheel not built: {REFUNDS}/.env: FLU302 `.env` looks like a secret; refused"
    )
    out = tmp_path / "out"
    assert not out.exists() or not list(out.glob("*.whl"))
