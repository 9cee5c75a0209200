"""A SKILL.md checked from its parts, and what the check said."""

from __future__ import annotations

from flue_runtime.format.diagnostics import Diagnostic
from flue_runtime.format.validate import SkillFile, check_skill_md


def check(
    frontmatter: str, directory: str | None = "my-skill", *, body: str = "Body.\n", strict: bool = False
) -> SkillFile:
    """Check a SKILL.md made of `frontmatter` (without the `---` lines) and a body."""
    text = f"---\n{frontmatter}\n---\n{body}"
    return check_skill_md(text.encode("utf-8"), "my-skill/SKILL.md", directory, strict=strict)


def codes(result: SkillFile) -> list[str]:
    return [d.code for d in result.diagnostics]


def only(result: SkillFile, code: str) -> Diagnostic:
    found = [d for d in result.diagnostics if d.code == code]
    assert len(found) == 1, result.diagnostics
    return found[0]
