"""Python modules of a project: their files, their dotted names, and the bundle package of each.

A build backend knows which modules it ships; it hands them over as `Source`s. The bundle
package of a module is the outermost *regular* package (a folder with `__init__.py`) on
its dotted path: namespace portions are skipped (docs/internals.md).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from flue_build.fswalk import walk_tree
from flue_runtime.format.specs import IDENTIFIER
from flue_runtime.format.vetting import is_noise_dir

__all__ = [
    "INIT",
    "Source",
    "from_distribution_paths",
    "module_name",
    "package_folders",
    "sort_sources",
    "sources_under",
]


INIT = "__init__.py"


@dataclass(frozen=True, order=True)
class Source:
    """A module's dotted name and its absolute `.py` file."""

    module: str
    path: Path

    @property
    def parts(self) -> list[str]:
        return self.module.split(".")

    @property
    def is_init(self) -> bool:
        return self.path.name == INIT

    def package_folder(self, depth: int) -> Path:
        """The folder of the package made of the first `depth` parts of the module name."""
        parts = len(self.parts) if self.is_init else len(self.parts) - 1
        folder = self.path.parent
        for _ in range(parts - depth):
            folder = folder.parent
        return folder

    def bundle_package(self) -> tuple[str, Path] | None:
        """The outermost regular package holding this module (dotted name, folder), or None."""
        parts = self.parts
        limit = len(parts) if self.is_init else len(parts) - 1
        for depth in range(1, limit + 1):
            folder = self.package_folder(depth)
            if (folder / INIT).is_file():
                return ".".join(parts[:depth]), folder
        return None


def sort_sources(sources: Iterable[Source]) -> list[Source]:
    """Unique sources in `Source` order; a key tuple compares in C (the dataclass `__lt__` costs a Python call per comparison)."""
    return sorted(set(sources), key=lambda source: (source.module, source.path))


def module_name(relative: str) -> str | None:
    """`pkg/sub/mod.py` → `pkg.sub.mod`, `pkg/__init__.py` → `pkg`; None when not importable."""
    parts = relative.replace(os.sep, "/").split("/")
    if not parts[-1].endswith(".py"):
        return None
    stem = parts[-1][:-3]
    names = parts[:-1] if stem == "__init__" else [*parts[:-1], stem]
    if not names or not all(IDENTIFIER.match(n) for n in names):
        return None
    return ".".join(names)


def from_distribution_paths(files: Iterable[tuple[Path, str]]) -> list[Source]:
    """Sources from (absolute file, path inside the wheel) pairs, as hatchling lists them."""
    out = []
    for path, dist in files:
        name = module_name(dist)
        if name is not None:
            out.append(Source(name, path))
    return sort_sources(out)


def sources_under(targets: Sequence[Path]) -> list[Source]:
    """Modules under explicit package folders or module files (`[tool.flue] packages`).

    A folder is a top-level package named after itself; its non-importable subfolders
    (a skill folder like `pdf-tools/`) and tool folders are skipped.
    """
    out: list[Source] = []
    for target in targets:
        if target.is_file():
            name = module_name(target.name)
            if name is not None:
                out.append(Source(name, target))
            continue
        base = target.parent
        for folder, dirs, files in walk_tree(target):
            dirs[:] = sorted(d for d in dirs if IDENTIFIER.match(d) and not is_noise_dir(d))
            relative = Path(folder).relative_to(base).as_posix()
            for name in sorted(files):
                if name.endswith(".py"):
                    dotted = module_name(f"{relative}/{name}")
                    if dotted is not None:
                        out.append(Source(dotted, Path(folder, name)))
    return sort_sources(out)


def package_folders(sources: Iterable[Source]) -> dict[str, Path]:
    """Every package (dotted name) the sources live in, mapped to its folder."""
    folders: dict[str, Path] = {}
    for source in sources:
        parts = source.parts
        limit = len(parts) if source.is_init else len(parts) - 1
        for depth in range(1, limit + 1):
            name = ".".join(parts[:depth])
            if name not in folders:  # (setdefault would compute the folder for every module at every depth)
                folders[name] = source.package_folder(depth)
    return folders
