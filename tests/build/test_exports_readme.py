"""The publishing guide tells the truth: its TOML, its consumer code, its
configuration error and its `ls` output are the fixture projects' and what the tools print.
(The FLU413 block is checked against a real build in test_exports_distributions.py.)"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest
from support import site
from support.paths import PROJECTS, ROOT

from flue_runtime.errors import ConfigError
from flue_runtime.format.config import load_config


def section() -> str:
    return site.section("guides/publishing.md", "## Publishing skills for other packages")


def blocks(language: str) -> list[str]:
    return [textwrap.dedent(b) for b in re.findall(rf"```{language}\n(.*?)```", section(), re.DOTALL)]


def test_the_toml_is_the_producer_fixtures() -> None:
    [toml] = blocks("toml")
    fixture = tomllib.loads((PROJECTS / "exports-producer" / "pyproject.toml").read_text())
    assert tomllib.loads(toml)["tool"]["flue"] == fixture["tool"]["flue"]


def test_the_consumer_code_is_the_consumer_fixtures() -> None:
    [code] = blocks("python")
    first, body = code.split("\n", 1)
    assert first == "# acme-app/acme_app/agent.py"
    assert body in (PROJECTS / "exports-consumer" / "acme_app" / "agent.py").read_text()


def test_the_configuration_error_is_the_one_shown(tmp_path: Path) -> None:
    shown = re.search(r"``(tool\.flue\.exports\[1\]: .*?)``", section())
    assert shown is not None
    (tmp_path / "pyproject.toml").write_text(
        '[tool.flue]\nexports = ["acme_skills/review/SKILL.md", "acme_skills/review"]\n'
    )
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    assert caught.value.problems == (shown.group(1),)


def test_the_ls_example_is_real() -> None:
    block = re.search(r"```\n *\$ (flue-skills ls \S+)\n(.*?)```", section(), re.DOTALL)
    assert block is not None
    args = block.group(1).split()[1:]
    env = {**os.environ, "COLUMNS": "200"}
    out = subprocess.run(
        [sys.executable, "-m", "flue_build", *args], capture_output=True, text=True, cwd=ROOT, env=env, check=True
    )
    assert out.stdout == textwrap.dedent(block.group(2))
