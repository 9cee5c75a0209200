"""Vet one skill folder: its SKILL.md against the rules, every entry against the packing rules.

The build packs exactly what this returns; dev mode and workspace skills serve exactly
the same from disk, and a memory sandbox's skills go through the same walk
(`vet_tree`), so a secret refused by one is refused by all. SKILL.md is checked from the
very bytes the walk hashed.
"""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from flue_runtime.format.diagnostics import Diagnostic, apply_strict, bounded, diagnostic, has_errors
from flue_runtime.format.records import SKILL_FILE, PackedFile, SkillMetadata, content_id
from flue_runtime.format.trees import DiskTree, Tree
from flue_runtime.format.triggers import TRIGGERS_FILE, trigger_diagnostics
from flue_runtime.format.validate import check_skill_md
from flue_runtime.format.vetting import DEFAULT_LIMITS, LARGE_FILE, Limits, allowed_paths, walk

__all__ = ["VettedSkill", "vet_skill", "vet_tree"]


@dataclass(frozen=True)
class VettedSkill:
    """A skill directory as it may be packed: its fields, its files, and every problem found."""

    directory: Path
    metadata: SkillMetadata | None
    files: tuple[PackedFile, ...]
    body_offset: int
    diagnostics: tuple[Diagnostic, ...]

    @property
    def ok(self) -> bool:
        return self.metadata is not None and not has_errors(self.diagnostics)

    @functools.cached_property
    def id(self) -> str:
        return content_id(self.files)


def vet_skill(
    directory: Path,
    *,
    display: str | None = None,
    allow: Collection[str | os.PathLike[str]] | None = None,
    strict: bool = False,
    large_file: int = LARGE_FILE,
    limits: Limits = DEFAULT_LIMITS,
) -> VettedSkill:
    """Check the folder `directory` as a skill; `display` is how it is named in diagnostics.

    `allow`: paths (absolute, or relative to the working folder) of files a project lets
    through although they look like secrets; None for a skill in no project (`FlueConfig.allow_list`).
    `limits` bounds the frontmatter, the number of files and their total size (FLU105,
    FLU310, FLU311); a project's `[tool.flue]` sets them for its build and its dev mode.
    """
    return vet_tree(
        DiskTree(directory),
        directory,
        display=display if display is not None else str(directory),
        allow=None if allow is None else allowed_paths(directory, allow),
        strict=strict,
        large_file=large_file,
        limits=limits,
    )


def vet_tree(
    tree: Tree,
    directory: Path,
    *,
    display: str,
    allow: Collection[str] | None = None,
    strict: bool = False,
    large_file: int = LARGE_FILE,
    limits: Limits = DEFAULT_LIMITS,
) -> VettedSkill:
    """Check any tree as a skill whose folder is named `directory.name` (`allow`: paths relative to the tree,
    None for a skill in no project)."""
    keep = (SKILL_FILE, TRIGGERS_FILE)
    walked = walk(tree, display=display, allow=allow, large_file=large_file, limits=limits, keep=keep)
    diagnostics = list(walked.diagnostics)
    metadata = None
    body_offset = 0
    skill_md = walked.kept.get(SKILL_FILE)
    if skill_md is not None:
        checked = check_skill_md(skill_md, f"{display}/{SKILL_FILE}", directory.name, limit=limits.frontmatter_size)
        diagnostics.extend(checked.diagnostics)
        metadata, body_offset = checked.metadata, checked.body_offset
    elif walked.stopped:
        pass  # the walk stopped at the file limit before it met SKILL.md: FLU310 says why
    elif not any(d.path == f"{display}/{SKILL_FILE}" for d in diagnostics):
        diagnostics.append(_no_skill_file(tree, display, directory.name))
    for entry in walked.files:
        if entry.path.endswith(f"/{SKILL_FILE}"):
            inner = entry.path.rsplit("/", 2)[-2]
            diagnostics.append(
                diagnostic("FLU212", f"{display}/{entry.path}", inner=inner, outer=directory.name, display=display)
            )
    triggers = walked.kept.get(TRIGGERS_FILE)
    if triggers is not None:  # FLU316: the eval set `flue-skills eval` reads
        diagnostics.extend(trigger_diagnostics(triggers, f"{display}/{TRIGGERS_FILE}"))
    diagnostics = apply_strict(bounded(diagnostics), strict)
    if has_errors(diagnostics):
        metadata = None
    return VettedSkill(directory, metadata, tuple(walked.files), body_offset, tuple(diagnostics))


def _no_skill_file(tree: Tree, display: str, name: str) -> Diagnostic:
    """FLU101 for a folder whose walk met no `SKILL.md` file: none at all, or a folder of that name."""
    try:
        folder = stat.S_ISDIR(tree.stat(SKILL_FILE).mode)
    except OSError:
        folder = False
    if folder:
        return diagnostic("FLU101 folder", f"{display}/{SKILL_FILE}", name=name)
    return diagnostic("FLU101 missing", display, name=name)
