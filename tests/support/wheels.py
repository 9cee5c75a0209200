"""Our two distributions built as wheels once per session (a pytest plugin: tests/conftest.py loads it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import slow
from support.builds import build
from support.paths import ROOT


@pytest.fixture(scope="session")
@slow.builds
def local_wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`flue-skills` and `hatch-flue-skills` built as wheels: what a package index would serve (point
    PIP_FIND_LINKS at the folder, as Getting started's Installation does)."""
    out = tmp_path_factory.mktemp("wheels")
    for source in (ROOT, ROOT / "hatch_plugin"):
        result = build(source, "--wheel", outdir=out)
        assert result.returncode == 0, result.output
    assert sorted(p.name.split("-")[0] for p in out.glob("*.whl")) == ["flue_skills", "hatch_flue_skills"]
    return out
