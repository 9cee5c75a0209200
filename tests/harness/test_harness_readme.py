"""The README's harness and workspace sections print exactly what they show."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def snippet_and_output(heading: str, next_heading: str) -> tuple[str, str]:
    text = README.read_text(encoding="utf-8")
    section = text[text.index(f"\n{heading}\n") : text.index(f"\n{next_heading}\n")]
    found = re.search(r"```python\n(.*?)```\n\n```\n(.*?)```", section, re.DOTALL)
    assert found is not None, f"{heading}: a python block followed by its output"
    return found.group(1), found.group(2)


SECTIONS = [
    "## The agent harness",
    "## Tools that reach the session",
    "## Large catalogs",
    "## Running a skill's scripts",
    "## Several workers: sessions in PostgreSQL",  # tested by tests/stores/test_readme_deploy.py
    "## Workspace skills",
    "## Diagnostic codes",
]
PAIRS = [pair for pair in zip(SECTIONS, SECTIONS[1:]) if "Several workers" not in pair[0]]


@pytest.mark.parametrize("heading, next_heading", PAIRS)
def test_readme_snippet_prints_what_it_shows(heading: str, next_heading: str, tmp_path: Path) -> None:
    code, shown = snippet_and_output(heading, next_heading)
    (tmp_path / "snippet.py").write_text(code, encoding="utf-8")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}  # scripts' copies stay in the test's folder
    out = subprocess.run(
        [sys.executable, "snippet.py"], capture_output=True, text=True, cwd=tmp_path, timeout=60, env=env
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == shown
