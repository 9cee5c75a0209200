"""Issue 20 item 5: `check PROJECT` and `ls PROJECT` read a project statically.

`check` is offered as a pre-commit hook, so it runs on checkouts nobody has reviewed yet. Each
project here carries every way its build would run its own code: a hatchling metadata hook and
build hook in `hatch_build.py`, `[tool.hatch.version] source = "code"`; a setuptools `setup.py`
and an `attr:` version. Each such piece of code writes a marker file when it runs. The real
commands run in child processes; no marker may appear, and a dynamic field is said to be dynamic.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.projects import write_module, write_skill

pytestmark = pytest.mark.slow  # child processes

#: Code that leaves a marker next to the project's pyproject.toml when it runs.
MARK = """\
import os as _os, pathlib as _pathlib
_root = _pathlib.Path(_os.path.abspath(__file__)).parent
while not (_root / "pyproject.toml").is_file():
    _root = _root.parent
(_root / "MARKER-{what}").write_text("ran")
"""

HATCH = """\
[build-system]
requires = ["hatchling>=1.24", "hatch-flue-skills"]
build-backend = "hatchling.build"

[project]
name = "marker-demo"
dynamic = ["version", "description"]
requires-python = ">=3.11"
dependencies = ["flue-skills"]

[tool.hatch.version]
source = "code"
path = "marker_demo/_version.py"

[tool.hatch.metadata.hooks.custom]

[tool.hatch.build.hooks.custom]

[tool.hatch.build.hooks.flue-skills]

[tool.hatch.build.targets.wheel.shared-data]
"share" = "share"
"""

HATCH_BUILD = (
    MARK.format(what="hatch_build")
    + """
from hatchling.builders.hooks.plugin.interface import BuildHookInterface
from hatchling.metadata.plugin.interface import MetadataHookInterface


class CustomMetadataHook(MetadataHookInterface):
    def update(self, metadata):
        (_root / "MARKER-metadata-hook").write_text("ran")
        metadata["description"] = "set by a hook"


class CustomBuildHook(BuildHookInterface):
    def initialize(self, version, build_data):
        (_root / "MARKER-build-hook").write_text("ran")
"""
)

SETUPTOOLS = """\
[build-system]
requires = ["setuptools>=77", "flue-skills"]
build-backend = "setuptools.build_meta"

[project]
name = "marker-demo"
dynamic = ["version"]
requires-python = ">=3.11"
dependencies = ["flue-skills"]

[tool.setuptools.dynamic]
version = {attr = "marker_demo.__version__"}

[tool.flue]
"""

SETUP_PY = MARK.format(what="setup.py") + "\nfrom setuptools import setup\n\nsetup()\n"


def package(root: Path) -> None:
    """`marker_demo`, whose import leaves a marker, referencing one skill."""
    write_module(
        root / "marker_demo" / "__init__.py",
        MARK.format(what="package-import")
        + '\n__version__ = "1.0"\n\nfrom flue_runtime import skill\n\nREVIEW = skill("./skills/review/SKILL.md")\n',
    )
    write_skill(root / "marker_demo" / "skills" / "review", "Review code. Use when asked for a review.")


def hatch_project(root: Path) -> Path:
    package(root)
    (root / "pyproject.toml").write_text(HATCH)
    (root / "hatch_build.py").write_text(HATCH_BUILD)
    write_module(root / "marker_demo" / "_version.py", MARK.format(what="version-code") + '\n__version__ = "1.0"\n')
    (root / "share").mkdir()
    (root / "share" / "data.txt").write_text("shared\n")
    return root


def setuptools_project(root: Path, with_setup_py: bool) -> Path:
    package(root)
    (root / "pyproject.toml").write_text(SETUPTOOLS)
    if with_setup_py:
        (root / "setup.py").write_text(SETUP_PY)
    return root


def flue(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flue_build", *args], capture_output=True, text=True, cwd=cwd, timeout=300
    )


def markers(root: Path) -> list[str]:
    return sorted(p.name for p in root.rglob("MARKER-*"))


@pytest.mark.parametrize(
    "make",
    [hatch_project, lambda root: setuptools_project(root, True), lambda root: setuptools_project(root, False)],
    ids=["hatchling", "setuptools-setup.py", "setuptools-attr"],
)
def test_check_and_ls_run_no_project_code(tmp_path: Path, make: object) -> None:
    root = make(tmp_path / "marker-demo")  # type: ignore[operator]
    checked = flue("check", str(root), cwd=tmp_path)
    assert markers(root) == [], checked.stdout + checked.stderr
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "project marker-demo (marker-demo, version dynamic): scanned" in checked.stdout, checked.stdout
    listed = flue("ls", str(root), cwd=tmp_path)
    assert markers(root) == [], listed.stdout + listed.stderr
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines()[1].split()[:2] == ["review", "1"], listed.stdout


def test_a_static_version_is_shown_as_written(tmp_path: Path) -> None:
    root = setuptools_project(tmp_path / "marker-demo", False)
    text = (root / "pyproject.toml").read_text().replace('dynamic = ["version"]', 'version = "2.5.0"')
    (root / "pyproject.toml").write_text(
        text.replace('[tool.setuptools.dynamic]\nversion = {attr = "marker_demo.__version__"}\n', "")
    )
    checked = flue("check", str(root), cwd=tmp_path)
    assert "project marker-demo (marker-demo 2.5.0): scanned 1 module, found 1 reference" in checked.stdout, (
        checked.stdout
    )
    assert markers(root) == []
