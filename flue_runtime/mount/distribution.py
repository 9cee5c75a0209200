"""Skills shipped by any installed package or distribution: its bundles, or the plain skill folders among its files.

`shipped(name)` says what an installed name ships, as `flue-skills ls`, `mcp`, `export` and `eval` take it: an
importable package's bundles (a namespace package's: its regular subpackages'), or a distribution's; without a
bundle, the project folder of an editable install (PEP 610's `direct_url.json`: what its build would ship, which
only the build's rules can list), or else its raw skill folders; `ShippedSkill` is a row of what it lists.

A distribution built with the flue-skills hook is read through its bundles (what its build
vetted and packed, checked against the manifest). Any other distribution is searched for
raw skill folders: every folder holding a `SKILL.md` among the files its metadata lists
(`importlib.metadata`: a wheel's RECORD, an egg's file list), whether it lies in a folder
on disk or in a zip on `sys.path`. Each is a `SkillSource` whose listing is the
distribution's own (with RECORD's sizes and SHA-256s where it has them) and is vetted at
load by `load_skill`, every file read, hashed and scanned then (`eager`): a skill the rules
refuse is skipped with the reason and never served, and a file changed since pip installed
it (its RECORD digest) refuses its skill.
"""

from __future__ import annotations

import base64
import binascii
import os
import posixpath
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import Distribution, PackageNotFoundError, PackagePath, distribution, packages_distributions
from pathlib import Path
from typing import Any

from flue_runtime.errors import MountError, SkillError, SkillNotFoundError, UnsafeFileError
from flue_runtime.format.manifest import BUNDLE_DIR, MANIFEST_FILE, MANIFEST_LIMIT, Manifest
from flue_runtime.format.records import SKILL_FILE, ListedFile
from flue_runtime.format.safe_read import read_regular
from flue_runtime.mount.bundled import InstalledBundle, bundle_of, is_regular_package, module_spec
from flue_runtime.mount.reference import SkillReference
from flue_runtime.mount.sources import vet_source
from flue_runtime.mount.wheel_install import editable_folder

__all__ = [
    "DistributionSkills",
    "RawSkillFolder",
    "Shipment",
    "ShippedSkill",
    "distribution_skills",
    "raw_skill_folders",
    "shipped",
    "shipped_skills",
    "skills_of",
    "wheel_skills",
]


#: Folders of a distribution's file list that are its metadata, never a skill's.
_METADATA = (".dist-info", ".egg-info", ".data")


def skills_of(name: str) -> list[SkillReference]:
    """Every skill the installed distribution `name` ships (or the distribution of top-level package `name`),
    sorted by name: its bundles' skills when it was built with the flue-skills hook, else every folder holding
    a SKILL.md among its files, vetted by the build's rules now. A folder the rules refuse is skipped with a
    `SkillWarning` naming the reason, as is every warning the vetting gives. `SkillNotFoundError` when nothing
    of that name is installed."""
    import warnings

    from flue_runtime.errors import SkillWarning

    found = distribution_skills(name)
    for note in found.notes:
        warnings.warn(note, SkillWarning, stacklevel=2)
    return found.skills


@dataclass(frozen=True)
class DistributionSkills:
    """What `distribution_skills` found: the skills (sorted by name), where each lies (its bundle package, or the
    folder holding it inside the distribution), and a line for each folder skipped and each warning given."""

    skills: list[SkillReference]
    where: dict[SkillReference, str]
    notes: list[str]


def distribution_skills(name: str, package: str | None = None) -> DistributionSkills:
    """`skills_of(name)` without warning (the CLI prints the notes its own way). `package`: only the skills
    inside that top-level package."""
    dist, package = _distribution(name, package)
    files = list(dist.files or ())
    bundles = _bundles(files, package)
    if bundles:
        bundled = _skills_of(bundles)
        return DistributionSkills(sorted(bundled, key=lambda s: (s.name, s.origin)), bundled, [])
    where: dict[SkillReference, str] = {}
    notes: list[str] = []
    shown = dist.name  # (parsed from METADATA at every access)
    for folder, listed in _by_folder(files, raw_skill_folders(files, package)).items():
        source = RawSkillFolder(dist, folder, listed, shown)
        try:
            skill, warned = vet_source(source, eager=True)
        except SkillError as exc:
            notes.append(f"skipped {exc}")
            continue
        notes.extend(warned)
        where.setdefault(skill, posixpath.dirname(folder))
    return DistributionSkills(sorted(where, key=lambda s: (s.name, s.origin)), where, notes)


