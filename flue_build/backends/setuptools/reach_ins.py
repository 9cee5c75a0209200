"""Every use of a build backend's internals, each where no documented extension point does the job.

The adapters otherwise use what setuptools and hatchling document for plugins: the
`setuptools.finalize_distribution_options` entry point, command classes, `egg_info.write_file`,
`setuptools.errors`, hatchling's `BuildHookInterface` and its `metadata`. What is here is what
those leave out. Each function says why; `tests/build/test_reach_ins.py` builds with the oldest
and the newest setuptools and hatchling we support, so a backend release that moves one fails
there first.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

__all__ = ["manifest_template_lines", "wrap_command_classes"]


_WRAPPED = "_flue_skills_wrapped"


def wrap_command_classes(dist: Any, mixins: Mapping[str, type]) -> None:
    """Make every command in `mixins` that `dist` looks up a subclass of its mixin and of the class setuptools
    would have used (its own, or the project's `cmdclass`), so the project's commands still run, under ours.

    Why not `dist.cmdclass` or the `distutils.commands` entry points: setuptools assigns the project's
    `[tool.setuptools.cmdclass]` (and setup.cfg's `cmdclass`) to `dist.cmdclass`, replacing the mapping,
    in `parse_config_files`, which runs after every `finalize_distribution_options` hook; no later hook
    exists before commands run. A `distutils.commands` entry point would stand in for setuptools' own
    `build_py` in every project of the environment and lose to any project's `cmdclass`. So the lookup,
    `Distribution.get_command_class`, is wrapped on this one `dist`, and the subclass made when asked.
    """
    if getattr(dist, _WRAPPED, False):
        return
    original: Callable[[str], type] = dist.get_command_class
    made: dict[tuple[str, type], type] = {}

    def get_command_class(command: str) -> type:
        base = original(command)
        mixin = mixins.get(command)
        if mixin is None or issubclass(base, mixin):
            return base
        if (command, base) not in made:
            made[command, base] = type(
                base.__name__, (mixin, base), {"command_name": command, "__module__": base.__module__}
            )
        return made[command, base]

    dist.get_command_class = get_command_class
    setattr(dist, _WRAPPED, True)


def manifest_template_lines(template: Path) -> Iterator[tuple[int, str]]:
    """The lines of a MANIFEST.in as setuptools' sdist reads them (comments stripped, `\\` continuations
    joined, blank lines skipped), each with its line number in the file.

    Why distutils' `TextFile`: setuptools reads the template through it (`sdist.read_template`) and
    offers no public reader, nor one that says which line a rule came from; reading it with the same
    class joins and strips lines exactly as setuptools does, so the line we name is the one it ran.
    """
    from setuptools._distutils import text_file

    # TextFile does not count lines holding only a comment: blank them first (it counts blank lines),
    # so the numbers are the file's own.
    text = template.read_text(encoding="utf-8")
    counted = "".join("\n" if line.lstrip(" \t\f\v").startswith("#") else line for line in text.splitlines(True))
    options = dict(strip_comments=True, skip_blanks=True, join_lines=True, lstrip_ws=True, rstrip_ws=True)
    make: Any = text_file.TextFile  # untyped in setuptools
    lines = make(os.fspath(template), file=io.StringIO(counted), collapse_join=True, **options)
    try:
        while (line := lines.readline()) is not None:
            current = lines.current_line
            yield (current if isinstance(current, int) else current[0]), line
    finally:
        lines.close()
