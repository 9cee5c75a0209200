"""The integrations' fixture, built and installed for real: `fixtures/projects/integrations-demo` as a wheel
built by hatchling with the hook, installed by pip into a folder of its own, imported from there."""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from flue_runtime.mount import bundled

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ROOT / "fixtures" / "projects" / "integrations-demo"
PACKAGE = "skills_demo"
EPOCH = "1700000000"


@dataclass(frozen=True)
class Installed:
    """The built wheel and the folder pip installed it into (a site directory of its own)."""

    wheel: Path
    site: Path

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of a child process that imports the installed package (and this checkout's code)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
        env["PYTHONPATH"] = str(self.site)
        env.update(extra)
        return env


def run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env, timeout=300)
    if proc.returncode != 0:
        raise AssertionError(f"{' '.join(command)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def build_and_install(base: Path) -> Installed:
    """Build the fixture's wheel (hatchling + the flue-skills hook) and `pip install --target` it, offline."""
    source = base / "source"
    shutil.copytree(PROJECT, source, ignore=shutil.ignore_patterns("build", "dist", "__pycache__"))
    dist = base / "dist"
    run(
        [sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", str(dist), str(source)],
        cwd=source,
        env={**os.environ, "SOURCE_DATE_EPOCH": EPOCH},
    )
    [wheel] = dist.glob("*.whl")
    site = base / "site"
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-index",
            "--no-deps",
            "--no-input",
            "-q",
            "--target",
            str(site),
            str(wheel),
        ],
        cwd=base,
    )
    return Installed(wheel, site)


@contextmanager
def imported_from(site: Path) -> Iterator[None]:
    """`site` on sys.path while the block runs; the modules imported from it and the bundle caches forgotten after."""
    before = set(sys.modules)
    sys.path.insert(0, str(site))
    importlib.invalidate_caches()
    try:
        yield
    finally:
        sys.path.remove(str(site))
        sys.path_importer_cache.pop(str(site), None)
        for name in set(sys.modules) - before:
            origin = getattr(getattr(sys.modules[name], "__spec__", None), "origin", None) or ""
            if origin.startswith(str(site)):
                del sys.modules[name]
        bundled.clear_caches()
        importlib.invalidate_caches()
