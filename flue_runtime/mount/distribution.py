"""Skills shipped by any installed distribution: its bundles, or the plain skill folders among its files.

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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib.metadata import Distribution, PackageNotFoundError, PackagePath, distribution, packages_distributions
from typing import Any

from flue_runtime.errors import SkillError, SkillNotFoundError
from flue_runtime.format.manifest import BUNDLE_DIR, MANIFEST_FILE
from flue_runtime.format.records import SKILL_FILE, ListedFile
from flue_runtime.format.safe_read import read_regular
from flue_runtime.mount.reference import SkillReference
from flue_runtime.mount.sources import vet_source

__all__ = ["DistributionSkills", "RawSkillFolder", "shipped_skills", "raw_skill_folders", "skills_of"]


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

    found = shipped_skills(name)
    for note in found.notes:
        warnings.warn(note, SkillWarning, stacklevel=2)
    return found.skills


@dataclass(frozen=True)
class DistributionSkills:
    """What `shipped_skills` found: the skills (sorted by name), where each lies (its bundle package, or the
    folder holding it inside the distribution), and a line for each folder skipped and each warning given."""

    skills: list[SkillReference]
    where: dict[SkillReference, str]
    notes: list[str]
    #: Whether the skills are raw folders (False: the distribution's bundles).
    raw: bool


def shipped_skills(name: str, package: str | None = None) -> DistributionSkills:
    """`skills_of(name)` without warning (the CLI prints the notes its own way). `package`: only the skills
    inside that top-level package."""
    dist, package = _distribution(name, package)
    files = list(dist.files or ())
    bundled = _bundled(files, package)
    if bundled is not None:
        return DistributionSkills(sorted(bundled, key=lambda s: (s.name, s.origin)), bundled, [], raw=False)
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
    return DistributionSkills(sorted(where, key=lambda s: (s.name, s.origin)), where, notes, raw=True)


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


def _bundled(files: list[PackagePath], package: str | None) -> dict[SkillReference, str] | None:
    """The skills of the distribution's bundles with their bundle packages (None when it has no bundle)."""
    from pathlib import Path

    from flue_runtime.mount.bundled import bundle_of
    from flue_runtime.mount.disk import load_skill_dir

    suffix = f"/{BUNDLE_DIR}/{MANIFEST_FILE}"
    packages = [f.as_posix()[: -len(suffix)].replace("/", ".") for f in files if f.as_posix().endswith(suffix)]
    packages = [p for p in packages if all(part.isidentifier() for part in p.split("."))]
    if package is not None:
        packages = [p for p in packages if p == package or p.startswith(f"{package}.")]
    bundles = [b for b in (bundle_of(p) for p in packages) if b is not None]
    if not bundles:
        return None
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
