"""What a build of a project would say, without building it and without running its code.

`flue-skills check PROJECT` and `ls PROJECT`: the references and the skills they name
(`collect.check_project`), with the wheel's exclusion rules applied, and every other skill
folder in what the backend would select for the wheel and the sdist vetted, each asked of
the backend installed here from the configuration read as data (hatchling's builders;
setuptools' finder, `build_py` and `FileList`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flue_build.collect import Collection, ProjectCheck, collect
from flue_build.scan.selection import project_sources
from flue_build.scan.sources import Source, from_distribution_paths
from flue_build.shipping import ExcludedBy, SkillFolders, without_excluded
from flue_runtime.format.config import load_config, read_pyproject
from flue_runtime.format.diagnostics import Diagnostic


@dataclass
class ProjectView:
    checked: ProjectCheck
    #: The referenced skills as the wheel would bundle them (the project's exclusions applied).
    collection: Collection
    folders: SkillFolders

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return [*self.collection.diagnostics, *self.folders.diagnostics]

    @property
    def skills(self) -> int:
        """Skill folders vetted: referenced or not."""
        return len(self.collection.skills) + len(self.folders.unreferenced)


def view_project(root: Path) -> ProjectView:
    """Raises `ConfigError` on bad `[tool.flue]` configuration."""
    root = Path(os.path.abspath(root))
    pyproject = read_pyproject(root)
    config = load_config(root, pyproject)
    backend = _backend(root, pyproject)
    if config.packages is None and backend.wheel_sources is not None:
        sources = backend.wheel_sources  # the wheel's walk, already made: scanned as the build scans it
    else:
        sources = project_sources(root, pyproject, config)
    checked = ProjectCheck(config, sources, collect(config, sources))
    collection = checked.collection
    if backend.excluded_by is None:
        folders = SkillFolders(collection, config)
    else:
        collection, _ = without_excluded(collection, backend.excluded_by(collection), "wheel", strict=config.strict)
        folders = SkillFolders(collection, config)
    folders.meet(backend.files)
    return ProjectView(checked, collection, folders)


@dataclass
class _Backend:
    """What the backend installed here says of the project: `excluded_by` builds the wheel's exclusion
    rules for a collection; `files`: what the wheel and the sdist would select; `wheel_sources`:
    the modules of the wheel's walk (hatchling), when known."""

    excluded_by: Callable[[Collection], ExcludedBy] | None = None
    files: list[Path] = field(default_factory=list)
    wheel_sources: list[Source] | None = None


def _backend(root: Path, pyproject: dict[str, Any]) -> _Backend:
    """Nothing when the backend is not installed here or rejects the configuration (its build reports that)."""
    system = pyproject.get("build-system")
    name = system.get("build-backend", "") if isinstance(system, dict) else ""
    try:
        if isinstance(name, str) and name.startswith("hatchling"):
            return _hatchling(root)
        return _setuptools(root)
    except ImportError:
        return _Backend()
    except Exception:  # a configuration the backend itself rejects
        return _Backend()


def _hatchling(root: Path) -> _Backend:
    from hatchling.builders.sdist import SdistBuilder
    from hatchling.builders.wheel import WheelBuilder

    from flue_build.backends import hatchling_rules

    wheel, sdist = WheelBuilder(os.fspath(root)), SdistBuilder(os.fspath(root))
    walked = hatchling_rules.walked(wheel)
    placed = [
        *walked,
        *hatchling_rules.configured(wheel, True),
        *hatchling_rules.walked(sdist),
        *hatchling_rules.configured(sdist, False),
    ]
    exclusions = hatchling_rules.Exclusions(wheel.config)
    sources = from_distribution_paths((item.source, item.archive) for item in walked if item.archive.endswith(".py"))
    return _Backend(lambda _: exclusions, [item.source for item in placed], sources)


def _setuptools(root: Path) -> _Backend:
    from flue_build.backends.setuptools_rules import Exclusions, selected_files, static_distribution

    dist = static_distribution(root)
    if dist is None:
        return _Backend()
    build_py = dist.get_command_obj("build_py")
    build_py.ensure_finalized()

    def excluded_by(collection: Collection) -> ExcludedBy:
        candidates = [
            *(
                folder.joinpath(*f.path.split("/"))
                for folder, vetted in collection.skills.items()
                for f in vetted.files
            ),
            *collection.markdown,
        ]
        return Exclusions(root, build_py, candidates)

    return _Backend(excluded_by, selected_files(root, dist))
