"""The worked example's single command: wheel built with the hook, fresh venv, a scripted conversation."""

from __future__ import annotations

import subprocess
import sys

import pytest
from support.paths import ROOT

pytestmark = pytest.mark.slow  # real builds, venvs or pip: seconds each


def test_support_agent_example_runs_from_its_wheel() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "support-agent" / "run.py")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "refunds: support_agent/_flue_skills/skills/" in out and "(bundled in 'support_agent')" in out
    assert "- **refunds** — Handle refund requests for book orders." in out
    assert "- **escalation** — Escalate a case to a human supervisor." in out
    assert "**vip**" not in out.split("=== tools ===")[0]  # unlocked later, not in the system prompt
    assert "=== tool result: read_skill_resource ===\n     1\t# Refund policy" in out
    assert "=== catalog update (appended message) ===\n[The available skills changed.]\nNew skills:\n- **vip**" in out
    assert out.rstrip().endswith(
        "system prompt byte-identical in every request and after resuming from sessions.db: True"
    )
