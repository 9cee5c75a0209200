"""`flue-skills ls TARGET`: the skills a wheel, an installed package or a project folder ships.

Everything comes from bundle manifests: read from the wheel's zip or from the installed package, without
running its code (`flue_runtime.mount.distribution`: `wheel_skills`, `shipped`), or planned from a project
folder exactly as its build would (`targets.project_listing`). Nothing is parsed twice and no YAML is
read for a wheel or an installed package. A distribution that declares `[tool.flue] exports` says,
per skill, under which package specs other packages may use it.

A wheel or an installed distribution is input: its manifests are read with their size bounded
before anything is inflated, checked entry by entry (`Manifest.loads`), and what they say is
printed with control characters escaped (`printable`); any failure is one `TargetError` line.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import zipfile
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from flue_build.cli.exits import OK
from flue_build.errors import TargetError, UsageError
from flue_runtime.errors import MountError, SkillError
from flue_runtime.format.config import PYPROJECT
from flue_runtime.format.diagnostics import cut, printable, printable_json
from flue_runtime.format.vetting import format_size
from flue_runtime.mount.distribution import ShippedSkill
from flue_runtime.mount.wheel_install import is_distribution_name

if TYPE_CHECKING:
    from flue_build.cli import AddParser

__all__ = ["format_text", "list_target", "register", "run", "skills_json"]


def register(add_parser: AddParser) -> None:
    parser = add_parser(
        "ls",
        description="List each skill TARGET ships: name, number and size of files, bundle package, description. "
        "TARGET is a .whl file, a project folder (holding a pyproject.toml) or an installed package or distribution name; "
        "a name that is both names what is installed (./NAME names the folder).",
    )
    parser.add_argument(
        "target", metavar="TARGET", help="a .whl file, a project folder, or an installed package or distribution name"
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    notes: list[str] = []
    try:
        skills = list_target(args.target, notes)
    except SkillError as exc:  # a project that would not build: every problem, then the policy's one line
        print(exc.report(), file=sys.stderr)
        raise
    for note in notes:  # raw skill folders of a distribution built without the hook: skipped, or warned about
        print(f"flue-skills ls: warning: {printable(note)}", file=sys.stderr)
    if args.format == "json":
        print(skills_json(skills))
    else:
        width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
        print(format_text(skills, width))
    return OK


def list_target(target: str, notes: list[str] | None = None) -> list[ShippedSkill]:
    """The skills `target` ships: a `.whl` file, a project folder (with pyproject.toml) or an installed package.
    `notes` receives a line for each raw skill folder of an installed distribution skipped (with why) and each
    warning its vetting gave."""
    try:
        return _list(target, [] if notes is None else notes)
    except MountError as exc:  # a manifest or an archive that is not what a build writes
        raise TargetError(str(exc)) from None


def _list(target: str, notes: list[str]) -> list[ShippedSkill]:
    from flue_build.cli.targets import project_listing, shipped_by

    path = Path(target)
    if path.suffix == ".whl":
        if not path.is_file():
            raise UsageError(f"{target}: no such wheel")
        from flue_runtime.mount.distribution import wheel_skills

        return wheel_skills(path)
    project = path.is_dir() and (path / PYPROJECT).is_file()
    if is_distribution_name(target):  # a bare name names what is installed; `./NAME` names the folder
        try:
            found = shipped_by(target, notes)
        except UsageError:
            if not path.exists():
                raise
        except TargetError:
            if not project:
                raise
        else:
            if path.is_dir():
                folder = "a project folder" if project else "a folder"
                notes.append(
                    f"{target}: listed the installed distribution; {folder} of that name is here too: "
                    f"`flue-skills ls ./{target}` lists {'what its build would ship' if project else 'it'}"
                )
            return found.listed() if found.project is None else project_listing(found.project)
    if project:
        return project_listing(path)
    if path.is_dir():
        raise UsageError(
            f"{target}: a folder must be a project (holding a pyproject.toml); give a wheel or a package name otherwise"
        )
    if path.exists():
        raise UsageError(_not_read(target, path))
    raise UsageError(f"{target}: no such wheel, project folder or installed package")


#: Archive suffixes a source distribution has had (PEP 625's `.tar.gz`, and older ones).
_ARCHIVES = (".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar", ".zip")


def _not_read(target: str, path: Path) -> str:
    """What `ls` says of a file it was given that is not a wheel: what the file is, and what to give instead."""
    if path.name.endswith(_ARCHIVES) and _is_sdist(path):
        return (
            f"{target}: a source distribution (sdist), which ls does not read (its skills are packed when a wheel "
            "is built from it); give the wheel built beside it (`python -m build` writes both into dist/) or the "
            "project folder"
        )
    what = "an archive" if path.name.endswith(_ARCHIVES) else "a file"
    return (
        f"{target}: {what}, not a wheel; ls reads a wheel (.whl), a project folder (holding a pyproject.toml) or an "
        "installed package or distribution name"
    )


def _is_sdist(path: Path) -> bool:
    """An archive holding `<name>-<version>/PKG-INFO`, as every sdist does (its top folder's metadata)."""
    import tarfile

    try:
        if path.name.endswith(".zip"):
            with zipfile.ZipFile(path) as archive:
                names = archive.namelist()
        else:
            with tarfile.open(path) as archive:
                names = archive.getnames()
    except (OSError, zipfile.BadZipFile, tarfile.TarError):
        return False
    return any(name.count("/") == 1 and name.endswith("/PKG-INFO") for name in names)


def format_text(skills: list[ShippedSkill], width: int | None = None) -> str:
    """A table; descriptions are cut to `width` columns only when one is given (a terminal's)."""
    if not skills:
        return "no skills"
    rows = [("NAME", "FILES", "SIZE", "PACKAGE", "DESCRIPTION")]
    rows += [
        (printable(s.name), str(s.files), format_size(s.size), printable(s.package), s.description) for s in skills
    ]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    room = max(20, width - sum(widths) - 8) if width else None
    lines = []
    for row in rows:
        description = printable(" ".join(row[4].split()))
        if room is not None:
            description = cut(description, room)
        lines.append(
            f"{row[0]:<{widths[0]}}  {row[1]:>{widths[1]}}  {row[2]:>{widths[2]}}  {row[3]:<{widths[3]}}  {description}".rstrip()
        )
    packages = sorted({s.package for s in skills})
    lines.append(f"{len(skills)} skill{'s' if len(skills) != 1 else ''} in {printable(', '.join(packages))}")
    declared = [s for s in skills if s.exports is not None]
    if declared:
        exported = [f"{printable(spec)} ({printable(s.name)})" for s in declared for spec in s.exports or ()]
        lines.append(
            "exported for other packages: "
            + (", ".join(sorted(exported)) or "none ([tool.flue] exports lists no skill)")
        )
    return "\n".join(lines)


def skills_json(skills: list[ShippedSkill]) -> str:
    """A list of skills; `exports` appears only for a distribution that declares exports."""
    rows = [{k: v for k, v in asdict(s).items() if k != "exports" or v is not None} for s in skills]
    return printable_json(rows)
