"""The worked example asked for a real model without its API key (issue 44, item 7): it says so in one line and
exits 2 before it builds anything, as the agent inside the wheel does when it is run alone."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from support.paths import ROOT

EXAMPLE = ROOT / "examples" / "support-agent"
#: Every variable a provider's key may come from (the SDKs read them too).
KEYS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY")


def _without_keys() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if key not in KEYS}


@pytest.mark.parametrize(
    ("model", "variable"),
    [("anthropic/claude-haiku-4-5", "ANTHROPIC_API_KEY"), ("openai/gpt-5-mini", "OPENAI_API_KEY")],
)
def test_run_py_says_the_key_is_missing_before_it_builds(model: str, variable: str) -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE / "run.py"), "--model", model],
        env=_without_keys(),
        capture_output=True,
        text=True,
        timeout=60,  # (a build takes longer: the check comes first)
    )
    assert (done.returncode, done.stdout) == (2, ""), done.stdout + done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("run.py: error: ") and f"set the {variable} environment variable" in line, line


def test_the_agent_alone_says_the_key_is_missing_in_one_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "support_agent", "--model", "anthropic/claude-haiku-4-5"],
        cwd=EXAMPLE / "src",
        env=_without_keys(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (2, ""), done.stdout + done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("support-agent: error: ") and "set the ANTHROPIC_API_KEY environment variable" in line
