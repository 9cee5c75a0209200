"""Which modules a build scans: `[tool.flue] packages` when set, otherwise the packages
the project's build backend would put into the wheel, asked of that backend (hatchling's
file selection, setuptools' package discovery) when it is installed here, and a plain
src/flat layout guess when it is not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flue_build.backends.hatchling.static import sources as hatchling_sources
from flue_build.backends.setuptools.static import sources as setuptools_sources
from flue_build.scan.sources import INIT, Source, sources_under
from flue_runtime.format.config import FlueConfig

__all__ = ["guess_sources", "project_sources"]


_NOT_PACKAGES = frozenset({"tests", "test", "docs", "doc", "examples", "example", "benchmarks", "scripts", "tools"})


def project_sources(root: Path, pyproject: dict[str, Any], config: FlueConfig) -> list[Source]:
    if config.packages is not None:
        return sources_under(config.packages)
    system = pyproject.get("build-system")
    backend = system.get("build-backend", "") if isinstance(system, dict) else ""
    if isinstance(backend, str) and backend.startswith("hatchling"):
        found = hatchling_sources(root)
    else:
        found = setuptools_sources(root, pyproject)
    return found if found is not None else guess_sources(root)


def guess_sources(root: Path) -> list[Source]:
    """Top-level packages under `src/` if it has any, else at the root (tests and docs left out)."""
    for base in (root / "src", root):
        if not base.is_dir():
            continue
        packages = sorted(
            p for p in base.iterdir() if p.is_dir() and (p / INIT).is_file() and p.name not in _NOT_PACKAGES
        )
        if packages:
            return sources_under(packages)
    return []
