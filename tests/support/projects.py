"""Projects and skills on disk: fixture projects copied, skill folders and modules written, the
pyproject.toml of a project built by hatchling or setuptools with the flue-skills hook."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

from support.paths import PROJECTS

#: What a copy of a fixture project leaves out: what an earlier build there left behind.
LEFTOVERS = shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__")


def copy_project(name: str, dest: Path) -> Path:
    """A fresh copy of `fixtures/projects/<name>` at `dest`, ready to build."""
    shutil.copytree(PROJECTS / name, dest, ignore=LEFTOVERS)
    return dest


class ProjectFactory:
    """`factory(name)`: a fresh copy of the fixture project `name` under `base` (an older copy replaced)."""

    def __init__(self, base: Path) -> None:
        self.base = base

    def __call__(self, name: str) -> Path:
        target = self.base / name
        if target.exists():
            shutil.rmtree(target)
        return copy_project(name, target)


def write_skill(
    folder: Path,
    description: str = "",
    body: str = "",
    files: dict[str, str | bytes] | None = None,
    *,
    frontmatter: str = "",
) -> Path:
    """A valid skill at `folder` (its name is the folder's name): SKILL.md with `description` (by default
    one made of the name), the `frontmatter` lines after it, then `body`; and `files` by relative path."""
    folder.mkdir(parents=True, exist_ok=True)
    name = folder.name
    description = description or f"Do {name} things. Use when {name} comes up."
    body = body or f"# {name}\n\nStep one.\n"
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n{frontmatter}---\n{body}", encoding="utf-8"
    )
    for path, content in (files or {}).items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    return folder


def write_module(path: Path, source: str) -> Path:
    """`source`, dedented, at `path` (its folders made)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


HATCH_PYPROJECT = """\
[build-system]
requires = ["hatchling>=1.24", "hatch-flue-skills"]
build-backend = "hatchling.build"

[project]
name = "{name}"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["flue-skills"]

[tool.hatch.build.hooks.flue-skills]

[tool.hatch.build.targets.wheel]
packages = ["src/{package}"]

[tool.flue]
"""

SETUPTOOLS_PYPROJECT = """\
[build-system]
requires = ["setuptools>=77", "flue-skills"]
build-backend = "setuptools.build_meta"

[project]
name = "{name}"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["flue-skills"]

[tool.setuptools.packages.find]
where = ["src"]

[tool.flue]
"""

PYPROJECTS = {"hatchling": HATCH_PYPROJECT, "setuptools": SETUPTOOLS_PYPROJECT}


def pyproject(backend: str, package: str) -> str:
    """The pyproject.toml of a project whose one package is `src/<package>`, built by `backend` with the hook."""
    return PYPROJECTS[backend].format(name=package.replace("_", "-"), package=package)
