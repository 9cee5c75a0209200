"""Whether a project's build runs flue-skills at all, read from its configuration as data.

A project whose code references skills, built without the hook, gets a wheel without
them: the import fails only after installation. `flue-skills check PROJECT` says so
(FLU501), with exactly what to add:

- hatchling: the hook's table (`[tool.hatch.build.hooks.flue-skills]`, or one per target;
  `hatch.toml` read as hatchling reads it) and `hatch-flue-skills` in
  `[build-system] requires`;
- setuptools (also a project without `build-backend`, which front ends build with
  setuptools): a `[tool.flue]` table and `flue-skills` in `[build-system] requires`;
- any other backend runs no flue-skills hook at all.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from pathlib import Path
from typing import Any

from flue_build.backends.dependency import key_line, requirement_name
from flue_runtime.format.config import PYPROJECT, flue_table
from flue_runtime.format.diagnostics import Diagnostic, diagnostic
from flue_runtime.format.messages import piece

__all__ = [
    "HATCH_REQUIREMENT",
    "HATCH_TARGETS",
    "HOOK",
    "SETUPTOOLS_REQUIREMENT",
    "hook_problems",
    "references_reason",
]


HOOK = "flue-skills"
HATCH_REQUIREMENT = "hatch-flue-skills"
SETUPTOOLS_REQUIREMENT = "flue-skills"
#: The artifacts a hatchling build of a project makes, each of which must run the hook.
HATCH_TARGETS = ("wheel", "sdist")


def references_reason(count: int) -> str:
    """Why a project needs the hook, as FLU501 says it: the references its code makes."""
    return piece("reference" if count == 1 else "references", count=count)


def hook_problems(root: Path, pyproject: dict[str, Any], why: str) -> list[Diagnostic]:
    """FLU501 for each piece of the hook setup `pyproject` lacks; `why` says what needs the hook
    ("3 references to skills")."""
    system = pyproject.get("build-system")
    system = system if isinstance(system, dict) else {}
    backend = system.get("build-backend")
    requires = system.get("requires") if "requires" in system else None
    names = {name for r in requires or [] if isinstance(r, str) and (name := requirement_name(r))}
    place = key_line(root / PYPROJECT, "build-system", "requires")
    if isinstance(backend, str) and backend.split(".", 1)[0] == "hatchling":
        return _hatchling(root, pyproject, names, requires, place, why)
    if backend is None or (isinstance(backend, str) and backend.split(".", 1)[0] == "setuptools"):
        return _setuptools(root, pyproject, names, requires, place, why, backend is None)
    return [_problem("FLU501 backend", why=why, backend=backend)]


def _hatchling(
    root: Path, pyproject: dict[str, Any], names: set[str], requires: Any, place: int | None, why: str
) -> list[Diagnostic]:
    found = []
    hooks = {target: _hatch_hook(root, pyproject, target) for target in HATCH_TARGETS}
    missing = [target for target, table in hooks.items() if table is None or table in _disabled(root, pyproject)]
    outcome = piece("FLU501 no skills" if "wheel" in missing else "FLU501 unvetted")
    misspelled = _misspelled_hooks(root, pyproject) if missing else []
    for table, line in misspelled:
        name, _, hook = table.rpartition(".")
        # hatchling reads `hooks`, and ignores a table under `hook` without a word
        key, hook = ("FLU501 hook table", hook) if name.endswith(".hook") else ("FLU501 hook name", HOOK)
        found.append(_problem(key, line, why=why, table=table, name=name, hook=hook, outcome=outcome))
    disabled = sorted({table for table in hooks.values() if table in _disabled(root, pyproject)})
    for table in disabled if not misspelled else []:
        which = piece("and").join(target for target in HATCH_TARGETS if hooks[target] == table)
        line = key_line(root / PYPROJECT, table, "enable-by-default")
        found.append(_problem("FLU501 disabled", line, why=why, table=table, which=which, outcome=outcome))
    if missing and not misspelled and not disabled:
        which = piece("and").join(missing)
        found.append(_problem("FLU501 no hook", why=why, which=which, outcome=outcome, hook=HOOK))
    if HATCH_REQUIREMENT not in names:
        found.append(_requirement(HATCH_REQUIREMENT, "hatchling", requires, place, why))
    return found


def _setuptools(
    root: Path, pyproject: dict[str, Any], names: set[str], requires: Any, place: int | None, why: str, implicit: bool
) -> list[Diagnostic]:
    if implicit and requires is None:
        return [_problem("FLU501 no build-system", why=why)]
    found = []
    misspelled = _misspelled_flue_tables(pyproject) if flue_table(pyproject) is None else []
    for table in misspelled:
        found.append(_problem("FLU501 table", key_line(root / PYPROJECT, table, None), why=why, table=table))
    if flue_table(pyproject) is None and not misspelled:
        found.append(_problem("FLU501 no table", why=why))
    if SETUPTOOLS_REQUIREMENT not in names:
        found.append(_requirement(SETUPTOOLS_REQUIREMENT, "setuptools", requires, place, why))
    return found


def _misspelled_flue_tables(pyproject: dict[str, Any]) -> list[str]:
    """The `[tool.*]` tables of pyproject.toml that look meant as `[tool.flue]` (`[tool.flue-skills]`,
    `[tool.flue_skills]`, `[tool.Flue]`), which the setuptools plugin does not read."""
    tool = _table(pyproject, "tool")
    return [f"tool.{name}" for name in tool if name != "flue" and re.fullmatch(r"flue([-_.]?skills?)?", name.lower())]


def _hatch_hook(root: Path, pyproject: dict[str, Any], target: str) -> str | None:
    """The hook table hatchling reads for `target` (the target's own replaces the global one), as a pyproject.toml
    table name; None without one (`hatch.toml` beside pyproject.toml replaces `[tool.hatch]`'s top-level keys)."""
    build = _table(_hatch(root, pyproject), "build")
    if HOOK in _table(_table(_table(build, "targets"), target), "hooks"):
        return f"tool.hatch.build.targets.{target}.hooks.{HOOK}"
    return f"tool.hatch.build.hooks.{HOOK}" if HOOK in _table(build, "hooks") else None


def _disabled(root: Path, pyproject: dict[str, Any]) -> set[str]:
    """The hook tables (as `_hatch_hook` names them) that set `enable-by-default = false`: hatchling leaves such a
    hook out of a build unless an environment variable turns it on."""
    build = _table(_hatch(root, pyproject), "build")
    tables = {f"tool.hatch.build.hooks.{HOOK}": _table(_table(build, "hooks"), HOOK)}
    for target in HATCH_TARGETS:
        hooks = _table(_table(_table(build, "targets"), target), "hooks")
        tables[f"tool.hatch.build.targets.{target}.hooks.{HOOK}"] = _table(hooks, HOOK)
    return {name for name, table in tables.items() if table.get("enable-by-default", True) is False}


def _hatch(root: Path, pyproject: dict[str, Any]) -> dict[str, Any]:
    """`[tool.hatch]` as hatchling reads it: `hatch.toml` beside pyproject.toml replaces its top-level keys."""
    hatch = _table(_table(pyproject, "tool"), "hatch")
    try:
        with open(root / "hatch.toml", "rb") as handle:
            return {**hatch, **tomllib.load(handle)}
    except (OSError, tomllib.TOMLDecodeError):
        return hatch  # hatchling reports a broken hatch.toml itself


def _misspelled_hooks(root: Path, pyproject: dict[str, Any]) -> list[tuple[str, int | None]]:
    """Hook tables of pyproject.toml whose name is close to the hook's (`flue_skills`, `flue-skill`), and the hook's
    table under `hook` (singular), which hatchling does not read, with their header lines."""
    build = _table(_table(_table(pyproject, "tool"), "hatch"), "build")
    targets = _table(build, "targets")
    places = [("tool.hatch.build", build)] + [(f"tool.hatch.build.targets.{name}", targets[name]) for name in targets]
    found = []
    for prefix, table in places:
        for name in _table(table, "hooks"):
            if name != HOOK and difflib.get_close_matches(name.lower(), [HOOK], n=1, cutoff=0.75):
                found.append(f"{prefix}.hooks.{name}")
        for name in _table(table, "hook"):
            if difflib.get_close_matches(name.lower(), [HOOK], n=1, cutoff=0.75):
                found.append(f"{prefix}.hook.{name}")
    return [(table, key_line(root / PYPROJECT, table, None)) for table in found]


def _requirement(name: str, backend: str, requires: Any, place: int | None, why: str) -> Diagnostic:
    listed = [r for r in requires if isinstance(r, str)] if isinstance(requires, list) else [backend]
    example = ", ".join(f'"{r}"' for r in [*listed, name])
    outcome = piece("FLU501 hatchling" if backend == "hatchling" else "FLU501 setuptools")
    return _problem("FLU501 requires", place, why=why, name=name, outcome=outcome, example=example)


def _problem(key: str, line: int | None = None, /, **values: str) -> Diagnostic:
    return diagnostic(key, PYPROJECT, line, 1 if line else None, **values)


def _table(data: Any, key: str) -> dict[str, Any]:
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, dict) else {}
