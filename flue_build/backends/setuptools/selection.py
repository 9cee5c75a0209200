"""setuptools' own exclusion rules, and the modules its build_py builds.

- `Exclusions`: whether `[tool.setuptools] exclude-package-data` (asked of `build_py`) or a
  `MANIFEST.in` `exclude`/`prune`/`global-exclude`/`recursive-exclude` line (the template run
  by setuptools' own `FileList`) leaves a file out, and which rule.
- `module_sources`: `build_py.find_all_modules()` rows as the modules a build scans.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from flue_build.backends.setuptools import reach_ins
from flue_build.scan.sources import Source, sort_sources

__all__ = ["Exclusions", "MANIFEST_TEMPLATE", "manifest_files", "module_sources"]


MANIFEST_TEMPLATE = "MANIFEST.in"


class Exclusions:
    """Why setuptools' rules leave one of `candidates` (absolute paths) out, or None.

    The MANIFEST.in template is run once, over the candidates, exactly as setuptools runs
    it (its include lines glob the project; only whether a candidate survives matters).
    """

    def __init__(self, root: Path, build_py: Any, candidates: Iterable[Path]) -> None:
        self.root = root
        self.build_py = build_py
        self.packages = sorted(
            ((pkg, build_py.get_package_dir(pkg)) for pkg in build_py.packages or ()),
            key=lambda item: -len(item[1]),
        )
        self.manifest = _manifest_exclusions(root, [os.path.relpath(p, root) for p in candidates])

    def __call__(self, path: str | os.PathLike[str]) -> str | None:
        relative = os.path.relpath(path, self.root)
        return self._package_data(relative) or self.manifest.get(relative)

    def _package_data(self, relative: str) -> str | None:
        """Excluded when every package whose folder holds the file drops it from its package data
        (setuptools ships it as data of any package that keeps it)."""
        spec = self.build_py.exclude_package_data or {}
        matched: list[str] = []
        for package, folder in self.packages:
            if folder and not relative.startswith(os.path.join(folder, "")):
                continue
            with contextlib.chdir(self.root):
                if not reach_ins.excludes_data(self.build_py, package, folder, relative):
                    return None
            patterns = [*spec.get("", []), *spec.get(package, [])]
            matched += [p for p in patterns if fnmatch.fnmatch(relative, os.path.join(folder, p))]
        if not matched:
            return None
        return f"excluded by [tool.setuptools.exclude-package-data] (`{'`, `'.join(dict.fromkeys(matched))}`)"


def _manifest_exclusions(root: Path, candidates: list[str]) -> dict[str, str]:
    """candidate (relative path) → why the sdist's file list leaves it out, for those it does: a
    MANIFEST.in line, or a VCS plugin (`setuptools.file_finders`, e.g. setuptools-scm) that does
    not list it and no MANIFEST.in line adds it back."""
    if not candidates:
        return {}
    wanted = set(candidates)
    tracked = reach_ins.vcs_files(root)
    removed: dict[str, str] = {}
    if tracked is not None:
        for path in wanted - tracked:
            removed[path] = "not listed by the project's VCS file finder (ignored or untracked)"

    def watch(number: int, line: str, before: set[str], after: set[str]) -> None:
        for gone in (before - after) & wanted:
            removed[gone] = f"excluded by {MANIFEST_TEMPLATE} line {number} (`{line}`)"
        for back in (after - before) & wanted:
            removed.pop(back, None)

    manifest_files(root, sorted(wanted if tracked is None else wanted & tracked), watch)
    return removed


def manifest_files(root: Path, files: list[str] | None = None, watch: Any = None) -> list[str]:
    """What the project's MANIFEST.in leaves of `files` (relative paths; by default, what its include lines
    select of the project folder), `watch` seeing each line's effect (`reach_ins.run_template`)."""
    template = root / MANIFEST_TEMPLATE
    files = files or []
    return reach_ins.run_template(root, template, files, watch) if template.is_file() else files


def module_sources(root: Path, modules: Iterable[tuple[str, str, str]]) -> list[Source]:
    """`build_py.find_all_modules()` rows (package, module, file) as sources."""
    named = (
        (package if module == "__init__" else f"{package}.{module}".lstrip("."), file)
        for package, module, file in modules
    )
    return sort_sources(Source(name, Path(os.path.abspath(os.path.join(root, file)))) for name, file in named if name)
