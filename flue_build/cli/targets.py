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

from flue_build.errors import TargetError, UsageError
from flue_runtime.errors import FlueError, SkillError, SkillWarning
from flue_runtime.format.config import PYPROJECT
from flue_runtime.format.records import SKILL_FILE
from flue_runtime.mount.disk import load_skill_dir
from flue_runtime.mount.reference import SkillReference

__all__ = [
    "Target",
    "agent_code",
    "agent_skills",
    "folder_skills",
    "installed_skills",
    "load_agent",
    "project_skills",
    "resolve_target",
]


_AGENT = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass(frozen=True)
class Target:
    """The skills TARGET names, in a stable order, and the folders skipped on the way (with why)."""

    skills: tuple[SkillReference, ...]
    skipped: tuple[str, ...] = field(default=())


def resolve_target(target: str) -> Target:
    path = Path(target)
    if _AGENT.match(target) and not path.exists():
        return _unique(target, agent_skills(target), ())
    if _NAME.match(target):
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
    """Every skill installed package or distribution `name` ships, as `flue-skills ls` lists them.

    From its bundles, read through the package's loader and checked against the manifest; an
    entry recorded with a `source` folder (an editable build), or an editable install without
    a bundle, is read from the project's folder through `vet_skill`, as `skill()` would; a
    distribution built without the hook, from the skill folders among its files, each vetted by
    the build's rules (`flue_runtime.mount.distribution`): one refused is skipped, `notes` says why.
    """
    from flue_build.cli.commands.ls import installed
    from flue_runtime.mount.bundled import bundle_of

    listing, raw = installed(name, notes if notes is not None else [])
    if raw is not None:  # raw skill folders of a distribution built without the hook, vetted as they were listed
        return raw
    found: list[SkillReference] = []
    from_source: dict[str, Path] | None = None
    for listed in listing:
        bundle = bundle_of(listed.package)
        if bundle is not None and listed.id in bundle.manifest.skill_ids():
            source = bundle.skill_entry(listed.id).source
            found.append(bundle.skill(listed.id) if source is None else load_skill_dir(Path(source)))
            continue
        if from_source is None:
            from_source = _editable_skill_folders(name)
        folder = from_source.get(listed.id)
        if folder is None:
            raise TargetError(f"{name}: skill {listed.name!r} ({listed.package}) is listed but cannot be loaded")
        found.append(load_skill_dir(folder))
    return found


def _editable_skill_folders(name: str) -> dict[str, Path]:
    """The skill folders of the project an editable install of `name` points at, by content id."""
    from flue_build.cli.commands.ls import _editable_project
    from flue_build.collect import check_project

    root = _editable_project(name)
    if root is None:
        return {}
    return {vetted.id: folder for folder, vetted in check_project(root).collection.skills.items()}


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
    if not _AGENT.match(spec):
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


def _unique(target: str, skills: list[SkillReference], skipped: tuple[str, ...] | list[str]) -> Target:
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
    return Target(tuple(by_name.values()), tuple(skipped))
