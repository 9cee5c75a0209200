"""The three setups of the run-time tests, built for real: wheels by the real backends, real venvs.

- "wheel":    a fresh venv (no pip, no yaml, no jsonschema) with flue-skills and both fixture
              wheels installed by pip from local files;
- "zip":      a fresh venv with flue-skills only; the two fixture wheels are put on sys.path
              as they are (zipimport);
- "editable": a venv that sees the dev environment (build backends, yaml, jsonschema) with
              both fixture projects installed with `pip install -e` (hatchling's .pth,
              setuptools' editable finder); skills are read from the project folders;
- "editable-strict": the same, the setuptools project with `editable_mode=strict` (a link
              tree whose bundle manifest points at the project's skill folders).
Nothing is downloaded: pip runs with --no-index on files built here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PROJECTS = ROOT / "fixtures" / "projects"
PROBE = Path(__file__).resolve().parent / "probe.py"
AGENT, LIB = "runtime-agent", "runtime-lib"
SETUPS = ("wheel", "zip", "editable", "editable-strict")
EPOCH = "1700000000"


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without anything that would leak the test runner's packages into a setup."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_", "VIRTUAL_ENV"))}
    env.update(extra)
    return env


def run(
    command: list[str], *, cwd: Path, env: dict[str, str] | None = None, check: bool = True
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env or clean_env(), timeout=300)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(command)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def copy_project(name: str, dest: Path) -> Path:
    shutil.copytree(PROJECTS / name, dest, ignore=shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__"))
    return dest


def build_wheel(project: Path, outdir: Path) -> Path:
    """`python -m build --wheel` with the test runner's backends (hatchling + hook, setuptools + plugin)."""
    before = set(outdir.glob("*.whl")) if outdir.exists() else set()
    run(
        [sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", str(outdir), str(project)],
        cwd=project,
        env={**os.environ, "SOURCE_DATE_EPOCH": EPOCH},
    )
    [wheel] = set(outdir.glob("*.whl")) - before
    return wheel


def make_venv(path: Path, *, see_dev_env: bool = False) -> Path:
    """A fresh venv without pip; with `see_dev_env`, the test runner's packages are visible through a .pth."""
    run([sys.executable, "-m", "venv", "--without-pip", str(path)], cwd=path.parent)
    python = path / "bin" / "python"
    if see_dev_env:
        purelib = run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=path
        ).stdout.strip()
        dev = sysconfig.get_paths()["purelib"]
        Path(purelib, "_flue_dev_env.pth").write_text(f"import site; site.addsitedir({dev!r})\n")
    return python


def pip(python: Path, *args: str, cwd: Path) -> None:
    """The test runner's pip, installing into `python`'s environment, offline."""
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-index",
            "--no-deps",
            "--no-input",
            "-q",
            *args,
        ],
        cwd=cwd,
    )


@dataclass
class Setup:
    name: str
    python: Path
    workdir: Path
    pythonpath: list[Path] = field(default_factory=list)
    projects: dict[str, Path] = field(default_factory=dict)

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        env = clean_env(PYTHONPATH=os.pathsep.join(map(str, self.pythonpath))) if self.pythonpath else clean_env()
        return run([str(self.python), "-P", *args], cwd=self.workdir, env=env, check=check)

    def code(self, source: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run("-c", source, check=check)

    def probe(self) -> dict[str, Any]:
        result: dict[str, Any] = json.loads(self.run(str(PROBE)).stdout)
        return result


@dataclass
class Builds:
    flue: Path
    agent: Path
    lib: Path
    base: Path


def build_all(base: Path) -> Builds:
    dist = base / "dist"
    sources = base / "sources"
    flue = build_wheel(ROOT, dist)
    agent = build_wheel(copy_project(AGENT, sources / AGENT), dist)
    lib = build_wheel(copy_project(LIB, sources / LIB), dist)
    return Builds(flue, agent, lib, base)


def make_setup(name: str, builds: Builds, base: Path) -> Setup:
    base.mkdir(parents=True)
    work = base / "work"
    work.mkdir()
    if name == "wheel":
        python = make_venv(base / "venv")
        pip(python, str(builds.flue), str(builds.agent), str(builds.lib), cwd=work)
        return Setup(name, python, work)
    if name == "zip":
        python = make_venv(base / "venv")
        pip(python, str(builds.flue), cwd=work)
        return Setup(name, python, work, [builds.agent, builds.lib])
    if name in ("editable", "editable-strict"):
        python = make_venv(base / "venv", see_dev_env=True)
        agent = copy_project(AGENT, base / AGENT)
        lib = copy_project(LIB, base / LIB)
        pip(python, "--no-build-isolation", "-e", str(agent), cwd=work)
        # strict: setuptools links the package into a tree under build/, with a manifest whose entries
        # point back at the project's skill folders (`source`); lenient: an import hook onto the sources.
        strict = ["-C", "editable_mode=strict"] if name == "editable-strict" else []
        pip(python, "--no-build-isolation", *strict, "-e", str(lib), cwd=work)
        return Setup(name, python, work, projects={AGENT: agent, LIB: lib})
    raise ValueError(name)
