"""The bundles page's run-time section tells the truth: its snippet prints what it shows, and so does `ls`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from support.paths import ROOT
from support.site import section as site_section


def section() -> str:
    return site_section("concepts/bundles.md", "## Using skills at run time")


def test_the_snippet_prints_what_the_readme_shows(tmp_path: Path) -> None:
    blocks = re.findall(r"```(\w*)\n(.*?)```", section(), re.DOTALL)
    (_, code), (_, shown) = blocks[0], blocks[1]
    assert blocks[0][0] == "python"
    path = re.search(r"PYTHONPATH=(\S+)", code)
    assert path is not None
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(ROOT / p) for p in path.group(1).split(":"))}
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    assert out.stdout == shown


def test_the_ls_example_is_real() -> None:
    block = re.search(r"```\n\$ (flue-skills ls \S+)\n(.*?)```", section(), re.DOTALL)
    assert block is not None
    args = block.group(1).split()[1:]
    env = {**os.environ, "COLUMNS": "200"}
    out = subprocess.run(
        [sys.executable, "-m", "flue_build", *args], capture_output=True, text=True, cwd=ROOT, env=env, check=True
    )
    assert out.stdout == block.group(2)
