"""What passes the build runs where the wheel is installed: the two everyday mistakes that used to pass
`check` and the build and fail only after installation are refused, and once fixed as the hint says, the
wheel installed into a fresh venv (its dependencies resolved as a user's installer does, flue-skills from a
local wheel) imports and reads its skill.

- FLU502: `flue-skills` missing from `[project] dependencies` (the import failed: no module `flue_runtime`).
- FLU415: `skill("skills/x/SKILL.md")` without `./` while the folder is next to the module (the import
  failed: no importable package `skills`).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from support.builds import build, build_wheel
from support.envs import clean_env, install, make_venv
from support.paths import ROOT
from support.projects import pyproject, write_module, write_skill

pytestmark = pytest.mark.slow  # builds, venvs, installs

USE = "import acme; print(acme.PDF.name, acme.PDF.description)"


@pytest.fixture(scope="module")
def links(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """flue-skills as a wheel: what the package index would serve."""
    folder = tmp_path_factory.mktemp("links")
    build_wheel(ROOT, folder)
    return folder


def project(root: Path, backend: str, spec: str, *, dependency: bool) -> Path:
    root.mkdir()
    text = pyproject(backend, "acme")
    if not dependency:
        text = text.replace('dependencies = ["flue-skills"]\n', "")
    (root / "pyproject.toml").write_text(text)
    write_module(root / "src/acme/__init__.py", f'from flue_runtime import skill\n\nPDF = skill("{spec}")\n')
    write_skill(root / "src/acme/skills/pdf")
    return root


def refused(root: Path, out: Path) -> str:
    """The build's output; it must have failed and left no wheel."""
    result = build(root, "--wheel", outdir=out)
    assert result.returncode != 0 and not result.wheels, result.output
    return result.output


def installed_and_used(root: Path, links: Path, tmp_path: Path) -> str:
    wheel = build_wheel(root, tmp_path / "dist")
    python = make_venv(tmp_path / "venv", see_dev_env=False)
    install(str(wheel), "--find-links", str(links), into=python, cwd=tmp_path, deps=True)
    used = subprocess.run([str(python), "-c", USE], capture_output=True, text=True, env=clean_env(), cwd=tmp_path)
    assert used.returncode == 0, used.stderr
    return used.stdout


@pytest.mark.parametrize("backend", ["hatchling", "setuptools"])
def test_a_missing_runtime_dependency_fails_the_build(backend: str, links: Path, tmp_path: Path) -> None:
    root = project(tmp_path / "acme", backend, "./skills/pdf/SKILL.md", dependency=False)
    output = refused(root, tmp_path / "refused")
    assert re.search(r"^pyproject\.toml:\d+:1: FLU502 error: .*`flue-skills` is not among", output, re.M), output
    hint = re.search(r"add it to \[project\] dependencies in pyproject.toml:\n\s+(dependencies = .*)\n", output)
    assert hint is not None, output
    text = (root / "pyproject.toml").read_text()
    (root / "pyproject.toml").write_text(text.replace("[project]\n", f"[project]\n{hint.group(1)}\n", 1))
    assert installed_and_used(root, links, tmp_path) == "pdf Do pdf things. Use when pdf comes up.\n"


@pytest.mark.parametrize("backend", ["hatchling", "setuptools"])
def test_a_spec_without_dot_slash_fails_the_build(backend: str, links: Path, tmp_path: Path) -> None:
    root = project(tmp_path / "acme", backend, "skills/pdf/SKILL.md", dependency=True)
    output = refused(root, tmp_path / "refused")
    assert "src/acme/__init__.py:3:13: FLU415 error: `skills/pdf/SKILL.md` is read as a package spec" in output
    fixed = re.search(r"did you mean `([^`]+)`", output)
    assert fixed is not None, output
    module = root / "src/acme/__init__.py"
    module.write_text(module.read_text().replace('"skills/pdf/SKILL.md"', f'"{fixed.group(1)}"'))
    assert installed_and_used(root, links, tmp_path) == "pdf Do pdf things. Use when pdf comes up.\n"
