"""What of a skill folder may reach an artifact.

Every folder holding a `SKILL.md` among the files a backend selects for a wheel or an
sdist is a skill, referenced or not, and is vetted once per build: a referenced one by
`collect`, the others here (FLU410 says they are not referenced). A file inside a skill
folder ships only when it is one of the files the vetting kept, so a reference the scanner
missed, a noise folder the vetting skipped or a backend's own walk (which follows links)
can never carry anything else out. The project's own exclusion rules (asked of the
backend, `ExcludedBy`) take vetted files out of the bundles (FLU411, FLU412).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from flue_build.backends.view import ExcludedBy
from flue_build.collect import Collection, symlink_on_path
from flue_runtime.format.config import FlueConfig
from flue_runtime.format.diagnostics import Diagnostic, apply_strict, diagnostic
from flue_runtime.format.markdown_file import MarkdownFile
from flue_runtime.format.messages import piece
from flue_runtime.format.paths import display_path, is_inside
from flue_runtime.format.records import SKILL_FILE, PackedFile
from flue_runtime.format.skill_folder import VettedSkill, vet_skill
from flue_runtime.format.vetting import is_noise_dir, is_noise_file

__all__ = ["SkillFolders", "without_excluded"]


@dataclass
class SkillFolders:
    """The skill folders one build meets, each vetted once, and what of each may ship.

    `collection` holds the referenced skills (after the project's exclusions, see
    `without_excluded`); `diagnostics` collects what vetting the others found.
    """

    collection: Collection
    config: FlueConfig
    diagnostics: list[Diagnostic] = field(default_factory=list)
    _unreferenced: dict[Path, VettedSkill] = field(default_factory=dict)
    _holds: dict[str, bool] = field(default_factory=dict)
    _outer: dict[str, Path | None] = field(default_factory=dict)
    _kept: dict[Path, dict[str, PackedFile]] = field(default_factory=dict)

    def folder_of(self, path: Path) -> Path | None:
        """The outermost folder above `path` holding a `SKILL.md`: below the project root for a
        path inside the project, anywhere for one outside it (a force-included folder)."""
        return self._outermost(os.path.dirname(os.path.abspath(path)))

    def _outermost(self, folder: str) -> Path | None:
        """The outermost of `folder` and the folders above it that holds a `SKILL.md`, cached per
        folder (the files of one folder share the answer); iterative, as trees may be deep."""
        root = os.fspath(self.collection.root)
        chain: list[str] = []
        current = folder
        while current not in self._outer:
            parent = os.path.dirname(current)
            if current == root or parent == current:  # the project root (no skill folder) or `/`
                self._outer[current] = None
                break
            chain.append(current)
            current = parent
        found = self._outer[current]
        for item in reversed(chain):  # top down: below a skill folder, the outermost stays the answer
            if found is None and self._holds_skill(item):
                found = Path(item)
            self._outer[item] = found
        return self._outer[folder]

    def _holds_skill(self, folder: str) -> bool:
        held = self._holds.get(folder)
        if held is None:
            held = self._holds[folder] = os.path.lexists(os.path.join(folder, SKILL_FILE))
        return held

    def meet(self, paths: Iterable[Path]) -> list[Diagnostic]:
        """Vet every skill folder holding one of `paths` that this build has not vetted yet;
        return what the vetting found (`config.strict` applied)."""
        found: list[Diagnostic] = []
        for path in paths:
            folder = self.folder_of(path)
            if folder is not None and folder not in self.collection.skills and folder not in self._unreferenced:
                found += self._vet(folder)
        self.diagnostics += found
        return found

    def _vet(self, folder: Path) -> list[Diagnostic]:
        shown = display_path(folder, self.collection.root)
        link = symlink_on_path(self.collection.root, folder)
        if link is not None:
            self._unreferenced[folder] = VettedSkill(folder, None, (), 0, ())
            problem = diagnostic("FLU301 folder", shown, link=display_path(link, self.collection.root))
            return apply_strict([problem], self.config.strict)
        vetted = vet_skill(folder, display=shown, allow=self.config.allow, limits=self.config.limits)
        self._unreferenced[folder] = vetted
        notice = diagnostic("FLU410", shown, name=folder.name)
        return apply_strict([notice, *vetted.diagnostics], self.config.strict)

    @property
    def unreferenced(self) -> list[Path]:
        """The skill folders met that no reference names."""
        return sorted(self._unreferenced)

    def skill(self, folder: Path) -> VettedSkill | None:
        return self.collection.skills.get(folder) or self._unreferenced.get(folder)

    def referenced(self, folder: Path) -> bool:
        return folder in self.collection.skills

    def recorded(self, path: Path) -> PackedFile | None:
        """What the vetting recorded of `path` (size, hashes); None when it is not a file the vetting kept."""
        folder = self.folder_of(path)
        vetted = self.skill(folder) if folder is not None else None
        if folder is None or vetted is None:
            return None
        kept = self._kept.get(folder)
        if kept is None:
            kept = self._kept[folder] = {f.path: f for f in vetted.files}
        return kept.get(Path(os.path.abspath(path)).relative_to(folder).as_posix())

    def ships(self, path: Path) -> bool:
        """True when `path` is outside every skill folder, or a file the vetting kept."""
        return self.folder_of(path) is None or self.recorded(path) is not None

    def why_not(self, path: Path) -> str:
        """Why a file of a skill folder that the vetting did not keep may not ship, in a few words."""
        folder = self.folder_of(path)
        if folder is None:
            return piece("verdict: outside")
        parts = Path(os.path.abspath(path)).relative_to(folder).parts
        if any(is_noise_dir(part) for part in parts[:-1]):
            return piece("verdict: noise folder")
        if os.path.islink(path):
            return piece("verdict: link")
        vetted = self.skill(folder)
        shown = display_path(path, self.collection.root)
        codes = sorted({d.code for d in vetted.diagnostics if d.is_error and d.path == shown} if vetted else ())
        if codes:
            return piece("verdict: refused", codes=", ".join(codes))
        if is_noise_file(parts[-1]):
            return piece("verdict: noise")
        return piece("verdict: not kept")


def without_excluded(
    collection: Collection, excluded_by: ExcludedBy, artifact: str, *, strict: bool = False
) -> tuple[Collection, list[Diagnostic]]:
    """The collection with the vetted files the project's own rules leave out of `artifact`
    taken out of its bundled skills and markdown targets, and one diagnostic per file:
    FLU411 for a support file, FLU412 (an error) for a `SKILL.md` or a `markdown()` target."""
    problems: list[Diagnostic] = []
    skills: dict[Path, VettedSkill] = {}
    for folder, vetted in collection.skills.items():
        if not is_inside(collection.root, folder):  # another distribution's skill: checked, never shipped here
            skills[folder] = vetted
            continue
        kept = []
        base = os.fspath(folder)
        for packed in vetted.files:
            file = os.path.join(base, *packed.path.split("/"))
            rule = excluded_by(file)
            if rule is None:
                kept.append(packed)
                continue
            key = "FLU412 skill" if packed.path == SKILL_FILE else "FLU411"
            problems.append(diagnostic(key, display_path(file, collection.root), artifact=artifact, rule=rule))
        skills[folder] = vetted if len(kept) == len(vetted.files) else replace(vetted, files=tuple(kept))
    markdown: dict[Path, MarkdownFile] = {}
    for path, text in collection.markdown.items():
        rule = excluded_by(path) if is_inside(collection.root, path) else None
        if rule is None:
            markdown[path] = text
        else:
            problems.append(diagnostic("FLU412 markdown", collection.display(path), artifact=artifact, rule=rule))
    problems = apply_strict(problems, strict)
    filtered = replace(collection, skills=skills, markdown=markdown, diagnostics=[*collection.diagnostics, *problems])
    return filtered, problems
