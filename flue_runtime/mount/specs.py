"""The `<spec>` of `skill()` and `markdown()`: its form, and what it points at.

The run time applies the same form rules as the build's scanner (`flue_runtime.format.specs`:
`./x` or `../x` for a path next to the calling module, `package/path` for an installed
package), so a call the build accepted resolves, and a malformed one fails with the same
explanation.
"""

from __future__ import annotations

from dataclasses import dataclass

from flue_runtime.errors import MountError
from flue_runtime.format.specs import Kind, example_spec, is_relative, spec_problem

__all__ = ["Spec", "parse_spec"]


@dataclass(frozen=True, slots=True)
class Spec:
    """A well-formed spec: `relative` ones start with `./` or `../`, the others with a package name."""

    kind: Kind
    text: str
    relative: bool

    @property
    def segments(self) -> list[str]:
        return self.text.split("/")

    @property
    def call(self) -> str:
        return f"{self.kind}({self.text!r})"


def parse_spec(kind: Kind, spec: object) -> Spec:
    """`spec` checked for `kind`; `MountError` saying what is wrong and what a good one looks like."""
    if not isinstance(spec, str):
        raise MountError(
            f"{kind}() takes one string, the spec, not {type(spec).__name__}; for example {kind}({example_spec(kind)!r})"
        )
    problem = spec_problem(kind, spec)
    if problem:
        raise MountError(f"malformed spec {kind}({spec!r}): {problem}; for example {kind}({example_spec(kind)!r})")
    return Spec(kind, spec, is_relative(spec))
