"""What setuptools would select for a project and what it requires at run time, for `flue-skills check` and
`ls`: `pyproject.toml` and `setup.cfg` read as setuptools reads them, every file as input (`read_regular`),
no setup.py, `cmdclass` or `attr:` run."""

from __future__ import annotations

import configparser
import contextlib
import os
from pathlib import Path
from typing import Any

from flue_build.backends.setuptools import reach_ins
from flue_build.backends.setuptools.selection import Exclusions, manifest_files, module_sources
from flue_build.backends.view import BackendView
from flue_build.scan.found import find_skills
from flue_build.scan.sources import Source
from flue_runtime.errors import FlueError
from flue_runtime.format.paths import is_inside
from flue_runtime.format.safe_read import read_regular

__all__ = ["requirements", "setup_cfg", "sources", "static_build_py", "view"]

#: A file `check` reads to learn the requirements is not read past this (the build reads it).
_READ_LIMIT = 1 << 20


def view(root: Path, pyproject: dict[str, Any]) -> BackendView:
    """What the wheel and the sdist would select, and the wheel's exclusions; with a setup.py (only running it
    would tell what it selects) every skill folder of the project is vetted."""
    build_py = static_build_py(root, pyproject)
    if build_py is None:
        return BackendView(files=[found.file for found in find_skills(root)])
    with contextlib.chdir(root):
        data = [os.path.join(d, name) for _, d, _, names in reach_ins.package_data_files(build_py) for name in names]
        modules = [file for _, _, file in build_py.find_all_modules()]  # a module in a skill folder ships too
    files = [root / name for name in [*data, *manifest_files(root), *modules]]
    return BackendView(lambda candidates: Exclusions(root, build_py, candidates), files)


def sources(root: Path, pyproject: dict[str, Any]) -> list[Source] | None:
    """The modules setuptools' build_py would build; None with a setup.py or a configuration setuptools rejects."""
    try:
        build_py = static_build_py(root, pyproject)
        with contextlib.chdir(root):
            return None if build_py is None else module_sources(root, build_py.find_all_modules())
    except Exception:  # not installed, or an invalid configuration: setuptools reports it at build time
        return None


def static_build_py(root: Path, pyproject: dict[str, Any]) -> Any | None:
    """build_py of a `Distribution` with the project's packages and package data, or None when the project has a
    setup.py; `ImportError` when setuptools is not installed."""
    if (root / "setup.py").exists():
        return None
    from setuptools.dist import Distribution

    dist = Distribution({"script_name": "setup.py"})
    parser = setup_cfg(root)
    if parser is not None:
        reach_ins.apply_setup_cfg(dist, parser, root)
    reach_ins.apply_pyproject(dist, pyproject, root)  # after setup.cfg, over it, as setuptools applies them
    with contextlib.chdir(root):  # package folders are relative to the project
        if not dist.packages and not dist.py_modules:
            dist.set_defaults()  # setuptools' automatic discovery: folders only, nothing imported
        build_py = dist.get_command_obj("build_py")
        build_py.ensure_finalized()
    return build_py


def setup_cfg(root: Path) -> configparser.ConfigParser | None:
    """The project's setup.cfg, read as input (no FIFO, device or file over 1 MiB: `read_regular`); empty when
    there is none, None when it cannot be read or parsed (setuptools' build then says why)."""
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string((read_regular(root / "setup.cfg", limit=_READ_LIMIT).data or b"").decode("utf-8"))
    except FileNotFoundError:
        pass
    except (FlueError, OSError, configparser.Error, UnicodeDecodeError):
        return None
    return parser


def requirements(root: Path, pyproject: dict[str, Any]) -> list[str] | None:
    """The runtime requirements setuptools would compute for a project whose `[project]` does not list them
    (`[tool.setuptools.dynamic]` files, setup.cfg's `install_requires`); None when only the build can tell."""
    if isinstance(pyproject.get("project"), dict):
        return _requirement_files(root, pyproject)
    parser = None if (root / "setup.py").exists() else setup_cfg(root)
    if parser is None or parser.get("options", "install_requires", fallback="").startswith(("file:", "attr:")):
        return None
    try:
        build_py: Any = static_build_py(root, pyproject)  # not None: no setup.py
    except Exception:  # not installed, or a configuration setuptools rejects: its build says so
        return None
    return [str(requirement) for requirement in build_py.distribution.install_requires or []]


def _requirement_files(root: Path, pyproject: dict[str, Any]) -> list[str] | None:
    """`[tool.setuptools.dynamic] dependencies = {file = [...]}`: requirement files, read as setuptools reads them
    but bounded, never a FIFO or a device (setuptools' `expand.read_files` opens them plainly: a FIFO would
    block `check`)."""
    backend = _nested(pyproject, "build-system", "build-backend")
    files = _nested(pyproject, "tool", "setuptools", "dynamic", "dependencies", "file")
    files = [files] if isinstance(files, str) else files
    if (isinstance(backend, str) and not backend.startswith("setuptools")) or not isinstance(files, list):
        return None
    found: list[str] = []
    for name in files:
        path = root / str(name)
        if not is_inside(root, Path(os.path.normpath(path))):
            return None  # setuptools refuses a file outside the project: its build says so
        try:
            text = read_regular(path, limit=_READ_LIMIT, follow=True).data or b""
            lines = text.decode("utf-8").splitlines()
        except (FlueError, OSError, UnicodeDecodeError):
            return None  # setuptools fails the build on it, or reads what only the build can tell
        found += [line.split("#", 1)[0].strip() for line in lines]
    return [line for line in found if line and not line.startswith("-")]


def _nested(table: Any, *keys: str) -> Any:
    """`table[key][key]...`, None where a table is missing."""
    for key in keys:
        table = table.get(key) if isinstance(table, dict) else None
    return table
