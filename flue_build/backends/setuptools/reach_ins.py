"""Every use of setuptools' internals, each with why: what its documented extension points (the
`setuptools.finalize_distribution_options` entry point, `Distribution`, command classes, `setuptools.errors`) leave
out. `tests/build/test_reach_ins.py` builds with the oldest and the newest setuptools we support;
`tests/test_backend_internals.py` keeps every such name here."""

from __future__ import annotations

import contextlib
import copy
import io
import logging
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "apply_pyproject",
    "apply_setup_cfg",
    "build_outputs",
    "excludes_data",
    "is_editable",
    "package_data_files",
    "run_template",
    "vcs_files",
    "wrap_command_classes",
]


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


def is_editable(command: Any) -> bool:
    """Whether `command` (build_py) runs for an editable install.

    Why `editable_mode`: `editable_wheel` says it to its sub-commands (the `SubCommand` protocol) and no other way.
    """
    return bool(getattr(command, "editable_mode", False))


def build_outputs(build_py: Any, root: Path) -> dict[Path, Path]:
    """What setuptools' build_py copies, modules and package data: absolute source → its copy.

    Why `get_output_mapping`: only there does setuptools say where build_py's outputs come from (`SubCommand`).
    """
    return {root / source: root / target for target, source in build_py.get_output_mapping().items()}


def package_data_files(build_py: Any) -> Any:
    """build_py's package data by its patterns: (package, source folder, build folder, file names).

    Why `get_data_files_without_manifest`: `data_files` runs egg_info first; `check` writes nothing.
    """
    return build_py.get_data_files_without_manifest()


def excludes_data(build_py: Any, package: str, folder: str, relative: str) -> bool:
    """Whether `exclude-package-data` leaves `relative` out of `package`'s data.

    Why `exclude_data_files`: it is how build_py applies the patterns (platform forms, implicit exclusions).
    """
    return not build_py.exclude_data_files(package, folder, [relative])


def apply_pyproject(dist: Any, pyproject: dict[str, Any], root: Path) -> None:
    """Set `dist`'s package layout from `[tool.setuptools]` (`package-dir`, `packages` and its `find`, `py-modules`,
    package data) as setuptools applies it; nothing else of the table is read.

    Why `setuptools.config.pyprojecttoml.expand_configuration`: it is setuptools' reader of the table (`find`, the
    `package-dir` it implies, `*` in package data); `apply_configuration` would also import `cmdclass` modules and
    read `dynamic` values. setuptools sets each key as the `Distribution` attribute of that name.
    """
    from setuptools.config.pyprojecttoml import expand_configuration

    table = pyproject.get("tool", {}).get("setuptools", {})  # a table, or setuptools' build fails on it
    layout = {key: copy.deepcopy(table[key]) for key in _LAYOUT if key in table}
    with contextlib.chdir(root):
        expanded = expand_configuration({"tool": {"setuptools": layout}}, root, dist=dist)
    for key, value in expanded["tool"]["setuptools"].items():
        setattr(dist, key.replace("-", "_"), value)


#: The keys of `[tool.setuptools]` that say which packages and files a build selects.
_LAYOUT = ("package-dir", "packages", "py-modules", "package-data", "exclude-package-data")


def apply_setup_cfg(dist: Any, parser: Any, root: Path) -> None:
    """Set `dist`'s attributes from setup.cfg's `[options]` sections (`parser`: the file read as input), each read
    as setuptools reads it; what would run the project's code or read its files (`cmdclass`, `attr:`, `file:`) is
    left to the build.

    Why `setuptools.config.setupcfg.parse_configuration`: it is setuptools' parser of those values (lists by line
    or comma, `find:` and `[options.packages.find]`, package data by package, requirements by line or `;`);
    `Distribution.parse_config_files` would also import `cmdclass` and `attr:` modules.
    """
    from setuptools.config.setupcfg import parse_configuration

    options = {
        section: {
            key: ("setup.cfg", value)
            for key, value in parser[section].items()
            if key != "cmdclass" and not value.startswith(("attr:", "file:"))
        }
        for section in parser.sections()
        if section.split(".")[0] == "options"
    }
    with contextlib.chdir(root):
        parse_configuration(dist, options, ignore_option_errors=True)


def vcs_files(root: Path) -> set[str] | None:
    """What the installed VCS plugins (`setuptools.file_finders`, e.g. setuptools-scm) list for the project
    (relative paths); None when none lists anything.

    Why `setuptools.command.sdist.walk_revctrl`: egg_info fills the sdist's file list from it, and setuptools offers
    no other way to ask the plugins, which it loads by entry point.
    """
    from setuptools.command.sdist import walk_revctrl

    with contextlib.chdir(root):
        files = {os.path.normpath(path) for path in walk_revctrl()}
    return files or None


def run_template(root: Path, template: Path, files: list[str], watch: Any) -> list[str]:
    """Run MANIFEST.in (`template`) over `files` (relative paths) as setuptools' sdist does; `watch(line number,
    line, before, after)` sees each line's effect. The files left at the end.

    Why `FileList.process_template_line` and distutils' `TextFile`: setuptools runs the template through them
    (`sdist.read_template`) and offers no public reader, nor one that says which line a rule came from; reading
    and running it with the same classes joins, strips and matches lines exactly as setuptools does, so the line
    we name is the one it ran.
    """
    from setuptools.command.egg_info import FileList
    from setuptools.errors import TemplateError

    filelist = FileList()
    filelist.files = files
    quiet = logging.root.manager.disable
    logging.disable(logging.WARNING)  # what distutils logs ("no files found matching ..."): setuptools says it too
    try:
        with contextlib.chdir(root):
            for number, line in _template_lines(template):
                before = set(filelist.files)
                try:
                    filelist.process_template_line(line)
                except TemplateError:
                    continue  # setuptools reports a broken line itself
                if watch is not None:
                    watch(number, line, before, set(filelist.files))
    finally:
        logging.disable(quiet)
    return list(filelist.files)


def _template_lines(template: Path) -> Iterator[tuple[int, str]]:
    """The lines of a MANIFEST.in as setuptools' sdist reads them (comments stripped, `\\` continuations
    joined, blank lines skipped), each with its line number in the file."""
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
