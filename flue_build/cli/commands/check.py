"""`flue-skills check [PATH...]`: what a PATH names (a skill, a SKILL.md, a folder of skills, a project) and every
problem in it, compiler style; exit 1 on errors."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from flue_build.cli.exits import OK, PROBLEMS
from flue_build.errors import UsageError
from flue_build.scan.found import Found, find_skills
from flue_runtime.format.config import PYPROJECT, project_config
from flue_runtime.format.diagnostics import (
    Diagnostic,
    apply_strict,
    diagnostic,
    format_json,
    has_errors,
    printable,
    summary,
)
from flue_runtime.format.messages import piece
from flue_runtime.format.paths import display_path
from flue_runtime.format.records import SKILL_FILE
from flue_runtime.format.safe_read import kind
from flue_runtime.format.skill_folder import vet_skill
from flue_runtime.format.validate import check_skill_file

if TYPE_CHECKING:
    from flue_build.cli import AddParser

__all__ = [
    "ProjectSummary",
    "Report",
    "check_paths",
    "is_project",
    "register",
    "run",
]


def register(add_parser: AddParser) -> None:
    parser = add_parser(
        "check",
        description=(
            "Report every problem in the skills under PATH, compiler style. Exit 1 on errors. "
            "A folder holding a pyproject.toml is checked as a build would: its modules are scanned "
            "for skill() and markdown() references and every referenced skill is vetted."
        ),
    )
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATH", default=[Path(".")], help="default: .")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--strict", action="store_true", help="treat warnings as errors")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    missing = [str(p) for p in args.paths if not p.exists()]
    if missing:
        raise UsageError(f"no such file or directory: {', '.join(missing)}")
    report = check_paths(args.paths, strict=args.strict)
    if args.format == "json":
        print(format_json(report.diagnostics))
    else:
        for project in report.projects:  # what was looked at first, then what was found in it
            named = f" ({printable(project.identity)})" if project.identity else ""
            print(
                f"project {project.root}{named}: scanned {project.modules} module{'' if project.modules == 1 else 's'}, "
                f"found {project.references} reference{'' if project.references == 1 else 's'}"
                + (_DEPENDENCIES_UNKNOWN if project.dependencies_unknown else "")
            )
        for diagnostic in report.diagnostics:
            print(diagnostic.format())
        print(summary(report.diagnostics, report.checked))
    return PROBLEMS if has_errors(report.diagnostics) else OK


_DEPENDENCIES_UNKNOWN = (
    "; its runtime dependencies are computed by its build (dynamic), which checks that they list flue-skills (FLU502)"
)


@dataclass
class ProjectSummary:
    """What `check PROJECT_DIR` looked at: modules scanned, references found, skills vetted."""

    root: Path
    modules: int
    references: int
    skills: int
    #: `name version` from `[project]`, static fields only (a computed version: "version dynamic").
    identity: str | None = None
    #: Only the build can tell whether the runtime dependencies list flue-skills (`ProjectView`).
    dependencies_unknown: bool = False


@dataclass
class Report:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    checked: int = 0
    projects: list[ProjectSummary] = field(default_factory=list)


def is_project(path: Path) -> bool:
    """A folder holding a pyproject.toml is checked as a build would check it."""
    return path.is_dir() and (path / PYPROJECT).is_file()


def check_paths(paths: list[Path], *, strict: bool = False) -> Report:
    """Check every skill named by `paths`; the caller has made sure each path exists.

    A path that holds no skill is an error (FLU100): a folder with no `SKILL.md` anywhere below
    it, a project that references no skill and holds none, a FIFO or device. A path named
    `SKILL.md` is checked with its folder, whatever it is (a folder or a FIFO there is FLU101/FLU307).
    """
    report = Report()
    for path in paths:
        if is_project(path):
            _check_project(path, strict, report)
            continue
        if path.name == SKILL_FILE or path.is_file():
            found = [Found(path, misnamed=path.name != SKILL_FILE)]
        elif path.is_dir():
            found = find_skills(path)
            if not found:
                report.diagnostics.append(diagnostic("FLU100 empty", display_path(path)))
        else:
            found = []
            report.diagnostics.append(diagnostic("FLU100 kind", display_path(path), kind=kind(os.stat(path).st_mode)))
        report.diagnostics.extend(_check_found(found, strict))
        report.checked += len(found)
    return report


def _check_project(path: Path, strict: bool, report: Report) -> None:
    """Scan and collect as a build would, and vet every other skill folder the build would select
    (`ConfigError` propagates: nothing can be checked without config)."""
    from flue_build.project import view_project

    view = view_project(path)
    shown = display_path(path)
    diagnostics = apply_strict(view.diagnostics, strict)
    # Diagnostics are relative to the project; show them relative to where the user stands.
    report.diagnostics.extend(_rebase(d, path) for d in diagnostics)
    report.checked += view.skills
    collection = view.collection
    if not view.skills and not collection.references and not diagnostics:
        scanned = piece("module" if collection.modules == 1 else "modules", count=collection.modules)
        report.diagnostics.append(diagnostic("FLU100 project", display_path(path), modules=scanned))
    report.projects.append(
        ProjectSummary(
            Path(shown),
            collection.modules,
            collection.references,
            view.skills,
            view.identity,
            view.dependencies_unknown,
        )
    )


def _rebase(found: Diagnostic, root: Path) -> Diagnostic:
    if os.path.isabs(found.path):
        return found
    return replace(found, path=Path(display_path(root / found.path)).as_posix())


def _check_found(found: list[Found], strict: bool) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for item in found:
        if item.misnamed:
            out.extend(check_skill_file(item.file, display=display_path(item.file), strict=strict).diagnostics)
        else:
            folder = item.file.parent
            config = project_config(folder)  # the rules the skill's project builds with, as dev mode reads them
            vetted = vet_skill(
                folder,
                display=display_path(folder),
                allow=config.allow_list,
                strict=strict or config.strict,
                limits=config.limits,
            )
            out.extend(vetted.diagnostics)
    return out
