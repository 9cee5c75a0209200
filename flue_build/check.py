"""`flue-skills check`: what a PATH names (a skill, a SKILL.md, a folder of skills) and every problem in it."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from flue_runtime.diagnostics import Diagnostic, apply_strict
from flue_runtime.skilldir import vet_skill
from flue_runtime.validate import SKILL_FILE, check_skill_file

from .discover import Found, find_skills


@dataclass
class Report:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    checked: int = 0


def display_path(path: Path) -> str:
    """A path as the user would type it: relative to the working directory when inside it."""
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)


def check_paths(paths: list[Path], *, strict: bool = False) -> Report:
    """Check every skill named by `paths`; the caller has made sure each path exists."""
    report = Report()
    for path in paths:
        if path.is_file():
            found = [Found(path, misnamed=path.name != SKILL_FILE)]
        else:
            found = find_skills(path)
            if not found:
                report.diagnostics.extend(
                    apply_strict(
                        [
                            Diagnostic.make(
                                "FLU100",
                                display_path(path),
                                f"no {SKILL_FILE} found in this folder or below it",
                                f"a skill is a folder holding a {SKILL_FILE}; create one with `flue-skills new NAME`",
                            )
                        ],
                        strict,
                    )
                )
        report.diagnostics.extend(_check_found(found, strict))
        report.checked += len(found)
    return report


def _check_found(found: list[Found], strict: bool) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for item in found:
        if item.misnamed:
            out.extend(check_skill_file(item.file, display=display_path(item.file), strict=strict).diagnostics)
        else:
            out.extend(vet_skill(item.file.parent, display=display_path(item.file.parent), strict=strict).diagnostics)
    return out
