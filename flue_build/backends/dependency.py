"""FLU502: a project whose code calls `skill()`/`markdown()` imports `flue_runtime` wherever its wheel is
installed, so `flue-skills` must be among its runtime dependencies; without it the build passes and the
installed wheel fails with `ModuleNotFoundError: flue_runtime`.

The builds judge the requirements their backend computed (hatchling's core metadata, setuptools'
`install_requires`); `check` reads them as data (`[project] dependencies`, setuptools' `dynamic` file
lists, `setup.cfg`), and says when only running the project's code would tell.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from flue_build.backends.setuptools.static import requirements
from flue_runtime.format.config import PYPROJECT
from flue_runtime.format.diagnostics import Diagnostic, diagnostic
from flue_runtime.format.messages import piece

__all__ = [
    "RUNTIME",
    "key_line",
    "missing_runtime_dependency",
    "normalise",
    "project_name",
    "requirement_name",
    "static_requirements",
]

#: The distribution a referencing project's wheel needs where it is installed.
RUNTIME = "flue-skills"

_HEADER = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(?:#.*)?$")


def normalise(name: str) -> str:
    """A distribution name as installers compare them (PEP 503), through `packaging`."""
    return canonicalize_name(name)


def requirement_name(requirement: str) -> str | None:
    """The normalised distribution name of a requirement string (PEP 508), through `packaging`; None when it is not
    one (the build would refuse it too)."""
    try:
        return canonicalize_name(Requirement(requirement).name)
    except InvalidRequirement:
        return None


def missing_runtime_dependency(
    root: Path, name: str | None, references: int, requirements: Iterable[str]
) -> list[Diagnostic]:
    """FLU502 when the code makes references and `requirements` (the runtime dependencies of project `name`)
    lack flue-skills; flue-skills itself, whose code defines `skill()`, needs no dependency on itself."""
    listed = [str(r) for r in requirements]
    if not references or (name is not None and normalise(name) == RUNTIME):
        return []
    if RUNTIME in {requirement_name(r) for r in listed}:
        return []
    example = ", ".join(f'"{r}"' for r in [*listed, RUNTIME])
    line = key_line(root / PYPROJECT, "project", "dependencies") or key_line(root / PYPROJECT, "project", None)
    made = piece("reference" if references == 1 else "references", count=references)
    return [
        diagnostic("FLU502", PYPROJECT, line, 1 if line else None, references=made, runtime=RUNTIME, example=example)
    ]


def project_name(pyproject: dict[str, Any]) -> str | None:
    project = pyproject.get("project")
    name = project.get("name") if isinstance(project, dict) else None
    return name if isinstance(name, str) else None


def static_requirements(root: Path, pyproject: dict[str, Any]) -> list[str] | None:
    """The runtime requirements as the project's files state them, without running its code; None when
    only the build can tell (a metadata hook, a setup.py)."""
    project = pyproject.get("project")
    if isinstance(project, dict):
        dynamic = project.get("dynamic")
        if not (isinstance(dynamic, list) and "dependencies" in dynamic):
            listed = project.get("dependencies", [])
            return [r for r in listed if isinstance(r, str)] if isinstance(listed, list) else []
    return requirements(root, pyproject)  # setuptools' own: `dynamic` files, setup.cfg, or None


def key_line(path: Path, table: str, key: str | None) -> int | None:
    """The line of `key = ...` in `[table]` of a TOML file, when it is written that way; with no key, the
    table's header line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    pattern = None if key is None else re.compile(rf"^\s*{re.escape(key)}\s*=")
    current = None
    for number, text in enumerate(lines, 1):
        header = _HEADER.match(text)
        if header:
            current = header.group(1)
            if pattern is None and current == table:
                return number
        elif pattern is not None and current == table and pattern.match(text):
            return number
    return None
