"""benchmarks/integration_tokens.py runs here (the frameworks it compares with may be missing: it says so), and
every flue surface sends the model the same skills' instructions."""

from __future__ import annotations

import subprocess
import sys

import pytest
from support.paths import ROOT

pytestmark = pytest.mark.slow  # real builds, venvs or pip: seconds each


def test_the_token_benchmark_measures_every_flue_surface() -> None:
    run = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "integration_tokens.py"), "--skills", "3"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    rows = {
        line.split(" | ")[0].strip("| "): line.split(" | ") for line in run.stdout.splitlines() if line.startswith("| ")
    }
    flue = [rows[name] for name in rows if name.startswith("flue")]
    assert len(flue) == 5
    assert all(row[1].endswith("(2 tools)") for row in flue)
    assert len({(row[2], row[3]) for row in flue}) == 1  # the same catalog through every surface
    assert set(rows) >= {"pydantic-ai-skills (its own)", "deepagents (its own)"}
