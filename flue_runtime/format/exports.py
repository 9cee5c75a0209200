"""`[tool.flue] exports`: the skills a distribution publishes for other packages, and the rule consumers meet.

An export is written as a consumer writes the spec (`acme_skills/review/SKILL.md`): a
package spec naming a skill's `SKILL.md` or a markdown file. When a distribution declares
exports, a package spec from another package must be one of them; the consumer's build
(FLU413) and the run time (`SkillNotFoundError`) say so in the same words, from here.
"""

from __future__ import annotations

from collections.abc import Sequence

from flue_runtime.format.specs import SKILL_SUFFIX, Kind, is_relative, spec_problem

__all__ = ["EXAMPLE", "export_kind", "export_problem", "not_exported"]


EXAMPLE = "acme_skills/review/SKILL.md"


def export_kind(spec: str) -> Kind:
    """A markdown file for a `.md` spec other than a `SKILL.md`; a skill otherwise."""
    return "markdown" if spec.endswith(".md") and not spec.endswith(SKILL_SUFFIX) else "skill"


def export_problem(spec: str) -> str:
    """Why `spec` cannot be an export (the scanner's spec rules, and no relative spec), or ""."""
    if is_relative(spec):
        return (
            "an export is written as other packages write the spec, starting with the package: `package/path/SKILL.md`"
        )
    return spec_problem(export_kind(spec), spec)


def not_exported(spec: str, exports: Sequence[str]) -> tuple[str, str]:
    """The message and the hint for `spec`, a package spec that the providing distribution's `exports` do not list."""
    top = spec.split("/")[0]
    message = f"`{spec}` is not exported: the distribution providing `{top}` declares [tool.flue] exports"
    if not exports:
        return message, (
            "it exports nothing, so none of its skills resolve from other packages; "
            "ask its maintainers to list the spec in their [tool.flue] exports"
        )
    import difflib  # only when a message is made

    close = difflib.get_close_matches(spec, exports, n=1, cutoff=0.9)  # a typo, not a sibling
    guess = f"did you mean `{close[0]}`? " if close else ""
    return message, (
        f"{guess}it exports {', '.join(sorted(exports))}; use one of those, "
        "or ask its maintainers to list the spec in their [tool.flue] exports"
    )
