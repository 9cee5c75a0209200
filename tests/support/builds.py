"""Real builds: `python -m build` (no isolation unless asked: this environment's backends and hook),
reproducible (`SOURCE_DATE_EPOCH`), and what the artifacts hold."""

from __future__ import annotations

import os
import sys
import tarfile
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from support import slow
from support.procs import TIMEOUT, run

#: SOURCE_DATE_EPOCH of every build: the same bytes each time.
EPOCH = "1700000000"


def build_env(**extra: str) -> dict[str, str]:
    """This environment with SOURCE_DATE_EPOCH set, and `extra`."""
    return {**os.environ, "SOURCE_DATE_EPOCH": EPOCH, **extra}


@dataclass
class Result:
    """A build: its exit status, its output (stdout then stderr, or merged), where its artifacts went."""

    returncode: int
    output: str
    outdir: Path
    #: TMPDIR of the build, when it was given one.
    tmpdir: Path | None = None

    def artifacts(self, suffix: str) -> list[Path]:
        return sorted(self.outdir.glob(f"*{suffix}")) if self.outdir.exists() else []

    @property
    def wheels(self) -> list[Path]:
        return self.artifacts(".whl")

    @property
    def sdists(self) -> list[Path]:
        return self.artifacts(".tar.gz")

    @property
    def wheel(self) -> Path:
        [wheel] = self.wheels
        return wheel

    @property
    def sdist(self) -> Path:
        [sdist] = self.sdists
        return sdist


def build(
    project: Path,
    *args: str,
    outdir: Path | None = None,
    isolated: bool = False,
    env: dict[str, str] | None = None,
    python: Path | str = sys.executable,
    base_env: Mapping[str, str] | None = None,
    tmpdir: Path | None = None,
    merged: bool = False,
    timeout: float = TIMEOUT,
    preexec_fn: Callable[[], None] | None = None,
) -> Result:
    """`python -m build ARGS` on `project` (by default an sdist, then a wheel from it) into `outdir`
    (`project/dist` by default), by `python` (this one by default), in `base_env` (this environment by
    default) plus `env` and SOURCE_DATE_EPOCH; with `tmpdir`, the build's TMPDIR (made here). Never
    raises on a failed build: the Result says."""
    slow.check("builds a distribution")
    outdir = outdir or project / "dist"
    # Not isolated: this environment has every build requirement, so build's own check of them (two more
    # backend processes per build) is skipped; an isolated build installs them, as a user's does.
    command = [str(python), "-m", "build", *(() if isolated else ("--no-isolation", "--skip-dependency-check")), *args]
    command += ["--outdir", str(outdir), str(project)]
    full_env = {**(os.environ if base_env is None else base_env), "SOURCE_DATE_EPOCH": EPOCH, **(env or {})}
    if tmpdir is not None:
        tmpdir.mkdir(parents=True)
        full_env["TMPDIR"] = str(tmpdir)
    proc = run(command, cwd=project, env=full_env, check=False, merged=merged, timeout=timeout, preexec_fn=preexec_fn)
    return Result(proc.returncode, proc.stdout + (proc.stderr or ""), outdir, tmpdir)


def pip_wheel(
    project: Path,
    *,
    outdir: Path,
    tmpdir: Path | None = None,
    timeout: float = TIMEOUT,
    preexec_fn: Callable[[], None] | None = None,
) -> Result:
    """`pip wheel` of `project` into `outdir`, the way a deployment builds one: straight from the tree,
    without build isolation (this environment's backends and hook) or dependencies, verbose (the
    backend's output is the build's); with `tmpdir`, its TMPDIR (made here). Never raises on a failed build."""
    slow.check("builds a wheel with pip")
    command = [sys.executable, "-m", "pip", "wheel", "-v", "--no-build-isolation", "--no-deps", "--no-cache-dir"]
    command += ["--wheel-dir", str(outdir), str(project)]
    env = build_env(PIP_DISABLE_PIP_VERSION_CHECK="1")
    if tmpdir is not None:
        tmpdir.mkdir(parents=True)
        env["TMPDIR"] = str(tmpdir)
    proc = run(command, cwd=project, env=env, check=False, timeout=timeout, preexec_fn=preexec_fn)
    return Result(proc.returncode, proc.stdout + (proc.stderr or ""), outdir, tmpdir)


def build_wheel(project: Path, outdir: Path) -> Path:
    """`python -m build --wheel` that must succeed: the wheel it made in `outdir` (which may hold others)."""
    before = set(outdir.glob("*.whl")) if outdir.exists() else set()
    result = build(project, "--wheel", outdir=outdir)
    assert result.returncode == 0, result.output
    [wheel] = set(outdir.glob("*.whl")) - before
    return wheel


def wheel_files(wheel: Path) -> dict[str, bytes]:
    """Every file of a wheel by its name, with its bytes."""
    with zipfile.ZipFile(wheel) as archive:
        return {name: archive.read(name) for name in archive.namelist() if not name.endswith("/")}


def sdist_names(sdist: Path) -> set[str]:
    """The files of an sdist, by their path under its top folder."""
    with tarfile.open(sdist) as archive:
        return {m.name.split("/", 1)[1] for m in archive.getmembers() if m.isfile() and "/" in m.name}


def payload(files: dict[str, bytes]) -> set[str]:
    """Wheel entries without the .dist-info metadata."""
    return {name for name in files if ".dist-info/" not in name}


def build_summary(output: str) -> str:
    """The one-line summary a flue-skills build printed last (`flue-skills: ...`); asserts the
    output of the build holds no Python traceback."""
    assert "Traceback" not in output, output[-3000:]
    lines = [line.strip() for line in output.splitlines() if line.strip().startswith("flue-skills: ")]
    assert lines, output[-3000:]
    return lines[-1]
