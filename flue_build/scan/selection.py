"""Which modules a build scans: `[tool.flue] packages` when set, otherwise the packages
the project's build backend would put into the wheel, asked of that backend (hatchling's
file selection, setuptools' package discovery) when it is installed here, and a plain
src/flat layout guess when it is not.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from flue_build.scan.sources import INIT, Source, from_distribution_paths, sort_sources, sources_under
from flue_runtime.format.config import FlueConfig

__all__ = ["guess_sources", "hatchling_sources", "project_sources", "setuptools_modules"]


_NOT_PACKAGES = frozenset({"tests", "test", "docs", "doc", "examples", "example", "benchmarks", "scripts", "tools"})


def project_sources(root: Path, pyproject: dict[str, Any], config: FlueConfig) -> list[Source]:
    if config.packages is not None:
        return sources_under(config.packages)
    system = pyproject.get("build-system")
    backend = system.get("build-backend", "") if isinstance(system, dict) else ""
    if isinstance(backend, str) and backend.startswith("hatchling"):
        found = hatchling_sources(root)
    else:
        found = _setuptools_sources(root)
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


def hatchling_sources(root: Path) -> list[Source] | None:
    """The `.py` files hatchling's wheel target selects, with their paths inside the wheel."""
    from flue_build.backends.hatchling.selection import static_builders

    try:
        builder, _ = static_builders(os.fspath(root))
    except ImportError:
        return None
    try:
        files = [(f.path, f.distribution_path) for f in builder.recurse_selected_project_files()]
    except Exception:  # a configuration hatchling itself rejects: fall back to the guess
        return None
    return from_distribution_paths((Path(p), d) for p, d in files if d.endswith(".py"))


def _setuptools_sources(root: Path) -> list[Source] | None:
    """The modules setuptools' build_py would build, from the project's configuration read as
    data: no setup.py, `cmdclass` or `attr:` value is run (`flue_build.backends.setuptools.selection`)."""
    from flue_build.backends.setuptools.selection import find_all_modules, static_distribution

    try:
        dist = static_distribution(root)
        return None if dist is None else setuptools_modules(root, find_all_modules(root, dist))
    except Exception:  # an invalid configuration: setuptools reports it at build time
        return None


def setuptools_modules(root: Path, modules: list[tuple[str, str, str]]) -> list[Source]:
    """`build_py.find_all_modules()` rows (package, module, file) as sources."""
    out = []
    for package, module, filename in modules:
        if module == "__init__":
            dotted = package
        else:
            dotted = f"{package}.{module}" if package else module
        if dotted:
            out.append(Source(dotted, Path(os.path.abspath(os.path.join(root, filename)))))
    return sort_sources(out)
