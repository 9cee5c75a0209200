"""Vet one skill directory: its SKILL.md against the rules, every entry against the packing rules.

The build packs exactly what this returns; the run time's dev mode serves exactly the
same from disk, so a secret refused by one is refused by the other.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from flue_runtime.format.diagnostics import Diagnostic, apply_strict, has_errors
from flue_runtime.format.records import SKILL_FILE, SkillMetadata, content_id
from flue_runtime.format.validate import check_skill_md
from flue_runtime.format.vetting import DEFAULT_LIMITS, LARGE_FILE, Limits, PackedFile, read_regular, walk


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

    @property
    def id(self) -> str:
        return content_id(self.files)


def vet_skill(
    directory: Path,
    *,
    display: str | None = None,
    allow: Collection[Path] = (),
    strict: bool = False,
    large_file: int = LARGE_FILE,
    limits: Limits = DEFAULT_LIMITS,
) -> VettedSkill:
    """Check `directory` as a skill; `display` is how it is named in diagnostics.

    `limits` bounds the frontmatter, the number of files and their total size (FLU105,
    FLU310, FLU311); a project's `[tool.flue]` sets them for its build and its dev mode.
    """
    shown = display if display is not None else str(directory)
    walked = walk(directory, display=shown, allow=allow, large_file=large_file, limits=limits)
    diagnostics = list(walked.diagnostics)
    metadata = None
    body_offset = 0
    skill_md = next((f for f in walked.files if f.path == SKILL_FILE), None)
    if skill_md is not None:
        where = f"{shown}/{SKILL_FILE}"
        try:
            data = read_regular(directory / SKILL_FILE)
        except OSError as exc:  # changed since the walk (removed, replaced by a link or a FIFO)
            diagnostics.append(
                Diagnostic.make("FLU308", where, f"cannot read: {exc.strerror or exc}", "check it is a regular file")
            )
        else:
            checked = check_skill_md(data, where, directory.name, limit=limits.frontmatter_size)
            diagnostics.extend(checked.diagnostics)
            metadata, body_offset = checked.metadata, checked.body_offset
    elif walked.stopped:
        pass  # the walk stopped at the file limit before it met SKILL.md: FLU310 says why
    elif not any(d.path == f"{shown}/{SKILL_FILE}" for d in diagnostics):
        diagnostics.append(
            Diagnostic.make(
                "FLU101",
                shown,
                f"no {SKILL_FILE} in this skill folder",
                f"a skill folder needs a {SKILL_FILE}; create one with `flue-skills new {directory.name}`",
            )
        )
    for entry in walked.files:
        if entry.path.endswith(f"/{SKILL_FILE}"):
            inner = entry.path.rsplit("/", 2)[-2]
            diagnostics.append(
                Diagnostic.make(
                    "FLU212",
                    f"{shown}/{entry.path}",
                    f"skill `{inner}` sits inside skill `{directory.name}` ({shown}); "
                    f"it is packed as a support file of `{directory.name}`, not as a skill of its own",
                    f"move `{inner}` out of `{directory.name}` into a sibling folder",
                )
            )
    diagnostics = apply_strict(diagnostics, strict)
    if has_errors(diagnostics):
        metadata = None
    return VettedSkill(directory, metadata, tuple(walked.files), body_offset, tuple(diagnostics))
