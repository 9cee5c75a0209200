"""A distribution that ships plain skill folders as package data, built WITHOUT the flue-skills hook by plain
hatchling and installed by pip: what `skills_of` and `flue-skills ls/mcp/export DIST` find in its files.

Its package `raw_skills_demo/skills/` holds the integrations demo's `refunds` and `triage` (byte for byte,
so the same result texts can be compared with the bundled copies), a `leaky` skill holding a `.env`, and a
`Bad_Name` skill whose name breaks the rule.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from support.builds import build_wheel
from support.envs import pip_install
from support.paths import PROJECTS
from support.projects import write_skill

DIST = "raw-skills-demo"
PACKAGE = "raw_skills_demo"
SECRET = b"STRIPE_KEY=sk_live_never_served\n"

PYPROJECT = f"""\
[build-system]
requires = ["hatchling>=1.24"]
build-backend = "hatchling.build"

[project]
name = "{DIST}"
version = "1.0.0"
description = "Skills shipped as plain package data, built without the flue-skills hook"

[tool.hatch.build.targets.wheel]
packages = ["{PACKAGE}"]
"""


@dataclass(frozen=True)
class RawInstalled:
    """The wheel and the folder pip installed it into (a site directory of its own)."""

    wheel: Path
    site: Path

    @property
    def skills(self) -> Path:
        return self.site / PACKAGE / "skills"


def write_raw_project(root: Path) -> Path:
    """The project at `root`: a package whose data holds four skill folders, two of them refused by the rules."""
    package = root / PACKAGE
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('"""Skills as plain package data."""\n')
    (root / "pyproject.toml").write_text(PYPROJECT)
    for name in ("refunds", "triage"):
        shutil.copytree(PROJECTS / "integrations-demo" / "skills_demo" / "skills" / name, package / "skills" / name)
    write_skill(package / "skills" / "leaky", "Leak a key.", files={".env": SECRET, "notes.md": "Notes.\n"})
    write_skill(package / "skills" / "Bad_Name", "A name the rule refuses.")
    return root


def build_and_install_raw(base: Path) -> RawInstalled:
    """Build the project's wheel with plain hatchling (no hook) and `pip install --target` it, offline."""
    wheel = build_wheel(write_raw_project(base / "source"), base / "dist")
    site = base / "site"
    pip_install(sys.executable, "--no-index", "-q", "--target", str(site), str(wheel), cwd=base, check=True)
    return RawInstalled(wheel, site)
