"""`flue-skills ls TARGET`: the skills a wheel, an installed package or a project folder ships.

Everything comes from bundle manifests: read from the wheel's zip, from the installed
package (without running its code), or planned from a project folder exactly as its
build would (scan, collect, plan). Nothing is parsed twice and no YAML is read for a
wheel or an installed package. A distribution that declares `[tool.flue] exports` says,
per skill, under which package specs other packages may use it.

A wheel or an installed distribution is input: its manifests are read with their size bounded
before anything is inflated, checked entry by entry (`Manifest.loads`), and what they say is
printed with control characters escaped (`printable`); any failure is one `TargetError` line.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from flue_build.cli.exits import OK
from flue_build.errors import TargetError, UsageError
from flue_runtime.errors import MountError, SkillError, UnsafeFileError
from flue_runtime.format.config import PYPROJECT
from flue_runtime.format.diagnostics import printable, printable_json
from flue_runtime.format.manifest import BUNDLE_DIR, MANIFEST_FILE, MANIFEST_LIMIT, Manifest
from flue_runtime.format.vetting import format_size

if TYPE_CHECKING:
    from flue_build.cli import AddParser
    from flue_runtime.mount.reference import SkillReference

__all__ = [
    "ListedSkill",
    "format_json",
    "format_text",
    "from_installed",
    "from_manifests",
    "from_project",
    "from_wheel",
    "installed",
    "list_target",
    "register",
    "run",
]


_SUFFIX = f"/{BUNDLE_DIR}/{MANIFEST_FILE}"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def register(add_parser: AddParser) -> None:
    parser = add_parser(
        "ls",
        help="list the skills a wheel, an installed package or a project ships",
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
        print(format_json(skills))
    else:
        width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
        print(format_text(skills, width))
    return OK


@dataclass(frozen=True)
class ListedSkill:
    package: str
    name: str
    description: str
    files: int
    size: int
    id: str
    #: The package specs other packages may use for this skill; None when its distribution
    #: declares no exports (then any spec into its packages resolves).
    exports: tuple[str, ...] | None = None


def list_target(target: str, notes: list[str] | None = None) -> list[ListedSkill]:
    """The skills `target` ships: a `.whl` file, a project folder (with pyproject.toml) or an installed package.
    `notes` receives a line for each raw skill folder of an installed distribution skipped (with why) and each
    warning its vetting gave."""
    try:
        return _list(target, [] if notes is None else notes)
    except MountError as exc:  # a manifest or an archive that is not what a build writes
        raise TargetError(str(exc)) from None


def _list(target: str, notes: list[str]) -> list[ListedSkill]:
    path = Path(target)
    if path.suffix == ".whl":
        if not path.is_file():
            raise UsageError(f"{target}: no such wheel")
        return from_wheel(path)
    project = path.is_dir() and (path / PYPROJECT).is_file()
    if _NAME.match(target):  # a bare name names what is installed; `./NAME` names the folder
        try:
            listed, _ = installed(target, notes)
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
            return listed
    if project:
        return from_project(path)
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
    reads = (
        "ls reads a wheel (.whl), a project folder (holding a pyproject.toml) or an installed package or "
        "distribution name"
    )
    if path.name.endswith(_ARCHIVES) and _is_sdist(path):
        return (
            f"{target}: a source distribution (sdist), which ls does not read (its skills are packed when a wheel "
            "is built from it); give the wheel built beside it (`python -m build` writes both into dist/) or the "
            "project folder"
        )
    what = "an archive" if path.name.endswith(_ARCHIVES) else "a file"
    return f"{target}: {what}, not a wheel; {reads}"


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


def from_manifests(manifests: list[Manifest]) -> list[ListedSkill]:
    out = []
    for manifest in manifests:
        exported = _exported(manifest)
        for id in manifest.skill_ids():
            entry = manifest.skill(id)
            out.append(
                ListedSkill(
                    manifest.package,
                    entry.metadata.name,
                    entry.metadata.description,
                    len(entry.files),
                    sum(f.size for f in entry.files),
                    id,
                    None if exported is None else tuple(exported.get(id, ())),
                )
            )
    return sorted(out, key=lambda s: (s.package, s.name, s.id))


def _exported(manifest: Manifest) -> dict[str, list[str]] | None:
    """Skill id → the exported specs naming it (recorded as references of the bundle package); None without exports."""
    if manifest.exports is None:
        return None
    found: dict[str, list[str]] = {}
    for spec in manifest.exports:
        ref = manifest.reference(manifest.package, spec)
        if ref is not None and ref.kind == "skill":
            found.setdefault(ref.target, []).append(spec)
    return found


def from_wheel(wheel: Path) -> list[ListedSkill]:
    """Each manifest in the wheel, read by the run time's zip reader: its recorded size checked against
    `MANIFEST_LIMIT` before it is inflated, and never more than that inflated."""
    from flue_runtime.mount.zipped import Archive

    try:
        with zipfile.ZipFile(wheel) as archive:
            names = sorted(n for n in archive.namelist() if n.endswith(_SUFFIX))
        reader = Archive(str(wheel))
        manifests = [_load(reader.read_limited(n, MANIFEST_LIMIT), f"{wheel}!{n}") for n in names]
    except UnsafeFileError as exc:
        raise TargetError(f"{wheel}!{exc.path}: the skill bundle manifest {exc.reason}; refused") from None
    except (OSError, zipfile.BadZipFile) as exc:
        raise TargetError(f"{wheel}: cannot read the wheel: {exc}") from None
    if not manifests:
        raise TargetError(
            f"{wheel}: no skill bundle in this wheel (no */{BUNDLE_DIR}/{MANIFEST_FILE}); was it built with the flue-skills hook?"
        )
    return from_manifests(manifests)


def from_project(root: Path) -> list[ListedSkill]:
    """The bundles a wheel build of `root` would make, planned without building or running project code."""
    from flue_build.pack import plan
    from flue_build.project import view_project
    from flue_runtime.format.diagnostics import has_errors

    view = view_project(root)
    if has_errors(view.diagnostics):
        raise SkillError(view.diagnostics, f"{root}: the project would not build")
    return from_manifests([_load(bundle.manifest, bundle.manifest_path) for bundle in plan(view.collection)])


def from_installed(name: str) -> list[ListedSkill]:
    """An importable package (its bundle, or its regular subpackages' for a namespace) or a distribution name."""
    return installed(name, [])[0]


def installed(name: str, notes: list[str]) -> tuple[list[ListedSkill], list[SkillReference] | None]:
    """`from_installed`, and the skills themselves when they are raw skill folders of a distribution built without
    the hook (vetted now: `flue_runtime.mount.distribution`), whose skipped folders and warnings go to `notes`."""
    from flue_runtime.errors import MountError
    from flue_runtime.mount.bundled import bundle_of, is_regular_package, module_spec

    try:
        spec = module_spec(name)
        if spec is not None and spec.submodule_search_locations is not None:
            packages = (
                [name] if is_regular_package(spec) else _regular_children(name, list(spec.submodule_search_locations))
            )
            bundles = [b for b in (bundle_of(p) for p in packages) if b is not None]
            if not bundles:
                source = _editable_project(name)
                if source is not None:
                    return from_project(source), None
                raw = _raw(name, notes, package=name.split(".")[0])
                if raw is not None:
                    return raw
                raise TargetError(
                    f"package {name!r} ({', '.join(spec.submodule_search_locations)}) has no skill bundle "
                    "(it was built without the flue-skills hook) and no skill folder among its distribution's files"
                )
            return from_manifests([b.manifest for b in bundles]), None
    except MountError as exc:
        raise TargetError(str(exc)) from None
    return _from_distribution(name, notes)


def _editable_project(name: str) -> Path | None:
    """The project folder of an editable install providing package `name` (PEP 610's direct_url.json)."""
    from importlib.metadata import PackageNotFoundError, distribution, packages_distributions

    top = name.split(".")[0]
    for dist_name in [*packages_distributions().get(top, []), name]:
        try:
            text = distribution(dist_name).read_text("direct_url.json")
        except PackageNotFoundError:
            continue
        try:
            data = json.loads(text or "{}")
        except ValueError:
            continue
        url = data.get("url", "") if isinstance(data, dict) else ""
        if data.get("dir_info", {}).get("editable") and url.startswith("file://"):
            from urllib.parse import unquote, urlparse

            root = Path(unquote(urlparse(url).path))
            if (root / "pyproject.toml").is_file():
                return root
    return None


def _regular_children(name: str, locations: list[str]) -> list[str]:
    found = []
    for location in locations:
        for child in sorted(os.listdir(location)):
            if child.isidentifier() and os.path.isfile(os.path.join(location, child, "__init__.py")):
                found.append(f"{name}.{child}")
    return found


def _from_distribution(name: str, notes: list[str]) -> tuple[list[ListedSkill], list[SkillReference] | None]:
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        dist = distribution(name)
    except PackageNotFoundError:
        raise UsageError(
            f"{name!r}: no installed package or distribution of that name (nor a .whl file or project folder)"
        ) from None
    manifests = []
    for file in dist.files or ():
        posix = file.as_posix()
        if posix.endswith(_SUFFIX):
            located = str(dist.locate_file(file))
            manifests.append(_load(_read_manifest(located), located))
    if not manifests:
        source = _editable_project(name)
        if source is not None:
            return from_project(source), None
        raw = _raw(name, notes)
        if raw is not None:
            return raw
        raise TargetError(
            f"distribution {name!r} installs no skill bundle (built without the flue-skills hook) "
            "and no skill folder among its files"
        )
    return from_manifests(manifests), None


def _raw(
    name: str, notes: list[str], package: str | None = None
) -> tuple[list[ListedSkill], list[SkillReference]] | None:
    """The raw skill folders of distribution `name` (or of the distribution of package `package`), vetted now by
    the build's rules; None when it lists no folder holding a SKILL.md, nor refused one."""
    from flue_runtime.errors import SkillNotFoundError
    from flue_runtime.mount.distribution import find_skills

    try:
        found = find_skills(name if package is None else package, package)
    except SkillNotFoundError:
        return None
    if not found.skills and not found.notes:
        return None
    if not found.skills:
        raise TargetError(f"{name}: no skill folder among its files passes the rules ({'; '.join(found.notes)})")
    notes.extend(found.notes)
    listed = [
        ListedSkill(found.where[s], s.name, s.description, len(s.files), sum(f.size for f in s.files), s.id)
        for s in found.skills
    ]
    return sorted(listed, key=lambda s: (s.package, s.name, s.id)), found.skills


def _read_manifest(path: str) -> bytes:
    from flue_runtime.format.safe_read import read_regular

    try:
        return read_regular(path, limit=MANIFEST_LIMIT, follow=True).data or b""
    except UnsafeFileError as exc:
        raise TargetError(f"{path}: the skill bundle manifest {exc.reason}; refused") from None
    except OSError as exc:
        raise TargetError(f"{path}: cannot read the skill bundle manifest: {exc.strerror or exc}") from None


def _load(data: bytes, where: str) -> Manifest:
    """`MountError` (made a `TargetError` by `list_target`) when it is not a manifest a build writes."""
    return Manifest.loads(data, where)


def format_text(skills: list[ListedSkill], width: int | None = None) -> str:
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
        if room is not None and len(description) > room:
            description = description[: room - 1] + "…"
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


def format_json(skills: list[ListedSkill]) -> str:
    """A list of skills; `exports` appears only for a distribution that declares exports."""
    rows = [{k: v for k, v in asdict(s).items() if k != "exports" or v is not None} for s in skills]
    return printable_json(rows)
