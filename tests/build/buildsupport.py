"""Helpers for the build tests: fixture projects copied to temporary folders, real builds, wheel inspection."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROJECTS = ROOT / "fixtures" / "projects"
EPOCH = "1700000000"


def copy_project(name: str, dest: Path) -> Path:
    """A fresh copy of `fixtures/projects/<name>` at `dest`, ready to build."""
    shutil.copytree(PROJECTS / name, dest, ignore=shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__"))
    return dest


@dataclass
class Result:
    returncode: int
    output: str
    outdir: Path

    def artifacts(self, suffix: str) -> list[Path]:
        return sorted(self.outdir.glob(f"*{suffix}")) if self.outdir.exists() else []

    @property
    def wheel(self) -> Path:
        [wheel] = self.artifacts(".whl")
        return wheel

    @property
    def sdist(self) -> Path:
        [sdist] = self.artifacts(".tar.gz")
        return sdist


def build(
    project: Path, *args: str, outdir: Path | None = None, isolated: bool = False, env: dict[str, str] | None = None
) -> Result:
    """`python -m build` on `project` (no isolation unless asked): sdist then wheel from it by default."""
    outdir = outdir or project / "dist"
    command = [sys.executable, "-m", "build", *args, "--outdir", str(outdir), str(project)]
    if not isolated:
        command.insert(3, "--no-isolation")
    full_env = {**os.environ, "SOURCE_DATE_EPOCH": EPOCH, **(env or {})}
    proc = subprocess.run(command, capture_output=True, text=True, env=full_env, cwd=project)
    return Result(proc.returncode, proc.stdout + proc.stderr, outdir)


def wheel_files(wheel: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel) as archive:
        return {name: archive.read(name) for name in archive.namelist() if not name.endswith("/")}


def sdist_names(sdist: Path) -> set[str]:
    with tarfile.open(sdist) as archive:
        return {m.name.split("/", 1)[1] for m in archive.getmembers() if m.isfile() and "/" in m.name}


def payload(files: dict[str, bytes]) -> set[str]:
    """Wheel entries without the .dist-info metadata."""
    return {name for name in files if ".dist-info/" not in name}


def make_venv(path: Path) -> Path:
    """A venv that sees the dev environment's packages (pip, build backends, flue) through a .pth.

    Installs go into the new venv; nothing is downloaded. Returns its python.
    """
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    python = path / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    dev = sysconfig.get_paths()["purelib"]
    Path(purelib, "_flue_dev_env.pth").write_text(f"import site; site.addsitedir({dev!r})\n")
    return python


def pip_install_editable(python: Path, project: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--no-build-isolation",
            "--no-deps",
            "--no-input",
            "-e",
            str(project),
            *extra,
        ],
        capture_output=True,
        text=True,
        cwd=project,
    )


def origin(python: Path, module: str) -> Path:
    """Where `module` is found by the venv's python, without importing (executing) it."""
    out = subprocess.run(
        [str(python), "-c", f"import importlib.util; print(importlib.util.find_spec({module!r}).origin)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return Path(out)


class ProjectFactory:
    def __init__(self, base: Path) -> None:
        self.base = base

    def __call__(self, name: str) -> Path:
        target = self.base / name
        if target.exists():
            shutil.rmtree(target)
        return copy_project(name, target)
