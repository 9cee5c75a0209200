"""Turn a `Collection` into bundles: per bundle package, the files to copy and the manifest bytes.

Deterministic: bundles sorted by package, files by destination, manifest bytes from
`Manifest.dumps()`. Destinations are POSIX paths inside the wheel
(`pkg/_flue_skills/skills/<id>/SKILL.md`); sources are absolute paths of vetted files.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from flue_build.collect import Collection, Resolved
from flue_build.fswalk import make_dirs
from flue_runtime.errors import FlueError, UnsafeFileError
from flue_runtime.format.manifest import (
    BUNDLE_DIR,
    MANIFEST_FILE,
    Manifest,
    MarkdownEntry,
    Reference,
    SkillEntry,
)
from flue_runtime.format.paths import is_inside
from flue_runtime.format.safe_read import read_regular
from flue_runtime.format.skill_folder import VettedSkill
from flue_runtime.format.vetting import format_size

__all__ = [
    "BundleFile",
    "BundlePlan",
    "copy_checked",
    "local_targets",
    "plan",
    "sdist_files",
    "vetted_line",
]


@dataclass(frozen=True)
class BundleFile:
    """One vetted file (its absolute path: a string, as a build handles ten thousand of them) and where
    it goes inside the wheel."""

    source: str
    dest: str
    size: int
    sha256: str
    crc32: int


@dataclass(frozen=True)
class BundlePlan:
    """What one bundle package receives."""

    package: str
    path: str  # the package inside the wheel, POSIX: `acme/agents`
    files: tuple[BundleFile, ...]
    manifest: bytes

    @property
    def manifest_path(self) -> str:
        return f"{self.path}/{BUNDLE_DIR}/{MANIFEST_FILE}"


def plan(collection: Collection, *, editable: bool = False) -> list[BundlePlan]:
    """The bundles of a collection without errors.

    `editable`: no files are copied; every entry carries `source` (its absolute path), so
    an install that cannot find skills next to `__file__` (setuptools' strict editable
    link tree) reads them from the project, through the same vetting.
    """
    if not collection.ok:
        raise ValueError("cannot bundle a collection with errors; report its diagnostics first")
    bundles = []
    for package in sorted(collection.bundles):
        refs = collection.bundles[package]
        path = package.replace(".", "/")
        files: dict[str, BundleFile] = {}
        skills: dict[str, SkillEntry] = {}
        markdown: dict[str, MarkdownEntry] = {}
        references: dict[str, dict[str, Reference]] = {}
        for module in sorted(refs.references):
            for spec, target in sorted(refs.references[module].items()):
                references.setdefault(module, {})[spec] = _reference(
                    collection, target, skills, markdown, files, path, editable
                )
        manifest = Manifest(package, skills, markdown, references, collection.exports).dumps()
        ordered = tuple(files[dest] for dest in sorted(files))
        bundles.append(BundlePlan(package, path, () if editable else ordered, manifest))
    return bundles


def _reference(
    collection: Collection,
    target: Resolved,
    skills: dict[str, SkillEntry],
    markdown: dict[str, MarkdownEntry],
    files: dict[str, BundleFile],
    path: str,
    editable: bool,
) -> Reference:
    if target.kind == "package" or target.path is None:
        return Reference("package", target.spec)
    if target.kind == "markdown":
        vetted_md = collection.markdown[target.path]
        source = os.fspath(target.path) if editable else None
        markdown.setdefault(vetted_md.id, MarkdownEntry(vetted_md.id, vetted_md.size, vetted_md.sha256, source))
        dest = f"{path}/{markdown[vetted_md.id].path}"
        files.setdefault(
            dest, BundleFile(os.fspath(target.path), dest, vetted_md.size, vetted_md.sha256, vetted_md.crc32)
        )
        return Reference("markdown", vetted_md.id)
    vetted = collection.skills[target.path]
    folder = os.fspath(target.path)
    entry = _skill_entry(vetted, folder if editable else None)
    skills.setdefault(entry.id, entry)
    for packed in vetted.files:
        dest = f"{path}/{entry.directory}/{packed.path}"
        origin = os.path.join(folder, *packed.path.split("/"))
        files.setdefault(dest, BundleFile(origin, dest, packed.size, packed.sha256, packed.crc32))
    return Reference("skill", entry.id)


def _skill_entry(vetted: VettedSkill, source: str | None) -> SkillEntry:
    assert vetted.metadata is not None  # a collection without errors has metadata for every skill
    return SkillEntry.of(vetted.id, vetted.metadata, vetted.files, vetted.body_offset, source)


def sdist_files(collection: Collection) -> list[Path]:
    """Every vetted skill file and markdown target inside the project: the sdist must carry them."""
    out: set[Path] = set()
    for folder, vetted in collection.skills.items():
        if is_inside(collection.root, folder):
            out.update(folder.joinpath(*f.path.split("/")) for f in vetted.files)
    out.update(path for path in collection.markdown if is_inside(collection.root, path))
    return sorted(out)


def local_targets(collection: Collection) -> list[Path]:
    """Skill folders and markdown files inside the project that are bundled: their original copies stay out of wheels."""
    found = [p for p in collection.skills if is_inside(collection.root, p)]
    found += [p for p in collection.markdown if is_inside(collection.root, p)]
    return sorted(found)


def copy_checked(item: BundleFile, target: Path) -> None:
    """Copy a vetted file's bytes to `target` (a regular file of the vetted size, never through a link)
    and check they are the bytes that were vetted. Of its metadata only the executable bit is kept, as
    a wheel records it (0o755 or 0o644): `run_skill_script` needs it for a script that is not Python."""
    make_dirs(target.parent)  # iterative: a skill may nest folders past the recursion limit
    try:
        found = read_regular(item.source, limit=item.size, digest=True)
    except (UnsafeFileError, OSError) as exc:
        raise FlueError(f"{item.source} changed after it was vetted ({exc}); build again") from None
    if found.sha256 != item.sha256 or found.data is None:
        raise FlueError(f"{item.source} changed after it was vetted; build again")
    target.write_bytes(found.data)
    os.chmod(target, 0o755 if found.mode & 0o100 else 0o644)


def vetted_line(collection: Collection) -> str:
    """What an editable build checked, in one line: it packs nothing, the run time reads the source tree."""
    skills = [vetted for folder, vetted in collection.skills.items() if is_inside(collection.root, folder)]
    files = sum(len(vetted.files) for vetted in skills)
    size = sum(f.size for vetted in skills for f in vetted.files)
    markdown = sum(1 for path in collection.markdown if is_inside(collection.root, path))
    return (
        f"{len(skills)} skill{'' if len(skills) == 1 else 's'} ({files} file{'' if files == 1 else 's'}, "
        f"{format_size(size)}) and {markdown} markdown file{'' if markdown == 1 else 's'} vetted; "
        "read from the source tree at run time"
    )
