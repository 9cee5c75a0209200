"""What a build of a project would say, without building it and without running its code.

`flue-skills check PROJECT` and `ls PROJECT`: the references and the skills they name
(`collect.check_project`), with the wheel's exclusion rules applied, and every other skill
folder in what the backend would select for the wheel and the sdist vetted, each asked of
the backend installed here from the configuration read as data (hatchling's builders;
setuptools' finder, `build_py` and `FileList`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flue_build.collect import Collection, ProjectCheck, check_project
from flue_build.shipping import ExcludedBy, SkillFolders, without_excluded
from flue_runtime.format.config import read_pyproject
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
    checked = check_project(root)
    config = checked.config
    excluded_by, files = _backend_rules(root, read_pyproject(root), checked.collection)
    collection = checked.collection
    if excluded_by is not None:
        collection, _ = without_excluded(collection, excluded_by, "wheel", strict=config.strict)
    folders = SkillFolders(collection, config)
    folders.meet(files)
    return ProjectView(checked, collection, folders)


def _backend_rules(
    root: Path, pyproject: dict[str, Any], collection: Collection
) -> tuple[ExcludedBy | None, list[Path]]:
    """The wheel's exclusion rules and every file the wheel and the sdist would select; nothing when
    the backend is not installed here or rejects the configuration (the build reports that)."""
    system = pyproject.get("build-system")
    backend = system.get("build-backend", "") if isinstance(system, dict) else ""
    try:
        if isinstance(backend, str) and backend.startswith("hatchling"):
            return _hatchling(root)
        return _setuptools(root, collection)
    except ImportError:
        return None, []
    except Exception:  # a configuration the backend itself rejects
        return None, []


def _hatchling(root: Path) -> tuple[ExcludedBy | None, list[Path]]:
    from hatchling.builders.sdist import SdistBuilder
    from hatchling.builders.wheel import WheelBuilder

    from flue_build.backends import hatchling_rules

    wheel, sdist = WheelBuilder(os.fspath(root)), SdistBuilder(os.fspath(root))
    placed = [
        *hatchling_rules.walked(wheel),
        *hatchling_rules.configured(wheel, True),
        *hatchling_rules.walked(sdist),
        *hatchling_rules.configured(sdist, False),
    ]
    return hatchling_rules.Exclusions(wheel.config), [item.source for item in placed]


def _setuptools(root: Path, collection: Collection) -> tuple[ExcludedBy | None, list[Path]]:
    from flue_build.backends.setuptools_rules import Exclusions, selected_files, static_distribution

    dist = static_distribution(root)
    if dist is None:
        return None, []
    build_py = dist.get_command_obj("build_py")
    build_py.ensure_finalized()
    candidates = [
        *(folder.joinpath(*f.path.split("/")) for folder, vetted in collection.skills.items() for f in vetted.files),
        *collection.markdown,
    ]
    return Exclusions(root, build_py, candidates), selected_files(root, dist)