def _distribution(name: str, package: str | None) -> tuple[Distribution, str | None]:
    """The distribution called `name`, or the one distribution that provides top-level package `name`."""
    try:
        return distribution(name), package
    except (PackageNotFoundError, ValueError):
        pass
    providers = packages_distributions().get(name, []) if name.isidentifier() else []
    if len(set(providers)) == 1:
        return distribution(providers[0]), package or name
    if providers:
        raise SkillNotFoundError(
            f"package {name!r} is provided by several distributions ({', '.join(sorted(set(providers)))}); "
            "name the distribution"
        )
    raise SkillNotFoundError(f"{name!r}: no installed distribution or top-level package of that name")


def _bundles(files: Sequence[PackagePath], package: str | None = None) -> list[InstalledBundle]:
    """The bundles among a distribution's files (of `package` and its subpackages, when given)."""
    suffix = f"/{BUNDLE_DIR}/{MANIFEST_FILE}"
    packages = [f.as_posix()[: -len(suffix)].replace("/", ".") for f in files if f.as_posix().endswith(suffix)]
    packages = [p for p in packages if all(part.isidentifier() for part in p.split("."))]
    if package is not None:
        packages = [p for p in packages if p == package or p.startswith(f"{package}.")]
    return [b for b in (bundle_of(p) for p in packages) if b is not None]


def _skills_of(bundles: Iterable[InstalledBundle]) -> dict[SkillReference, str]:
    """Each bundle's skills with its package: an entry an editable build recorded with its folder, read from there."""
    from flue_runtime.mount.disk import load_skill_dir

    found: dict[SkillReference, str] = {}
    for bundle in bundles:
        for id in bundle.manifest.skill_ids():
            source = bundle.skill_entry(id).source
            found.setdefault(bundle.skill(id) if source is None else load_skill_dir(Path(source)), bundle.package)
    return found


def _by_folder(files: Iterable[PackagePath], folders: list[str]) -> dict[str, dict[str, PackagePath]]:
    """Each of `folders` with the files under it, by their path relative to it (a file of a nested skill folder
    belongs to both)."""
    found: dict[str, dict[str, PackagePath]] = {folder: {} for folder in folders}
    for file in files:
        path = file.as_posix()
        parent = posixpath.dirname(path)
        while parent:
            listed = found.get(parent)
            if listed is not None:
                listed[path[len(parent) + 1 :]] = file
            parent = posixpath.dirname(parent)
    return found


@dataclass(frozen=True)
class ShippedSkill:
    """A skill as `flue-skills ls` lists it: where it lies (its bundle package, or the folder holding a raw one),
    its name and description, its files and their total size, its content id."""

    package: str
    name: str
    description: str
    files: int
    size: int
    id: str
    #: The package specs other packages may use for this skill; None when its distribution
    #: declares no exports (then any spec into its packages resolves).
    exports: tuple[str, ...] | None = None


def shipped_skills(manifests: Iterable[Manifest]) -> list[ShippedSkill]:
    """What bundle manifests list, a row per skill, by package, name and id (no skill is read: the manifest says)."""
    out = []
    for manifest in manifests:
        exported: dict[str, list[str]] = {}  # skill id -> the exported specs naming it (references of the package)
        for spec in manifest.exports or ():
            ref = manifest.reference(manifest.package, spec)
            if ref is not None and ref.kind == "skill":
                exported.setdefault(ref.target, []).append(spec)
        for id in manifest.skill_ids():
            entry = manifest.skill(id)
            size, exports = sum(f.size for f in entry.files), exported.get(id, ())
            metadata, count = entry.metadata, len(entry.files)
            shown = None if manifest.exports is None else tuple(exports)
            out.append(ShippedSkill(manifest.package, metadata.name, metadata.description, count, size, id, shown))
    return sorted(out, key=lambda s: (s.package, s.name, s.id))


