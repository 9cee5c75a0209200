"""`check` where the project's build backend is not installed (Getting Started's `pip install flue-skills
build`, a pre-commit environment): it says so and exits 2, never checking less than the build would.

Run for real: flue-skills installed from its wheel into a fresh venv with its dependencies and nothing
else (no hatchling, no setuptools), then hatchling added, and the verdict compared with the build's.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from support.builds import build, build_wheel
from support.envs import clean_env, install, make_venv
from support.paths import ROOT
from support.projects import pyproject, write_module, write_skill

pytestmark = pytest.mark.slow  # a venv, a wheel of flue-skills, installs from the index


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with flue-skills and its dependencies only: the python."""
    base = tmp_path_factory.mktemp("bare")
    wheel = build_wheel(ROOT, base / "dist")
    python = make_venv(base / "venv", see_dev_env=False)
    install(str(wheel), into=python, cwd=base, deps=True)
    return python


def project(root: Path, backend: str) -> Path:
    """A project whose build refuses it: an unreferenced skill folder holding a `.env` (FLU410, FLU302)."""
    root.mkdir()
    (root / "pyproject.toml").write_text(pyproject(backend, "acme"))
    write_module(
        root / "src/acme/__init__.py", 'from flue_runtime import skill\n\nPDF = skill("./skills/pdf/SKILL.md")\n'
    )
    write_skill(root / "src/acme/skills/pdf")
    write_skill(root / "src/acme/skills/orphan", files={".env": "TOKEN=1\n"})
    return root


def check(python: Path, root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), "-m", "flue_build", "check", str(root)],
        capture_output=True,
        text=True,
        env=clean_env(),
        cwd=root,
        timeout=120,
    )


def importable(python: Path, module: str) -> bool:
    code = f"import importlib.util, sys; sys.exit(importlib.util.find_spec({module!r}) is None)"
    return subprocess.run([str(python), "-c", code], env=clean_env()).returncode == 0


@pytest.mark.parametrize("backend", ["hatchling", "setuptools"])
def test_check_exits_2_when_the_backend_is_not_installed(bare: Path, backend: str, tmp_path: Path) -> None:
    assert not importable(bare, backend)
    root = project(tmp_path / "acme", backend)
    result = check(bare, root)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "checked" not in result.stdout  # no verdict at all, rather than a partial one
    [line] = result.stderr.splitlines()
    assert line.startswith("flue-skills check: error: ")
    assert f"builds with {backend}, which is not installed here" in line
    assert f"pip install {backend}" in line


def test_with_the_backend_installed_check_says_what_the_build_says(bare: Path, tmp_path: Path) -> None:
    root = project(tmp_path / "acme", "hatchling")
    install("hatchling", into=bare, cwd=tmp_path, deps=True)
    result = check(bare, root)
    built = build(root, "--wheel", outdir=tmp_path / "dist")
    assert result.returncode == 1 and built.returncode != 0
    orphan = "src/acme/skills/orphan"
    for line in (f"{orphan}: FLU410 warning", f"{orphan}/.env: FLU302 error"):
        assert line in result.stdout, result.stdout
        assert line in built.output, built.output
