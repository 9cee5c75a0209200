"""`[tool.flue] exports`: the skills a distribution publishes for other packages, and the rule consumers meet.

An export is written as a consumer writes the spec (`acme_skills/review/SKILL.md`): a
package spec naming a skill's `SKILL.md` or a markdown file. When a distribution declares
exports, a package spec from another package must be one of them; the consumer's build
(FLU413) and the run time (`SkillNotFoundError`) say so in the same words, from here.
"""

from __future__ import annotations

from collections.abc import Sequence

from flue_runtime.format.messages import piece
from flue_runtime.format.specs import SKILL_SUFFIX, SpecKind, is_relative, spec_problem

__all__ = ["EXAMPLE", "export_kind", "export_problem", "not_exported"]


EXAMPLE = "acme_skills/review/SKILL.md"


def export_kind(spec: str) -> SpecKind:
    """A markdown file for a `.md` spec other than a `SKILL.md`; a skill otherwise."""
    return "markdown" if spec.endswith(".md") and not spec.endswith(SKILL_SUFFIX) else "skill"


def export_problem(spec: str) -> str:
    """Why `spec` cannot be an export (the scanner's spec rules, and no relative spec), or ""."""
    if is_relative(spec):
        return (
            "an export is written as other packages write the spec, starting with the package: `package/path/SKILL.md`"
        )
    return spec_problem(export_kind(spec), spec)


def not_exported(spec: str, exports: Sequence[str]) -> tuple[str, dict[str, str]]:
    """The FLU413 words for `spec`, a package spec that the providing distribution's `exports` do not list: a key of
    `messages.CODES` and its values."""
    values = {"spec": spec, "top": spec.split("/")[0]}
    if not exports:
        return "FLU413 nothing", values
    import difflib  # only when a message is made

    close = difflib.get_close_matches(spec, exports, n=1, cutoff=0.9)  # a typo, not a sibling
    guess = piece("FLU413 guess", close=close[0]) if close else ""
    return "FLU413", {**values, "guess": guess, "exports": ", ".join(sorted(exports))}