@dataclass(frozen=True)
class Shipment:
    """What an installed package or distribution ships (`shipped`): its bundles; without one, the project folder of
    its editable install, or else its raw skill folders (`raw`: None when it lists no folder holding a SKILL.md)."""

    #: The name asked for, and how messages name what it found: `package 'acme' (<its folders>)`, or
    #: `distribution 'acme'`.
    name: str
    described: str
    bundles: tuple[InstalledBundle, ...] = field(default=())
    project: Path | None = None
    raw: DistributionSkills | None = None

    def listed(self) -> list[ShippedSkill]:
        """A row per skill (none for an editable project: only its build's rules can list those)."""
        if self.raw is None:
            return shipped_skills(bundle.manifest for bundle in self.bundles)
        rows = [
            ShippedSkill(self.raw.where[s], s.name, s.description, len(s.files), sum(f.size for f in s.files), s.id)
            for s in self.raw.skills
        ]
        return sorted(rows, key=lambda s: (s.package, s.name, s.id))

    def skills(self) -> list[SkillReference]:
        """The skills themselves, in the order `listed` gives (none for an editable project)."""
        if self.raw is not None:
            return self.raw.skills
        skills = _skills_of(self.bundles)
        return sorted(skills, key=lambda s: (skills[s], s.name, s.id))

    def nothing(self) -> str | None:
        """Why it ships no skill, or None when it ships some (or is an editable project)."""
        if self.bundles or self.project is not None or (self.raw is not None and self.raw.skills):
            return None
        if self.raw is not None:
            return f"{self.name}: no skill folder among its files passes the rules ({'; '.join(self.raw.notes)})"
        return f"{self.described} has no skill bundle (built without the flue-skills hook) nor a skill folder installed"


def shipped(name: str) -> Shipment:
    """What installed package or distribution `name` ships; an importable package is taken first.
    `SkillNotFoundError` when nothing installed has that name; `MountError` for a bundle that is not one."""
    spec = module_spec(name)
    if spec is not None and spec.submodule_search_locations is not None:
        locations = list(spec.submodule_search_locations)
        packages = [name] if is_regular_package(spec) else _regular_children(name, locations)
        bundles = [b for b in (bundle_of(p) for p in packages) if b is not None]
        top = name.split(".")[0]
        return _shipping(f"package {name!r} ({', '.join(locations)})", bundles, name, top, top)
    try:
        files = distribution(name).files or ()
    except (PackageNotFoundError, ValueError):
        raise SkillNotFoundError(f"{name!r}: no installed package or distribution of that name") from None
    return _shipping(f"distribution {name!r}", _bundles(files), name, name, None)


def _shipping(described: str, bundles: list[InstalledBundle], name: str, raw_of: str, package: str | None) -> Shipment:
    """Its bundles; or the project of an editable install of `name`; or the raw folders of `raw_of` (in `package`)."""
    if bundles:
        return Shipment(name, described, tuple(bundles))
    project = _editable_project(name)
    if project is not None:
        return Shipment(name, described, project=project)
    try:
        found = distribution_skills(raw_of, package)
    except SkillNotFoundError:
        return Shipment(name, described)
    return Shipment(name, described, raw=found if found.skills or found.notes else None)


def wheel_skills(wheel: Path) -> list[ShippedSkill]:
    """What the bundles of a wheel file list, each manifest read by the run time's zip reader: its recorded size
    checked against `MANIFEST_LIMIT` before it is inflated, and never more than that inflated. `MountError` for a
    wheel that cannot be read, holds no bundle, or a manifest that is not one."""
    from flue_runtime.mount.zipped import Archive

    suffix = f"/{BUNDLE_DIR}/{MANIFEST_FILE}"
    try:
        with zipfile.ZipFile(wheel) as archive:
            names = sorted(name for name in archive.namelist() if name.endswith(suffix))
        reader = Archive(str(wheel))
        manifests = [Manifest.loads(reader.read_limited(n, MANIFEST_LIMIT), f"{wheel}!{n}") for n in names]
    except UnsafeFileError as exc:
        raise MountError(f"{wheel}!{exc.path}: the skill bundle manifest {exc.reason}; refused") from None
    except (OSError, zipfile.BadZipFile) as exc:
        raise MountError(f"{wheel}: cannot read the wheel: {exc}") from None
    if not manifests:
        raise MountError(
            f"{wheel}: no skill bundle in this wheel (no *{suffix}); was it built with the flue-skills hook?"
        )
    return shipped_skills(manifests)


