"""One build exactly as a user's pip runs it: isolated build environments, our two distributions as wheels
(`local_wheels`, tests/support/wheels.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.builds import build, payload, wheel_files
from support.projects import ProjectFactory

pytestmark = pytest.mark.slow  # real builds, venvs or pip: seconds each


# hatchling's isolated build (sdist, then the wheel from it) is the one tests/test_installation.py runs, with pip and
# with uv, as the getting-started page gives it; setuptools' is here.
@pytest.mark.parametrize(("name", "args"), [("setuptools-src", ("--wheel",))])
def test_isolated_build_installs_our_plugins_like_a_user_would(
    name: str, args: tuple[str, ...], local_wheels: Path, project: ProjectFactory, tmp_path: Path
) -> None:
    tree = project(name)
    links = " ".join(filter(None, [str(local_wheels), os.environ.get("PIP_FIND_LINKS", "")]))
    result = build(tree, *args, outdir=tmp_path / "out", isolated=True, env={"PIP_FIND_LINKS": links})
    assert result.returncode == 0, result.output
    names = payload(wheel_files(result.wheel))
    package = name.replace("-", "_") + "_demo"
    assert f"{package}/_flue_skills/manifest.json" in names
    bundled = sorted(n.rsplit("/", 1)[-1] for n in names if "/_flue_skills/skills/" in n)
    assert bundled == ["SKILL.md", "SKILL.md", "extract.py", "policy.md", "reference.md"]
