"""TARGET of `flue-skills mcp` and `export`: the skills an installed package ships, an agent mounts, or a folder holds.

- an installed package or distribution: every skill in its bundles, found as `flue-skills ls`
  finds them (so whatever `ls` learns to list, these commands serve: the skills it exports
  with `[tool.flue] exports` among them), read through the package's loader and checked
  against the manifest; for a distribution built without the hook, every skill folder among
  its files, vetted by the build's rules when loaded (one refused is skipped with the reason);
- `module:agent`: the skills the agent mounts when rendered once with empty state (this
  imports the module and calls the agent function, as the harness would);
- a project folder (holding a pyproject.toml): its skills as `check` finds them (`view_project`: the
  skills its code references and every other skill folder its build would ship), each loaded from
  disk as dev mode loads it; one that fails is skipped with the reason;
- a folder: a skill folder, or a folder of skill folders, each vetted by the build's rules
  (`vet_skill`, with the nearest pyproject.toml's `[tool.flue]`); like workspace skills, one
  that fails is skipped with the reason, and the others are served.

`worker_app` is the app each process of `mcp --http --workers N` serves: TARGET resolved there again.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from flue_build.errors import TargetError, UsageError
from flue_runtime.errors import FlueError, MountError, SkillError, SkillNotFoundError, SkillWarning
from flue_runtime.format.config import PYPROJECT
from flue_runtime.format.records import SKILL_FILE
from flue_runtime.mount.disk import load_skill_dir
from flue_runtime.mount.reference import SkillReference
from flue_runtime.mount.wheel_install import is_distribution_name

if TYPE_CHECKING:
    from starlette.types import ASGIApp

    from flue_runtime.mount.distribution import Shipment, ShippedSkill

__all__ = [
    "TargetSkills",
    "agent_code",
    "agent_skills",
    "folder_skills",
    "installed_skills",
    "load_agent",
    "names_agent",
    "project_listing",
    "project_skills",
    "resolve_target",
    "shipped_by",
    "worker_app",
]


_AGENT = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


@dataclass(frozen=True)
class TargetSkills:
    """The skills TARGET names, in a stable order, and the folders skipped on the way (with why)."""

    skills: tuple[SkillReference, ...]
    skipped: tuple[str, ...] = field(default=())


def names_agent(target: str) -> bool:
    """Whether `target` has the form of MODULE:AGENT."""
    return _AGENT.match(target) is not None


def resolve_target(target: str) -> TargetSkills:
    path = Path(target)
    if names_agent(target) and not path.exists():
        return _unique(target, agent_skills(target), ())
    if is_distribution_name(target):
        notes: list[str] = []
        try:
            return _unique(target, installed_skills(target, notes), notes)
        except (TargetError, UsageError):
            if not path.is_dir():
                raise
    if path.is_dir():
        skills, skipped = project_skills(path) if (path / PYPROJECT).is_file() else folder_skills(path)
        return _unique(target, skills, skipped)
    raise UsageError(f"{target}: not an installed package or distribution, a MODULE:AGENT, or a folder of skills")


def installed_skills(name: str, notes: list[str] | None = None) -> list[SkillReference]:
    """Every skill installed package or distribution `name` ships, as `flue-skills ls` lists them (`shipped_by`);
    an editable install without a bundle, read from its project's folders through `vet_skill`, as `skill()` would."""
    found = shipped_by(name, notes if notes is not None else [])
    if found.project is None:
        return found.skills()
    from flue_build.collect import check_project

    folders = {vetted.id: folder for folder, vetted in check_project(found.project).collection.skills.items()}
    skills = []
    for listed in project_listing(found.project):
        if listed.id not in folders:
            raise TargetError(f"{name}: skill {listed.name!r} ({listed.package}) is listed but cannot be loaded")
        skills.append(load_skill_dir(folders[listed.id]))
    return skills


def shipped_by(name: str, notes: list[str]) -> Shipment:
    """What installed package or distribution `name` ships (`flue_runtime.mount.distribution.shipped`), the raw
    folders skipped and the warnings their vetting gave added to `notes`; `UsageError` when nothing
    installed has that name, `TargetError` when it ships no skill or a bundle is not one."""
    from flue_runtime.mount.distribution import shipped

    try:
        found = shipped(name)
    except SkillNotFoundError:
        raise UsageError(
            f"{name!r}: no installed package or distribution of that name (nor a .whl file or project folder)"
        ) from None
    except MountError as exc:
        raise TargetError(str(exc)) from None
    problem = found.nothing()
    if problem is not None:
        raise TargetError(problem)
    notes.extend(found.raw.notes if found.raw is not None else ())
    return found


