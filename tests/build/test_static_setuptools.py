"""setuptools' package layout as `check` reads it (`flue_build.backends.setuptools.static`, issue 42 item 5) is the
one setuptools itself reads: setup.cfg's `[options]` through setuptools' parser, `[tool.setuptools]` through its
expander, each compared here with setuptools' own `Distribution.parse_config_files` on projects whose configuration
runs nothing (no `cmdclass`, `attr:` or `file:`), in process."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from setuptools.dist import Distribution
from support.projects import write_module

from flue_build.backends.setuptools.static import static_build_py
from flue_runtime.format.config import read_pyproject

PROJECT = '[build-system]\nrequires = ["setuptools>=77"]\nbuild-backend = "setuptools.build_meta"\n\n'
PROJECT += '[project]\nname = "layout-demo"\nversion = "1.0"\n'

#: name → (setup.cfg, what pyproject.toml adds to PROJECT)
CASES = {
    "cfg: find under src, package_dir on one line": (
        "[options]\npackage_dir = =src, tools = scripts\npackages = find:\n\n"
        "[options.packages.find]\nwhere = src\nexclude =\n    demo.tests*\n\n"
        "[options.package_data]\n* = *.md\ndemo = skills/*/*.txt, skills/*/*.md\n\n"
        "[options.exclude_package_data]\ndemo = *.draft.md\n",
        "",
    ),
    "cfg: packages listed by line, modules by comma": (
        "[options]\npackage_dir =\n    =src\npackages =\n    demo\n    demo.skills\npy_modules = top, other\n",
        "",
    ),
    "pyproject: find without namespaces, package data by package and for all": (
        "",
        '\n[tool.setuptools.packages.find]\nwhere = ["src"]\nexclude = ["demo.tests*"]\nnamespaces = false\n'
        '\n[tool.setuptools.package-data]\n"*" = ["*.md"]\ndemo = ["skills/*/*.txt"]\n'
        '\n[tool.setuptools.exclude-package-data]\ndemo = ["*.draft.md"]\n',
    ),
    "pyproject over setup.cfg": (
        "[options]\npackages = demo\npackage_dir =\n    =src\n",
        '\n[tool.setuptools]\npackages = ["demo", "demo.skills"]\n\n[tool.setuptools.package-dir]\n"" = "src"\n',
    ),
    "neither: setuptools' discovery": ("", ""),
}


def make(root: Path, cfg: str, toml: str) -> Path:
    root.mkdir()
    (root / "pyproject.toml").write_text(PROJECT + toml)
    if cfg:
        (root / "setup.cfg").write_text(cfg)
    for module in ("demo/__init__.py", "demo/skills/__init__.py", "demo/tests/__init__.py"):
        write_module(root / "src" / module, "")
    write_module(root / "scripts/__init__.py", "")
    return root


def setuptools_own(root: Path) -> Any:
    with contextlib.chdir(root):
        dist = Distribution({"script_name": "setup.py"})
        dist.parse_config_files()
        if not dist.packages and not dist.py_modules:
            dist.set_defaults()
    return dist


def layout(dist: Any) -> dict[str, Any]:
    names = ("packages", "py_modules", "package_dir", "package_data", "exclude_package_data")
    return {name: _plain(getattr(dist, name)) for name in names}


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items() if v}
    if isinstance(value, str):
        return value
    return sorted(str(v) for v in value) if value else None


@pytest.mark.parametrize(("cfg", "toml"), CASES.values(), ids=CASES.keys())
def test_the_layout_check_reads_is_the_one_setuptools_reads(cfg: str, toml: str, tmp_path: Path) -> None:
    root = make(tmp_path / "demo", cfg, toml)
    theirs = layout(setuptools_own(root))
    assert theirs["packages"] or theirs["py_modules"]
    build_py = static_build_py(root, read_pyproject(root))
    assert build_py is not None and layout(build_py.distribution) == theirs
