"""The form of a `skill()`/`markdown()` spec: one rule for the scanner, the run time and `[tool.flue] exports`.

`./x` or `../x` names a path next to the calling module; otherwise the first segment is an
importable package (`acme_skills/review/SKILL.md`). It sits in the format layer because
the configuration (`[tool.flue] exports`) is checked with it too. `parse_spec` is the run time's
reading: a call the build accepted resolves, and a malformed one fails with the same explanation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from flue_runtime.errors import MountError

__all__ = [
    "IDENTIFIER",
    "SKILL_SUFFIX",
    "SpecKind",
    "Spec",
    "example_spec",
    "is_relative",
    "parse_spec",
    "spec_problem",
]


SpecKind = Literal["skill", "markdown"]
SKILL_SUFFIX = "/SKILL.md"
#: A plain (ASCII) Python identifier: a package name a spec may start with.
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def is_relative(spec: str) -> bool:
    """A spec next to the calling module (`./` or `../`), as opposed to a package spec."""
    return spec.startswith(("./", "../"))


def spec_problem(kind: SpecKind, spec: str) -> str:
    """Why `spec` is not a well-formed spec for `kind`, or "" when it is (the scanner's rules)."""
    if not spec:
        return "the spec is empty"
    if "\\" in spec:
        return "the spec holds a backslash; use `/` separators"
    if spec.startswith("/") or (len(spec) > 1 and spec[1] == ":"):
        return "the spec is an absolute path; use `./` for a path next to this module, or `package/path`"
    if "\x00" in spec:
        return "the spec holds a NUL byte"
    segments = spec.split("/")
    if segments[0] in (".", ".."):
        leading = 1
        while leading < len(segments) and segments[leading] == ".." and segments[0] != ".":
            leading += 1
        rest = segments[leading:] if segments[0] == ".." else segments[1:]
    else:
        rest = segments
        if not IDENTIFIER.match(segments[0]):
            return f"`{segments[0]}` is not an importable package name; start a relative spec with `./` or `../`"
    if not rest or any(s in ("", ".", "..") for s in rest):
        return "the spec holds an empty, `.` or misplaced `..` segment"
    if kind == "skill" and not spec.endswith(SKILL_SUFFIX):
        return "a `skill()` spec names the skill's SKILL.md and must end in `/SKILL.md`"
    if kind == "markdown" and not spec.endswith(".md"):
        return "a `markdown()` spec names a markdown file and must end in `.md`"
    return ""


def example_spec(kind: SpecKind) -> str:
    """A well-formed spec of `kind`, for messages."""
    return "./skills/refunds/SKILL.md" if kind == "skill" else "./prompts/system.md"


@dataclass(frozen=True, slots=True)
class Spec:
    """A well-formed spec: `relative` ones start with `./` or `../`, the others with a package name."""

    kind: SpecKind
    text: str
    relative: bool

    @property
    def segments(self) -> list[str]:
        return self.text.split("/")

    @property
    def call(self) -> str:
        return f"{self.kind}({self.text!r})"


def parse_spec(kind: SpecKind, spec: object) -> Spec:
    """`spec` checked for `kind`; `MountError` saying what is wrong and what a good one looks like."""
    if not isinstance(spec, str):
        raise MountError(
            f"{kind}() takes one string, the spec, not {type(spec).__name__}; for example {kind}({example_spec(kind)!r})"
        )
    problem = spec_problem(kind, spec)
    if problem:
        raise MountError(f"malformed spec {kind}({spec!r}): {problem}; for example {kind}({example_spec(kind)!r})")
    return Spec(kind, spec, is_relative(spec))
