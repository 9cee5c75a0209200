"""setuptools' own exclusion rules, and its package layout read without running project code.

- `Exclusions`: whether `[tool.setuptools] exclude-package-data` (asked of `build_py`) or a
  `MANIFEST.in` `exclude`/`prune`/`global-exclude`/`recursive-exclude` line (the template run
  by setuptools' own `FileList`) leaves a file out, and which rule.
- `static_distribution`: a `Distribution` carrying the project's packages, package folders
  and package data, read from `pyproject.toml` and `setup.cfg` as data. Letting setuptools
  read them itself would import the project's `cmdclass` modules and `attr:` values:
  `flue-skills check` and `ls` never run project code.
"""

from __future__ import annotations

import configparser
import contextlib
import fnmatch
import logging
import os
import tomllib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from flue_build.backends.setuptools.reach_ins import manifest_template_lines
from flue_runtime.errors import FlueError
from flue_runtime.format.safe_read import read_regular

__all__ = [
    "Exclusions",
    "MANIFEST_TEMPLATE",
    "find_all_modules",
    "manifest_files",
    "selected_files",
    "setup_cfg",
    "static_distribution",
]


MANIFEST_TEMPLATE = "MANIFEST.in"


class Exclusions:
    """Why setuptools' rules leave one of `candidates` (absolute paths) out, or None.

    The MANIFEST.in template is run once, over the candidates, exactly as setuptools runs
    it (its include lines glob the project; only whether a candidate survives matters).
    """

    def __init__(self, root: Path, build_py: Any, candidates: Iterable[Path]) -> None:
        self.root = root
        self.build_py = build_py
        self.packages = sorted(
            ((pkg, build_py.get_package_dir(pkg)) for pkg in build_py.packages or ()),
            key=lambda item: -len(item[1]),
        )
        self.manifest = _manifest_exclusions(root, [os.path.relpath(p, root) for p in candidates])

    def __call__(self, path: str | os.PathLike[str]) -> str | None:
        relative = os.path.relpath(path, self.root)
        return self._package_data(relative) or self.manifest.get(relative)

    def _package_data(self, relative: str) -> str | None:
        """Excluded when every package whose folder holds the file drops it from its package data
        (setuptools ships it as data of any package that keeps it)."""
        spec = self.build_py.exclude_package_data or {}
        matched: list[str] = []
        for package, folder in self.packages:
            if folder and not relative.startswith(os.path.join(folder, "")):
                continue
            with contextlib.chdir(self.root):
                if self.build_py.exclude_data_files(package, folder, [relative]):
                    return None
            patterns = [*spec.get("", []), *spec.get(package, [])]
            matched += [p for p in patterns if fnmatch.fnmatch(relative, os.path.join(folder, p))]
        if not matched:
            return None
        return f"excluded by [tool.setuptools.exclude-package-data] (`{'`, `'.join(dict.fromkeys(matched))}`)"


def _manifest_exclusions(root: Path, candidates: list[str]) -> dict[str, str]:
    """candidate (relative path) → why the sdist's file list leaves it out, for those it does: a
    MANIFEST.in line, or a VCS plugin (`setuptools.file_finders`, e.g. setuptools-scm) that does
    not list it and no MANIFEST.in line adds it back."""
    if not candidates:
        return {}
    wanted = set(candidates)
    tracked = _vcs_files(root)
    removed: dict[str, str] = {}
    if tracked is not None:
        for path in wanted - tracked:
            removed[path] = "not listed by the project's VCS file finder (ignored or untracked)"

    def watch(number: int, line: str, before: set[str], after: set[str]) -> None:
        for gone in (before - after) & wanted:
            removed[gone] = f"excluded by {MANIFEST_TEMPLATE} line {number} (`{line}`)"
        for back in (after - before) & wanted:
            removed.pop(back, None)

    _run_template(root, sorted(wanted if tracked is None else wanted & tracked), watch)
    return removed


def _vcs_files(root: Path) -> set[str] | None:
    """What the installed VCS plugins list for the project (relative paths); None when none lists anything."""
    from setuptools.command.sdist import walk_revctrl

    with contextlib.chdir(root):
        files = {os.path.normpath(path) for path in walk_revctrl()}
    return files or None


def manifest_files(root: Path) -> list[str]:
    """What the project's MANIFEST.in alone selects (relative paths): its include lines run by
    setuptools' own `FileList` over the project folder, then its exclude lines."""
    return _run_template(root, [], None)


def _run_template(root: Path, files: list[str], watch: Any) -> list[str]:
    """Run MANIFEST.in over `files` as setuptools' sdist does; `watch(line number, line, before, after)`
    sees each line's effect. The files left at the end."""
    template = root / MANIFEST_TEMPLATE
    if not template.is_file():
        return files
    from setuptools.command.egg_info import FileList
    from setuptools.errors import TemplateError

    filelist = FileList()
    filelist.files = files
    with _quiet_distutils_log(), contextlib.chdir(root):
        for number, line in manifest_template_lines(template):
            before = set(filelist.files)
            try:
                filelist.process_template_line(line)
            except TemplateError:
                continue  # setuptools reports a broken line itself
            if watch is not None:
                watch(number, line, before, set(filelist.files))
    return list(filelist.files)


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


