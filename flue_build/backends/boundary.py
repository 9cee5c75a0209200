"""The backend boundary: where a build flue-skills stopped ends the front end's hook process.

A `BuildError` is raised after the build printed why. Raised out of a hatchling hook or a setuptools
command, it would end pip's or `python -m build`'s hook process with a traceback of our frames after
those lines. The hook's and the commands' entry methods run inside `exits`, which turns it into
`SystemExit(1)`: status 1 and nothing more printed (the `BuildError`, with its diagnostics, stays the
exit's `__cause__` for code that runs a backend in its own process). Nothing else turns an error into
an exit but the command line. Tested by `tests/build/test_build_error.py`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from flue_build.errors import BuildError

__all__ = ["exits"]


@contextmanager
def exits() -> Iterator[None]:
    """A `BuildError` raised inside ends the process with status 1, after what the build printed."""
    try:
        yield
    except BuildError as error:
        raise SystemExit(1) from error
