"""The integrations' fixture, built and installed for real: `fixtures/projects/integrations-demo` as a wheel
built by hatchling with the hook, installed into a folder of its own (`support.envs.install`), imported from there."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from support.builds import build_wheel
from support.envs import install
from support.paths import PROJECTS
from support.projects import copy_project

NAME = "integrations-demo"
PROJECT = PROJECTS / NAME
PACKAGE = "skills_demo"


@dataclass(frozen=True)
class Installed:
    """The built wheel and the folder it was installed into (a site directory of its own)."""

    wheel: Path
    site: Path

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of a child process that imports the installed package (and this checkout's code)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
        env["PYTHONPATH"] = str(self.site)
        env.update(extra)
        return env


def build_and_install(base: Path) -> Installed:
    """Build the fixture's wheel (hatchling + the flue-skills hook) and install it `--target` a folder, offline."""
    wheel = build_wheel(copy_project(NAME, base / "source"), base / "dist")
    site = base / "site"
    install("--target", str(site), str(wheel), cwd=base)
    return Installed(wheel, site)
