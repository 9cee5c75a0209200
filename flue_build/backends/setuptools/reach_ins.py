"""Every use of setuptools' internals, each where its documented extension points do not do the job, with why.

The plugin otherwise uses what setuptools documents: the `setuptools.finalize_distribution_options` entry point,
`Distribution`, command classes (each mixin overrides its command's own methods), `egg_info.write_file` and
`setuptools.errors`. What is here is what those leave out: private modules and helpers, its readers of its own
configuration (`setuptools.config`), what a command keeps for its own bookkeeping. `tests/build/test_reach_ins.py`
builds with the oldest and the newest setuptools we support, so a release that moves one fails there first;
`tests/test_backend_internals.py` keeps every such name in this module.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "apply_setup_cfg",
    "build_outputs",
    "canonic_package_data",
    "excludes_data",
    "find_packages",
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

    Why `editable_mode`: setuptools sets it on the build sub-commands of `editable_wheel` (its `SubCommand`
    protocol, which it documents for commands to implement, not for plugins to read), and says it no other way.
    """
    return bool(getattr(command, "editable_mode", False))


def build_outputs(build_py: Any, root: Path) -> dict[Path, Path]:
    """What setuptools' build_py copies, modules and package data: absolute source → its copy.

    Why `get_output_mapping`: the audit names the route of each member of the wheel, and setuptools says where
    build_py's outputs come from only there (`SubCommand` protocol, kept for `editable_wheel`).
    """
    return {root / source: root / target for target, source in build_py.get_output_mapping().items()}


def package_data_files(build_py: Any) -> list[tuple[str, str, str, list[str]]]:
    """build_py's package data by its patterns: (package, source folder, build folder, file names).

    Why `get_data_files_without_manifest`: `data_files` builds the sdist's manifest first (running egg_info and the
    VCS file finders); `check` asks what the patterns select, without writing anything.
    """
    rows: list[tuple[str, str, str, list[str]]] = build_py.get_data_files_without_manifest()
    return rows


def excludes_data(build_py: Any, package: str, folder: str, relative: str) -> bool:
    """Whether `exclude-package-data` leaves `relative` out of `package`'s data.

    Why `exclude_data_files`: it is how build_py applies the patterns (platform forms, implicit exclusions);
    matching them ourselves could keep what setuptools drops.
    """
    return not build_py.exclude_data_files(package, folder, [relative])


def find_packages(root: Path, spec: dict[str, Any], package_dir: dict[str, str], *, namespaces: bool) -> list[str]:
    """`[tool.setuptools.packages.find]` expanded: a folder walk, `package_dir` filled as setuptools fills it.

    Why `setuptools.config.expand`: it is the finder setuptools runs for this table (`where`, `include`, `exclude`,
    `namespaces`, the `package-dir` it implies); `setuptools.find_packages` knows neither `root_dir` nor
    `fill_package_dir`.
    """
    from setuptools.config.expand import find_packages as expand

    kwargs = {key: spec[key] for key in ("where", "include", "exclude") if isinstance(spec.get(key), list)}
    if isinstance(spec.get("namespaces"), bool):
        namespaces = spec["namespaces"]
    with contextlib.chdir(root):
        return list(expand(namespaces=namespaces, fill_package_dir=package_dir, root_dir=root, **kwargs))


def canonic_package_data(data: dict[str, list[str]]) -> dict[str, list[str]]:
    """`package-data` keys as setuptools reads them (`*`: every package).

    Why `setuptools.config.expand`: the same reading setuptools applies to the table.
    """
    from setuptools.config.expand import canonic_package_data as canonic

    canonical: dict[str, list[str]] = canonic(data)
    return canonical


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
    with _quiet_distutils_log(), contextlib.chdir(root):
        for number, line in _template_lines(template):
            before = set(filelist.files)
            try:
                filelist.process_template_line(line)
            except TemplateError:
                continue  # setuptools reports a broken line itself
            if watch is not None:
                watch(number, line, before, set(filelist.files))
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


@contextlib.contextmanager
def _quiet_distutils_log() -> Iterator[None]:
    """Drop what distutils logs ("no files found matching ...") while we run the template: setuptools says it
    in its own run. distutils logs to the root logger itself, so a filter there silences it and nothing else."""
    root = logging.getLogger()

    def quiet(record: logging.LogRecord) -> bool:
        return record.levelno > logging.WARNING

    root.addFilter(quiet)
    try:
        yield
    finally:
        root.removeFilter(quiet)
