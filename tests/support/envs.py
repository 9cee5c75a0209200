"""Fresh virtual environments, and installs into them; nothing is downloaded."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

from uv import find_uv_bin

from support import slow
from support.procs import run


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without what would leak the test runner's packages or pip settings into a child
    (PYTHON*, PIP_*, VIRTUAL_ENV), plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_", "VIRTUAL_ENV"))}
    env.update(extra)
    return env


def make_venv(path: Path, *, see_dev_env: bool = True) -> Path:
    """A fresh venv at `path`, without pip; returns its python. With `see_dev_env`, it sees this environment's
    packages (pip, the build backends, flue-skills and its dependencies) through a .pth, and what is installed
    into it goes into it. `pip_install` installs into it with this environment's pip, `install` with uv."""
    slow.check("makes a virtual environment")
    command = [sys.executable, "-m", "venv", "--without-pip", str(path)]
    run(command, cwd=path.parent, env=clean_env())
    python = path / "bin" / "python"
    if see_dev_env:
        purelib = run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=path
        ).stdout.strip()
        dev = sysconfig.get_paths()["purelib"]
        Path(purelib, "_flue_dev_env.pth").write_text(f"import site; site.addsitedir({dev!r})\n")
    return python


def pip_install(
    python: Path | str,
    *args: str,
    cwd: Path,
    into: Path | None = None,
    env: dict[str, str] | None = None,
    check: bool = False,
    merged: bool = False,
) -> subprocess.CompletedProcess[str]:
    """`python -m pip install --no-deps --no-input ARGS`: `python`'s own pip (a venv that sees this
    environment has this one's), or, with `into`, `python`'s pip installing into the environment of the
    python `into`. `check`: a failure is an AssertionError; `merged`: stderr in stdout."""
    slow.check("runs pip install")
    target = ["--python", str(into)] if into is not None else []
    command = [str(python), "-m", "pip", *target, "install", "--no-deps", "--no-input", *args]
    return run(command, cwd=cwd, env=env, check=check, merged=merged)


def install(*args: str, cwd: Path, into: Path | None = None, deps: bool = False) -> None:
    """Installs what a test needs but does not test the installing of (built wheels, a local project;
    `--target DIR` among `args`): `uv pip install --no-deps --offline ARGS` for `into`'s environment (this one's
    python with `--target`), about a tenth of pip's cost; with `deps`, their dependencies too, from the package
    index, as a user's install gets them. No cache (a project changed between two installs is built again),
    nothing of this environment's Python, pip or uv settings. A test about pip uses `pip_install`."""
    slow.check("installs packages")
    env = {key: value for key, value in clean_env().items() if not key.startswith("UV_")}
    python = str(into) if into is not None else sys.executable
    command = [find_uv_bin(), "pip", "install", "--python", python, "--no-cache", "-q"]
    run([*command, *(() if deps else ("--no-deps", "--offline")), *args], cwd=cwd, env=env, check=True)


def origin(python: Path, module: str) -> Path:
    """Where `module` is found by the venv's python, without importing (executing) it."""
    out = run(
        [str(python), "-c", f"import importlib.util; print(importlib.util.find_spec({module!r}).origin)"],
        cwd=python.parent,
    ).stdout.strip()
    return Path(out)
