"""The first-project tutorial (docs/tutorial.md), followed as written, once per build backend: in an empty folder,
its commands run in order (one terminal: a `cd` lasts), each file it shows is written where its title says, with
our two distributions served as local wheels (`PIP_FIND_LINKS`, as Getting started's Installation sets it), the
real backends building in isolated environments and the wheel installed into a fresh venv. Every output the page
shows is what its command printed (a `...` line stands for lines left out)."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from support.procs import TIMEOUT
from support.tutorial import BACKENDS, matches, steps

PAGE = "tutorial.md"


def test_each_backend_gets_a_complete_pyproject_that_depends_on_flue_skills() -> None:
    """What the slow test below builds: one pyproject.toml per backend, naming the backend, the hook and the
    run-time dependency an installed wheel needs (without it, `import acme_helper` fails elsewhere)."""
    hooks = {"hatchling": ("hatch-flue-skills", "hatch"), "setuptools": ("flue-skills", "flue")}
    for backend in BACKENDS:
        [pyproject] = [step.text for step in steps(PAGE, backend) if step.path == "pyproject.toml"]
        data = tomllib.loads(pyproject)
        requirement, table = hooks[backend]
        assert data["build-system"]["build-backend"].startswith(f"{backend}."), backend
        assert requirement in data["build-system"]["requires"], backend
        assert data["project"]["dependencies"] == ["flue-skills"], backend
        assert table in data["tool"], backend
        if backend == "hatchling":
            assert data["tool"]["hatch"]["build"]["hooks"]["flue-skills"] == {}
        installs = [step.text for step in steps(PAGE, backend) if "pip install flue-skills " in step.text]
        assert len(installs) == 1 and f" {backend} " in installs[0], backend  # check asks the backend


def test_a_shown_output_with_gaps_matches_only_what_it_shows() -> None:
    assert matches("...\nb\nc\n", "a\nx\nb\nc\n")
    assert matches("a\n...\nc\n", "a\nb\nb2\nc\n")
    assert not matches("...\nb\n", "b\nc\n")
    assert not matches("a\nc\n", "a\nb\nc\n")


@pytest.mark.slow  # venvs, pip, isolated builds by the real backends
@pytest.mark.parametrize("backend", BACKENDS)
def test_the_tutorial_runs_as_written(backend: str, local_wheels: Path, tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("VIRTUAL_ENV", "PYTHONPATH"))}
    env["PIP_FIND_LINKS"] = " ".join(filter(None, [str(local_wheels), os.environ.get("PIP_FIND_LINKS", "")]))
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])  # python3: 3.11 or newer
    home = tmp_path / "home"
    home.mkdir()
    cwd, here = home, tmp_path / "cwd"
    ran = shown = 0
    for step in steps(PAGE, backend):
        if step.path:
            (cwd / step.path).write_text(step.text, encoding="utf-8")
            continue
        # One terminal: the next block starts where this one ended.
        script = f'{step.text}\npwd > "{here}"\n'
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=TIMEOUT,
        )
        assert done.returncode == 0, f"$ {step.text}\n{done.stdout}"
        cwd, ran = Path(here.read_text(encoding="utf-8").strip()), ran + 1
        if step.shown is not None:
            assert matches(step.shown, done.stdout), (
                f"$ {step.text}\nthe page shows:\n{step.shown}\nprinted:\n{done.stdout}"
            )
            shown += 1
    assert (ran, shown) == (6, 3)
    assert cwd == home