def selected_files(root: Path, dist: Any) -> list[Path]:
    """The files a static distribution's wheel and sdist would hold beyond its modules: package
    data by its patterns, and what MANIFEST.in selects (absolute paths)."""
    with contextlib.chdir(root):
        build_py = dist.get_command_obj("build_py")
        build_py.ensure_finalized()
        data = [
            root / src_dir / name
            for _, src_dir, _, names in build_py.get_data_files_without_manifest()
            for name in names
        ]
    return data + [root / name for name in manifest_files(root)]


# --- the package layout, read statically --------------------------------------------


def static_distribution(root: Path) -> Any | None:
    """A `Distribution` with the project's packages and package data, or None when the project has a
    setup.py (only running it would tell); `ImportError` when setuptools is not installed."""
    if (root / "setup.py").exists():
        return None
    from setuptools.dist import Distribution

    attrs = {**_setup_cfg(root), **_pyproject(root)}
    with contextlib.chdir(root):
        dist = Distribution({"script_name": "setup.py", **attrs})
        if not attrs.get("packages") and not attrs.get("py_modules"):
            dist.set_defaults()  # setuptools' automatic discovery: folders only, nothing imported
    return dist


def find_all_modules(root: Path, dist: Any) -> list[tuple[str, str, str]]:
    """`build_py.find_all_modules()` of a static distribution: (package, module, file) rows."""
    with contextlib.chdir(root):
        build_py = dist.get_command_obj("build_py")
        build_py.ensure_finalized()
        return list(build_py.find_all_modules())


def _pyproject(root: Path) -> dict[str, Any]:
    try:
        with open(root / "pyproject.toml", "rb") as handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return {}
    tool = data.get("tool")
    table = tool.get("setuptools") if isinstance(tool, dict) else None
    if not isinstance(table, dict):
        return {}
    attrs: dict[str, Any] = {}
    package_dir = table.get("package-dir")
    if isinstance(package_dir, dict):
        attrs["package_dir"] = {str(k): str(v) for k, v in package_dir.items()}
    packages = table.get("packages")
    if isinstance(packages, list):
        attrs["packages"] = [str(p) for p in packages]
    elif isinstance(packages, dict) and isinstance(packages.get("find"), dict):
        attrs["packages"] = _find(root, packages["find"], attrs.setdefault("package_dir", {}), namespaces=True)
    if isinstance(table.get("py-modules"), list):
        attrs["py_modules"] = [str(m) for m in table["py-modules"]]
    from setuptools.config.expand import canonic_package_data  # "*" means every package, as setuptools reads it

    for key, name in (("package-data", "package_data"), ("exclude-package-data", "exclude_package_data")):
        if isinstance(table.get(key), dict):
            data = {str(k): [str(p) for p in v] for k, v in table[key].items() if isinstance(v, list)}
            attrs[name] = canonic_package_data(data)
    if isinstance(table.get("include-package-data", True), bool):
        attrs["include_package_data"] = table.get("include-package-data", True)
    return attrs


def setup_cfg(root: Path) -> configparser.ConfigParser | None:
    """The project's setup.cfg, read as input (no FIFO, device or file over 1 MiB: `read_regular`); empty when
    there is none, None when it cannot be read or parsed (setuptools' build then says why)."""
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string((read_regular(root / "setup.cfg", limit=1 << 20).data or b"").decode("utf-8"))
    except FileNotFoundError:
        pass
    except (FlueError, OSError, configparser.Error, UnicodeDecodeError):
        return None
    return parser


def _setup_cfg(root: Path) -> dict[str, Any]:
    parser = setup_cfg(root)
    if parser is None or not parser.has_section("options"):
        return {}
    options = parser["options"]
    attrs: dict[str, Any] = {}
    if "package_dir" in options:
        attrs["package_dir"] = dict(_pairs(options["package_dir"]))
    packages = options.get("packages", "").strip()
    if packages in ("find:", "find_namespace:"):
        where = dict(parser["options.packages.find"]) if parser.has_section("options.packages.find") else {}
        found = {key: _list(value) for key, value in where.items()}
        attrs["packages"] = _find(
            root, found, attrs.setdefault("package_dir", {}), namespaces=packages == "find_namespace:"
        )
    elif packages:
        attrs["packages"] = _list(packages)
    if "py_modules" in options:
        attrs["py_modules"] = _list(options["py_modules"])
    for section, name in (
        ("options.package_data", "package_data"),
        ("options.exclude_package_data", "exclude_package_data"),
    ):
        if parser.has_section(section):
            attrs[name] = {("" if k == "*" else k): _list(v) for k, v in parser[section].items()}
    attrs["include_package_data"] = options.get("include_package_data", "false").strip().lower() in ("true", "1", "yes")
    return attrs


def _find(root: Path, spec: dict[str, Any], package_dir: dict[str, str], *, namespaces: bool) -> list[str]:
    """`packages = {find = ...}` / `find:` expanded by setuptools' own finder (a folder walk)."""
    from setuptools.config.expand import find_packages

    kwargs = {key: spec[key] for key in ("where", "include", "exclude") if isinstance(spec.get(key), list)}
    if isinstance(spec.get("namespaces"), bool):
        namespaces = spec["namespaces"]
    with contextlib.chdir(root):
        return list(find_packages(namespaces=namespaces, fill_package_dir=package_dir, root_dir=root, **kwargs))


def _list(value: str) -> list[str]:
    return [item.strip() for line in value.splitlines() for item in line.split(",") if item.strip()]


def _pairs(value: str) -> Iterator[tuple[str, str]]:
    for line in value.splitlines():
        if "=" in line:
            key, _, folder = line.partition("=")
            yield key.strip(), folder.strip()
