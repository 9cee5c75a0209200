"""The three setups of the run-time tests, built for real: wheels by the real backends, real venvs.

- "wheel":    a fresh venv (no pip, no yaml, no jsonschema) with flue-skills and both fixture
              wheels installed from local files (`support.envs.install`), and `packaging`, which reads
              distribution names, copied from this environment (`with_packaging`);
- "zip":      a fresh venv with flue-skills and `packaging` only; the two fixture wheels are put on
              sys.path as they are (zipimport);
- "editable": a venv that sees the dev environment (build backends, yaml, jsonschema) with
              both fixture projects installed in editable mode (hatchling's .pth, setuptools'
              editable finder; by uv, which calls the backends' `build_editable` as pip does:
              `pip install -e` itself is tests/build/test_build_editable.py's); skills are read
              from the project folders;
- "editable-strict": the same, the setuptools project with `editable_mode=strict` (a link
              tree whose bundle manifest points at the project's skill folders).
Nothing is downloaded: every install is offline, of files built here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from support.builds import build_wheel
from support.envs import clean_env, install, make_venv
from support.paths import ROOT
from support.procs import run
from support.projects import copy_project

PROBE = Path(__file__).resolve().parent / "probe.py"
AGENT, LIB = "runtime-agent", "runtime-lib"
SETUPS = ("wheel", "zip", "editable", "editable-strict")


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


def with_packaging(python: Path) -> Path:
    """`python`'s venv with this environment's `packaging` (a dependency of flue-skills, pure Python) copied into
    it, as an install with dependencies would have it: nothing is downloaded."""
    import packaging

    purelib = run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=python.parent)
    shutil.copytree(Path(packaging.__file__).parent, Path(purelib.stdout.strip(), "packaging"))
    return python


def make_setup(name: str, builds: Builds, base: Path) -> Setup:
    base.mkdir(parents=True)
    work = base / "work"
    work.mkdir()
    if name == "wheel":
        python = with_packaging(make_venv(base / "venv", see_dev_env=False))
        install(str(builds.flue), str(builds.agent), str(builds.lib), into=python, cwd=work)
        return Setup(name, python, work)
    if name == "zip":
        python = with_packaging(make_venv(base / "venv", see_dev_env=False))
        install(str(builds.flue), into=python, cwd=work)
        return Setup(name, python, work, [builds.agent, builds.lib])
    if name in ("editable", "editable-strict"):
        python = make_venv(base / "venv")
        agent = copy_project(AGENT, base / AGENT)
        lib = copy_project(LIB, base / LIB)
        install("--no-build-isolation", "-e", str(agent), into=python, cwd=work)
        # strict: setuptools links the package into a tree under build/, with a manifest whose entries
        # point back at the project's skill folders (`source`); lenient: an import hook onto the sources.
        strict = ["-C", "editable_mode=strict"] if name == "editable-strict" else []
        install("--no-build-isolation", *strict, "-e", str(lib), into=python, cwd=work)
        return Setup(name, python, work, projects={AGENT: agent, LIB: lib})
    raise ValueError(name)
