"""How a build reports: every diagnostic on stderr, then one line, last: what was packed where, or why
nothing was.

A failure ends with `BuildError`, which the backend boundary (`flue_build.backends.boundary`)
turns into the hook process's exit status 1 (pip's, `python -m build`'s) right after our lines,
without a traceback of our frames; what the front end prints after that is its own.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TextIO

from flue_build.errors import BuildError
from flue_runtime.errors import ConfigError, FlueError, SkillError
from flue_runtime.format.diagnostics import Diagnostic, has_errors
from flue_runtime.format.paths import display_path

__all__ = ["done", "emit", "fail_on_errors", "stops_build"]


def emit(diagnostics: Sequence[Diagnostic], stream: TextIO | None = None) -> None:
    """Print every diagnostic compiler style, with hints (warnings too: a build log should show them)."""
    out = stream if stream is not None else sys.stderr
    for diagnostic in diagnostics:
        print(diagnostic.format(), file=out)
    out.flush()


def done(line: str) -> None:
    """A build step's one line of success."""
    print(f"flue-skills: {line}", file=sys.stderr, flush=True)


def fail_on_errors(diagnostics: Sequence[Diagnostic], context: str) -> None:
    """Print every diagnostic; when one is an error, end with one line naming the first error and the
    count, and stop the build (`BuildError`). `context` says what did not happen ("wheel not built")."""
    emit(diagnostics)
    if has_errors(diagnostics):
        _stop(str(SkillError(diagnostics, f"flue-skills: {context}")), diagnostics)


@contextmanager
def stops_build(context: str) -> Iterator[None]:
    """Turn a `FlueError` raised inside (bad configuration, a file changed after it was vetted) into
    its lines and the build's last line, and stop the build; `context` as for `fail_on_errors`."""
    try:
        yield
    except BuildError:
        raise
    except ConfigError as exc:
        shown = display_path(exc.path)
        for line in exc.lines(shown):
            print(line, file=sys.stderr)
        _stop(f"flue-skills: {context}: {shown}: {exc.headline}", (), exc)
    except SkillError as exc:
        emit(exc.diagnostics)
        _stop(str(SkillError(exc.diagnostics, f"flue-skills: {context}")), exc.diagnostics, exc)
    except FlueError as exc:
        _stop(f"flue-skills: {context}: {exc}", (), exc)


def _stop(line: str, diagnostics: Sequence[Diagnostic], cause: BaseException | None = None) -> None:
    print(line, file=sys.stderr, flush=True)
    raise BuildError(line, diagnostics) from cause
