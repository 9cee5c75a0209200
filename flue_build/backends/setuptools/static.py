"""What setuptools would select for a project and what it requires at run time, from its configuration read as
data: `pyproject.toml` and `setup.cfg` as setuptools reads them, but no setup.py, `cmdclass` or `attr:` value
run, and every file read as input (`read_regular`). For `flue-skills check` and `ls`, which never run project
code.
"""

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

__all__ = ["requirements", "setup_cfg", "sources", "static_distribution", "view"]

#: A file `check` reads to learn the requirements is not read past this (the build reads it).
_READ_LIMIT = 1 << 20


def view(root: Path, pyproject: dict[str, Any]) -> BackendView:
    """What the wheel and the sdist would select, and the wheel's exclusions; with a setup.py (only running it
    would tell what it selects) every skill folder of the project is vetted."""
    dist = static_distribution(root, pyproject)
    if dist is None:
        return BackendView(files=[found.file for found in find_skills(root)])
    build_py = _build_py(root, dist)
    with contextlib.chdir(root):
        data = [
            os.path.join(folder, name)
            for _, folder, _, names in reach_ins.package_data_files(build_py)
            for name in names
        ]
        modules = [file for _, _, file in build_py.find_all_modules()]  # a module in a skill folder ships too
    files = [root / name for name in [*data, *manifest_files(root), *modules]]
    return BackendView(lambda candidates: Exclusions(root, build_py, candidates), files)


def sources(root: Path, pyproject: dict[str, Any]) -> list[Source] | None:
    """The modules setuptools' build_py would build; None with a setup.py or a configuration setuptools rejects."""
    try:
        dist = static_distribution(root, pyproject)
        if dist is None:
            return None
        with contextlib.chdir(root):
            return module_sources(root, _build_py(root, dist).find_all_modules())
    except Exception:  # not installed, or an invalid configuration: setuptools reports it at build time
        return None


def static_distribution(root: Path, pyproject: dict[str, Any]) -> Any | None:
    """A `Distribution` with the project's packages and package data, or None when the project has a
    setup.py; `ImportError` when setuptools is not installed."""
    if (root / "setup.py").exists():
        return None
    from setuptools.dist import Distribution

    attrs = _pyproject(root, pyproject)
    with contextlib.chdir(root):
        dist = Distribution({"script_name": "setup.py", **attrs})
    parser = setup_cfg(root)
    if parser is not None:
        reach_ins.apply_setup_cfg(dist, parser, root)  # fills only what pyproject.toml left unset, as setuptools
    if not dist.packages and not dist.py_modules:
        with contextlib.chdir(root):
            dist.set_defaults()  # setuptools' automatic discovery: folders only, nothing imported
    return dist


def _build_py(root: Path, dist: Any) -> Any:
    """`dist`'s build_py, finalised in the project folder (its package folders are relative)."""
    with contextlib.chdir(root):
        build_py = dist.get_command_obj("build_py")
        build_py.ensure_finalized()
    return build_py


def _pyproject(root: Path, pyproject: dict[str, Any]) -> dict[str, Any]:
    """`[tool.setuptools]`'s layout keys as `Distribution` attributes, `packages.find` and package data expanded
    by setuptools' own readers."""
    tool = pyproject.get("tool")
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
        package_dir = attrs.setdefault("package_dir", {})
        attrs["packages"] = reach_ins.find_packages(root, packages["find"], package_dir, namespaces=True)
    if isinstance(table.get("py-modules"), list):
        attrs["py_modules"] = [str(m) for m in table["py-modules"]]
    for key in ("package-data", "exclude-package-data"):
        if isinstance(table.get(key), dict):
            data = {str(k): [str(p) for p in v] for k, v in table[key].items() if isinstance(v, list)}
            attrs[key.replace("-", "_")] = reach_ins.canonic_package_data(data)
    return attrs


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
        from setuptools.dist import Distribution

        dist = Distribution()
        reach_ins.apply_setup_cfg(dist, parser, root)
    except Exception:  # not installed, or a configuration setuptools rejects: its build says so
        return None
    return [str(requirement) for requirement in dist.install_requires or []]


def _requirement_files(root: Path, pyproject: dict[str, Any]) -> list[str] | None:
    """`[tool.setuptools.dynamic] dependencies = {file = [...]}`: requirement files, read as setuptools reads them
    but bounded, never a FIFO or a device (setuptools' `expand.read_files` opens them plainly: a FIFO would
    block `check`)."""
    system = pyproject.get("build-system")
    backend = system.get("build-backend") if isinstance(system, dict) else None
    if isinstance(backend, str) and not backend.startswith("setuptools"):
        return None
    tool = pyproject.get("tool")
    setuptools = tool.get("setuptools") if isinstance(tool, dict) else None
    dynamic = setuptools.get("dynamic") if isinstance(setuptools, dict) else None
    entry = dynamic.get("dependencies") if isinstance(dynamic, dict) else None
    files = entry.get("file") if isinstance(entry, dict) else None
    if isinstance(files, str):
        files = [files]
    if not isinstance(files, list):
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
