"""The worked example, as the README's quick start runs it: its first command, literally, in a fresh
copy of the checkout, installs only the run time and the hook, then builds the agent's wheel with the
hook, installs it into a fresh venv and runs a scripted conversation."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from support.paths import ROOT

pytestmark = pytest.mark.slow  # real builds, venvs or pip: minutes


def quick_start() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"^## Quick start\n.*?```bash\n(.*?)```", readme, re.DOTALL | re.MULTILINE)
    assert block is not None
    return [line for line in block.group(1).splitlines() if line.strip()]


def _not_in_a_clone(folder: str, names: list[str]) -> set[str]:
    """What a fresh clone has not: virtual environments, VCS data, caches, build output."""
    top = Path(folder) == ROOT
    return {
        name
        for name in names
        if name.startswith(".venv")
        or name in {"__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis"}
        or (top and name in {".git", "site", "dist", "build"})
        or name.endswith(".egg-info")
    }


def test_the_quick_start_runs_the_example_with_only_the_runtime_and_the_hook(tmp_path: Path) -> None:
    checkout = tmp_path / "flue-skills"
    shutil.copytree(ROOT, checkout, symlinks=True, ignore=_not_in_a_clone)
    env = {key: value for key, value in os.environ.items() if key not in ("VIRTUAL_ENV", "PYTHONPATH")}
    proc = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", quick_start()[0]],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
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

    listed = subprocess.run(
        [str(checkout / ".venv" / "bin" / "python"), "-m", "pip", "list", "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
    )
    installed = {re.sub(r"[-_.]+", "-", item["name"]).lower() for item in json.loads(listed.stdout)}
    assert {"flue-skills", "hatch-flue-skills"} <= installed
    # Nothing the tests need that the run time or the hook does not: the hook brings hatchling, and
    # Python 3.11's venv seeds setuptools.
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    test_only = {
        re.sub(r"[-_.]+", "-", re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0]).lower()
        for requirement in extras["test"] + extras["test-runtime"]
        if not requirement.startswith("flue-skills")
    } - {"hatchling", "setuptools"}
    assert test_only, "the test extra lists packages"
    assert installed & test_only == set()
