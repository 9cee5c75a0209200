"""The exceptions flue raises. Each carries what a user needs to fix the problem."""

from __future__ import annotations

TYPE_CHECKING = False  # typing stays off the mount path (see flue_runtime/__init__.py)
if TYPE_CHECKING:  # pragma: no cover  (diagnostics pulls in dataclasses, enum and json: not needed to raise)
    from typing import Sequence

    from .diagnostics import Diagnostic


class FlueError(Exception):
    """Base class of every error flue raises on purpose."""


class SkillError(FlueError):
    """One or more problems in skills; `diagnostics` holds all of them.

    The message is one line naming the first problem and the count, because pip and
    other front ends often show only the last line of a failure.
    """

    def __init__(self, diagnostics: Sequence[Diagnostic], context: str = "") -> None:
        self.diagnostics = tuple(diagnostics)
        errors = [d for d in self.diagnostics if d.is_error] or list(self.diagnostics)
        first = errors[0] if errors else None
        head = f"{context}: " if context else ""
        if first is None:
            message = f"{head}invalid skill"
        else:
            message = f"{head}{first.location}: {first.code} {first.message}"
            if len(errors) > 1:
                message += f" (and {len(errors) - 1} more error{'s' if len(errors) > 2 else ''})"
        super().__init__(message)

    def report(self) -> str:
        """Every diagnostic, compiler style, with hints."""
        return "\n".join(d.format() for d in self.diagnostics)