def project_listing(root: Path) -> list[ShippedSkill]:
    """The skills a wheel build of the project at `root` would bundle, planned without building or running project
    code; `SkillError` when it would not build."""
    from flue_build.pack import plan
    from flue_build.project import view_project
    from flue_runtime.format.diagnostics import has_errors
    from flue_runtime.format.manifest import Manifest
    from flue_runtime.mount.distribution import shipped_skills

    view = view_project(root)
    if has_errors(view.diagnostics):
        raise SkillError(view.diagnostics, f"{root}: the project would not build")
    return shipped_skills(Manifest.loads(bundle.manifest, bundle.manifest_path) for bundle in plan(view.collection))


def agent_skills(spec: str) -> list[SkillReference]:
    """The skills `module:agent` mounts, rendered once with empty state, named as the harness names them (a name
    skills of different origins share resolved per origin, with a `SkillWarning`)."""
    from flue_runtime.agents.hooks import render
    from flue_runtime.mount.origins import per_origin

    function = load_agent(spec)
    with agent_code(spec):
        skills, labelled = per_origin(render(function, {}).skills)
    if labelled is not None:
        warnings.warn(labelled, SkillWarning, stacklevel=2)
    return skills


@contextmanager
def agent_code(spec: str, doing: str = "rendering the agent") -> Iterator[None]:
    """An exception from the agent's own code as one `TargetError` line naming the agent; flue's own errors pass."""
    try:
        yield
    except FlueError:
        raise
    except Exception as exc:
        raise TargetError(f"{spec}: {doing} raised {type(exc).__name__}: {exc}") from exc


def load_agent(spec: str) -> Callable[[], object]:
    """The agent function `module:agent` names, its module imported as `python -m` would find it.

    The one loader of every command that takes MODULE:AGENT (`mcp`, `export`, `prompt`, `run`):
    `UsageError` when `spec` names no agent, `TargetError` when its module raises at import.
    """
    if not names_agent(spec):
        raise UsageError(f"{spec}: name an agent as MODULE:AGENT, like `support.agent:support`")
    module_name, _, attribute = spec.partition(":")
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # as `python -m` would: a module of the current folder is found
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError(f"{spec}: cannot import {module_name!r}: {exc}") from None
    except FlueError:
        raise
    except Exception as exc:  # the module's own code failed at import: one line, no traceback
        raise TargetError(f"{spec}: importing {module_name!r} raised {type(exc).__name__}: {exc}") from exc
    function: object = getattr(module, attribute, None)
    if not callable(function):
        raise UsageError(f"{spec}: module {module_name!r} has no agent function named {attribute!r}")
    return function


def project_skills(root: Path) -> tuple[list[SkillReference], list[str]]:
    """The skills of the project at `root` as `check` finds them, in path order; the ones refused, with why."""
    from flue_build.project import view_project

    view = view_project(root)
    return _loaded(sorted({*view.collection.skills, *view.folders.unreferenced}))


def folder_skills(folder: Path) -> tuple[list[SkillReference], list[str]]:
    """The skill at `folder`, or each skill folder in it (sorted by name); the ones refused, with why."""
    candidates = (
        [folder]
        if (folder / SKILL_FILE).is_file()
        else sorted(child for child in folder.iterdir() if (child / SKILL_FILE).is_file())
    )
    return _loaded(candidates)


def _loaded(candidates: list[Path]) -> tuple[list[SkillReference], list[str]]:
    """Each skill folder loaded from disk by the build's rules; the ones refused, with why."""
    skills: list[SkillReference] = []
    skipped: list[str] = []
    for candidate in candidates:
        try:
            skills.append(load_skill_dir(candidate))
        except SkillError as exc:
            skipped.append(f"{candidate} skipped: {exc}")
    return skills, skipped


def _unique(target: str, skills: list[SkillReference], skipped: tuple[str, ...] | list[str]) -> TargetSkills:
    """One skill per name: the same skill seen twice counts once; two different ones are an error."""
    by_name: dict[str, SkillReference] = {}
    for skill in skills:
        other = by_name.setdefault(skill.name, skill)
        if other != skill:
            raise TargetError(
                f"{target}: two different skills are named {skill.name!r}: {other.origin} and {skill.origin}; "
                "a host addresses a skill by its name: rename one of them"
            )
    if not by_name:
        reasons = "; ".join(skipped)
        raise TargetError(f"{target}: no skills found" + (f" ({reasons})" if reasons else ""))
    return TargetSkills(tuple(by_name.values()), tuple(skipped))


def worker_app() -> ASGIApp:
    """uvicorn's app factory in each process of `flue-skills mcp --http --workers N`: TARGET resolved again from what
    the command was asked (the parent printed its warnings already), served as `http_serving.http_app` serves it."""
    from uvicorn.config import STARTUP_FAILURE

    from flue_runtime.mcp.http_serving import Serving, http_app

    serving = Serving.from_env(os.environ)
    try:
        skills = resolve_target(serving.target).skills
    except FlueError as exc:  # changed since the command resolved it: stop, and the supervisor stops too
        print(f"flue-skills mcp: error: worker {os.getpid()}: {exc}", file=sys.stderr, flush=True)
        raise SystemExit(STARTUP_FAILURE) from None
    return http_app(serving, skills)
