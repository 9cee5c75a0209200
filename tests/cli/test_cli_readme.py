"""The terminal guide's `flue-skills prompt` and `flue-skills run` sections print exactly what they show."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support import site
from support.paths import ROOT

pytestmark = pytest.mark.slow  # the console script in child processes

BIN = Path(sys.executable).parent


def section(heading: str) -> str:
    return site.section("guides/terminal.md", heading)


def blocks(text: str) -> list[tuple[str, str]]:
    """The fenced blocks of `text` in order: (language, body)."""
    return re.findall(r"^```(\w*)\n(.*?)^```$", text, re.DOTALL | re.MULTILINE)


def shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`command` in bash, the test's own environment's scripts first on PATH, stderr after stdout as a terminal shows."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    command = command.replace(".venv/bin/", f"{BIN}/")
    return subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=120,
    )


def test_prompt_section_output_is_real() -> None:
    text = section("### Previewing what the model reads: `flue-skills prompt`")
    found = blocks(text)
    assert [language for language, _ in found] == ["", "bash", ""]
    (_, usage), (_, command), (_, shown) = found
    assert usage.startswith("flue-skills prompt MODULE:AGENT")
    done = shell(command.strip(), ROOT)
    assert done.returncode == 0, done.stdout
    assert done.stdout == shown


def test_run_section_output_is_real(tmp_path: Path) -> None:
    text = section("### Talking to an agent: `flue-skills run`")
    found = blocks(text)
    assert [language for language, _ in found] == ["", "python", "bash", ""]
    (_, usage), (_, module), (_, command), (_, shown) = found
    assert usage.startswith("flue-skills run MODULE:AGENT")
    name = module.splitlines()[0].removeprefix("# ")
    (tmp_path / name).write_text(module, encoding="utf-8")
    done = shell(command.strip(), tmp_path)
    assert done.returncode == 0, done.stdout
    assert done.stdout == shown
    assert (tmp_path / "sessions.db").is_file()
