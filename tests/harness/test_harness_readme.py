"""The site's harness, scripts and workspace sections print exactly what they show."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.site import page, section


def snippet_and_output(name: str, heading: str) -> tuple[str, str]:
    found = re.search(r"```python\n(.*?)```\n\n```\n(.*?)```", section(name, heading), re.DOTALL)
    assert found is not None, f"{heading}: a python block followed by its output"
    return found.group(1), found.group(2)


# (the PostgreSQL guide's snippet needs a server: tests/stores/test_readme_deploy.py runs it)
SECTIONS = [
    ("concepts/harness.md", "## The agent harness"),
    ("concepts/harness.md", "### Tool parameters"),
    ("concepts/harness.md", "## Tools that reach the session"),
    ("concepts/harness.md", "## Choosing skills from the application"),
    ("concepts/harness.md", "## Large catalogs"),
    ("guides/scripts.md", "## Running a skill's scripts"),
    ("concepts/harness.md", "## Workspace skills"),
]


@pytest.mark.parametrize("name, heading", SECTIONS)
def test_readme_snippet_prints_what_it_shows(name: str, heading: str, tmp_path: Path) -> None:
    code, shown = snippet_and_output(name, heading)
    (tmp_path / "snippet.py").write_text(code, encoding="utf-8")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}  # scripts' copies stay in the test's folder
    out = subprocess.run(
        [sys.executable, "snippet.py"], capture_output=True, text=True, cwd=tmp_path, timeout=60, env=env
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == shown


def test_the_harness_snippet_run_twice_resumes_as_the_readme_says(tmp_path: Path) -> None:
    """The second run resumes case-42: same system prompt, and no catalog change (vip was announced and saved)."""
    code, shown = snippet_and_output(*SECTIONS[0])
    (tmp_path / "snippet.py").write_text(code, encoding="utf-8")
    runs = [
        subprocess.run([sys.executable, "snippet.py"], capture_output=True, text=True, cwd=tmp_path, timeout=60)
        for _ in range(2)
    ]
    assert [run.returncode for run in runs] == [0, 0], runs[1].stderr
    assert runs[0].stdout == shown
    change = "[The available skills changed.]\nNew skills:\n- **vip** — Extra care for VIP customers.\nAvailable skills now: refunds, vip\n"
    assert change in shown
    assert runs[1].stdout == shown.replace(change, "Your order arrived 3 days ago, so you get a full refund.\n")
    text = " ".join(page("concepts/harness.md").split())
    assert "run this twice and the second run resumes case-42 (see below)" in code
    assert "Where the first run printed the catalog change, the second prints the answer before the VIP message" in text
