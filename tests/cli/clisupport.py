"""`flue-skills` as a user runs it: the installed console script in a child process, fed through its stdin."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SCRIPT = Path(sys.executable).with_name("flue-skills")
#: Variables of a developer's shell that would change what the children do.
UNSET = ("PYTHONPATH", "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL")


@dataclass
class CLI:
    """Runs the console script in `cwd` with this folder (the test agents) importable."""

    cwd: Path
    env: dict[str, str]

    def argv(self, *args: str) -> list[str]:
        return [str(SCRIPT), *args]

    def run(self, *args: str, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.argv(*args), input=stdin, capture_output=True, text=True, cwd=self.cwd, env=self.env, timeout=timeout
        )

    def run_python(self, code: str, *args: str) -> subprocess.CompletedProcess[str]:
        """`python -c code args...`: the CLI in a Python prepared by `code`."""
        return subprocess.run(
            [sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=self.cwd, env=self.env, timeout=120
        )

    def start(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            self.argv(*args),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=self.cwd,
            env=self.env,
        )


def in_folder(cwd: Path) -> CLI:
    env = {key: value for key, value in os.environ.items() if key not in UNSET}
    env["PYTHONPATH"] = str(HERE)
    return CLI(cwd, env)


@pytest.fixture
def cli(tmp_path: Path) -> CLI:
    return in_folder(tmp_path)
