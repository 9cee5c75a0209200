"""What a build of a project would say, without building it and without running its code.

`flue-skills check PROJECT` and `ls PROJECT`: the references and the skills they name
(`collect.check_project`), with the wheel's exclusion rules applied, and every other skill
folder in what the backend would select for the wheel and the sdist vetted, each asked of
the backend installed here from the configuration read as data (hatchling's builders;
setuptools' finder, `build_py` and `FileList`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flue_build.backends.dependency import missing_runtime_dependency, project_name, static_requirements
from flue_build.backends.hatchling import static as hatchling
from flue_build.backends.hook_setup import hook_problems, references_reason
from flue_build.backends.setuptools import static as setuptools
from flue_build.backends.view import BackendView
from flue_build.collect import Collection, ProjectCheck, collect
from flue_build.errors import BackendNotInstalledError
from flue_build.pack import sdist_files
from flue_build.scan.selection import project_sources
from flue_build.shipping import SkillFolders, without_excluded
from flue_runtime.format.config import PYPROJECT, load_config, read_pyproject
from flue_runtime.format.diagnostics import Diagnostic, diagnostic
from flue_runtime.format.messages import piece
from flue_runtime.format.paths import display_path

__all__ = ["ProjectView", "identity", "view_project"]


@dataclass
class ProjectView:
    checked: ProjectCheck
    #: The referenced skills as the wheel would bundle them (the project's exclusions applied).
    collection: Collection
    folders: SkillFolders
    #: FLU501: what the project's build configuration lacks to run flue-skills.
    setup: list[Diagnostic] = field(default_factory=list)
    #: `name version` as `[project]` writes them (`identity`), None without a name.
    identity: str | None = None
    #: The runtime dependencies are computed by the build (a metadata hook, a setup.py): only the build can
    #: tell whether they include flue-skills (FLU502).
    dependencies_unknown: bool = False

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return [*self.setup, *self.collection.diagnostics, *self.folders.diagnostics]

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
    if backend.excluded_by is not None:
        excluded_by = backend.excluded_by(sdist_files(collection))  # every vetted file it will be asked about
        collection, _ = without_excluded(collection, excluded_by, "wheel", strict=config.strict)
    folders = SkillFolders(collection, config)
    folders.meet(backend.files)
    if backend.sdist_walk is not None:
        vetted = {*collection.skills, *folders.unreferenced}
        if any(folders.folder_of(path) not in vetted for path in backend.skill_files):
            folders.meet(backend.sdist_walk())
    setup = _setup(root, pyproject, checked.collection, folders)
    if backend.rejected is not None:
        setup.append(diagnostic("FLU503", PYPROJECT, backend=_backend_name(pyproject), why=backend.rejected))
    requirements = static_requirements(root, pyproject)
    if requirements is not None:
        setup += missing_runtime_dependency(root, project_name(pyproject), checked.collection.references, requirements)
    unknown = requirements is None and checked.collection.references > 0
    return ProjectView(checked, collection, folders, setup, identity(pyproject), unknown)


def identity(pyproject: dict[str, Any]) -> str | None:
    """`name version` from `[project]` as written, static fields only: a version the build computes
    (`dynamic`) is said to be dynamic, since knowing it would take running the project's code."""
    table = pyproject.get("project")
    name = table.get("name") if isinstance(table, dict) else None
    if not isinstance(name, str) or not name:
        return None
    assert isinstance(table, dict)
    dynamic = table.get("dynamic")
    version = table.get("version")
    if isinstance(dynamic, list) and "version" in dynamic:
        return f"{name}, version dynamic"
    return f"{name} {version}" if isinstance(version, str) else name


def _setup(root: Path, pyproject: dict[str, Any], collection: Collection, folders: SkillFolders) -> list[Diagnostic]:
    """FLU501 when the project needs flue-skills at build time (references, or skill folders its
    build would ship) and its configuration does not run it."""
    reasons = []
    if collection.references:
        reasons.append(references_reason(collection.references))
    unreferenced = len(folders.unreferenced)
    if unreferenced:
        reasons.append(piece("folder" if unreferenced == 1 else "folders", count=unreferenced))
    return hook_problems(root, pyproject, piece("and").join(reasons)) if reasons else []


def _backend(root: Path, pyproject: dict[str, Any]) -> BackendView:
    """What the project's backend says, asked of the backend installed here.

    Raises `BackendNotInstalledError` when it is not installed: what the build selects (the skill folders
    it would vet, its exclusions) is the backend's to say, and checking without it would pass what the
    build refuses. A configuration the backend rejects is FLU503, as its build would fail."""
    name = _backend_name(pyproject)
    try:
        return hatchling.view(root) if name == "hatchling" else setuptools.view(root, pyproject)
    except ImportError as exc:
        if exc.name is None or exc.name.split(".")[0] not in (name, "setuptools"):
            raise
        if name not in _BACKENDS:
            return BackendView()  # a backend flue-skills has no hook for: FLU501 says so
        name = exc.name.split(".")[0]
        raise BackendNotInstalledError(display_path(root), name, str(exc)) from exc
    except Exception as exc:  # a configuration the backend itself rejects: its build fails the same way
        first = str(exc).strip().split("\n", 1)[0]  # hatchling's messages go on with examples
        return BackendView(rejected=f"{type(exc).__name__}: {first}")


#: The backends flue-skills hooks into, by their top-level module.
_BACKENDS = ("hatchling", "setuptools")


def _backend_name(pyproject: dict[str, Any]) -> str:
    """The backend's top-level module (`setuptools` for a project that names none, as front ends build it)."""
    system = pyproject.get("build-system")
    name = system.get("build-backend") if isinstance(system, dict) else None
    return name.split(".", 1)[0].split(":", 1)[0] if isinstance(name, str) and name else "setuptools"