def _editable_project(name: str) -> Path | None:
    """The project folder (holding a pyproject.toml) of an editable install of distribution or package `name`."""
    for dist_name in [*packages_distributions().get(name.split(".")[0], []), name]:
        try:
            folder = editable_folder(distribution(dist_name))
        except (PackageNotFoundError, ValueError):
            continue
        if folder and (Path(folder) / "pyproject.toml").is_file():
            return Path(folder)
    return None


def _regular_children(name: str, locations: list[str]) -> list[str]:
    """The regular subpackages of namespace package `name`, each folder of it in turn."""
    found = []
    for location in locations:
        for child in sorted(os.listdir(location)):
            if child.isidentifier() and os.path.isfile(os.path.join(location, child, "__init__.py")):
                found.append(f"{name}.{child}")
    return found


def raw_skill_folders(files: Iterable[PackagePath], package: str | None = None) -> list[str]:
    """Every folder holding a `SKILL.md` file among `files` (POSIX, as the metadata lists them), sorted; not
    a bundle's (those are read through their manifests) nor the distribution's own metadata."""
    folders = set()
    for file in files:
        path = file.as_posix()
        if posixpath.basename(path) != SKILL_FILE:
            continue
        folder = posixpath.dirname(path)
        parts = folder.split("/")
        if not folder or BUNDLE_DIR in parts or any(part.endswith(_METADATA) for part in parts):
            continue
        if package is not None and parts[0] != package:
            continue
        folders.add(folder)
    return sorted(folders)


class RawSkillFolder:
    """A skill folder among a distribution's files, as a `SkillSource`: listed from the distribution's metadata
    (RECORD's size and SHA-256 where it records them, else the installed file's size), read from where it is
    installed with no more than the listed size read."""

    def __init__(self, dist: Distribution, folder: str, files: Mapping[str, PackagePath], dist_name: str) -> None:
        self._dist = dist
        self._dist_name = dist_name
        self._folder = folder
        #: The distribution's files under the folder, by their path relative to it.
        self._files = files
        self._sizes: dict[str, int] = {}

    @property
    def name(self) -> str:
        return posixpath.basename(self._folder)

    def describe(self) -> str:
        return f"{self._dist_name}: {self._folder}"

    def listing(self) -> list[ListedFile]:
        listed = []
        for path, file in self._files.items():
            size = file.size if isinstance(file.size, int) else self._installed_size(file)
            self._sizes[path] = size
            listed.append(ListedFile(path, size, _sha256(file)))
        return listed

    def read(self, path: str) -> bytes:
        file = self._files[path]
        located: Any = self._dist.locate_file(file)
        size = self._sizes.get(path, 0)
        if isinstance(located, os.PathLike):
            return read_regular(located, limit=size).data or b""
        with located.open("rb") as handle:  # a zip on sys.path (zipfile.Path): never more than size + 1 inflated
            return bytes(handle.read(size + 1))

    def is_executable(self, path: str) -> bool:
        located: Any = self._dist.locate_file(self._files[path])
        return isinstance(located, os.PathLike) and bool(os.lstat(located).st_mode & 0o111)

    def _installed_size(self, file: PackagePath) -> int:
        """The size of a file the metadata lists without one (an egg's list, a file pip compiled)."""
        located: Any = self._dist.locate_file(file)
        if isinstance(located, os.PathLike):
            return os.lstat(located).st_size
        return int(located.root.getinfo(located.at).file_size)


def _sha256(file: PackagePath) -> str | None:
    """RECORD's digest of `file` as hex, when it records a SHA-256 (urlsafe base64, unpadded)."""
    found = file.hash
    if found is None or found.mode != "sha256":
        return None
    try:
        return base64.urlsafe_b64decode(found.value + "=" * (-len(found.value) % 4)).hex()
    except (binascii.Error, ValueError):
        return "malformed"
