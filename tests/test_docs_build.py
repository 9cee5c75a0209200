"""The documentation site builds with `mkdocs build --strict` (as CI builds it), and its API
reference is generated from the docstrings of what `flue_runtime` exports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.optional import need
from support.paths import ROOT

pytestmark = pytest.mark.slow  # mkdocs in a child process, over every page
need("mkdocs", "docs")
need("mkdocstrings", "docs")


def test_the_site_builds_strictly_with_the_public_api(tmp_path: Path) -> None:
    import flue_runtime
    from flue_runtime import errors

    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    api = (site / "reference" / "api" / "runtime" / "index.html").read_text(encoding="utf-8")
    for name in sorted(set(flue_runtime.__all__) - set(errors.__all__)):
        assert f'id="flue_runtime.{name}"' in api, name
    first_line = (flue_runtime.Harness.__doc__ or "").strip().splitlines()[0]
    assert first_line and first_line.split("`")[0] in api
    security = (site / "security" / "index.html").read_text(encoding="utf-8")
    assert "Security model" in security  # SECURITY.md included, not a link to it
