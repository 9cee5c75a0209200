"""How a build reports: every diagnostic on stderr, then one exception whose message fits one line."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

from flue_runtime.errors import SkillError
from flue_runtime.format.diagnostics import Diagnostic, has_errors, summary


def emit(diagnostics: Sequence[Diagnostic], stream: TextIO | None = None) -> None:
    """Print every diagnostic compiler style, with hints (warnings too: a build log should show them)."""
    out = stream if stream is not None else sys.stderr
    for diagnostic in diagnostics:
        print(diagnostic.format(), file=out)
    out.flush()


def fail_on_errors(diagnostics: Sequence[Diagnostic], context: str, checked: int = 0) -> None:
    """Print everything; raise `SkillError` (first problem and the count, one line) when any is an error."""
    emit(diagnostics)
    if has_errors(diagnostics):
        print(f"{context}: " + summary(diagnostics, checked, "reference"), file=sys.stderr)
        raise SkillError(diagnostics, context)
