"""The pre-commit hook, run by the real `pre-commit try-repo` against a temporary git repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT
from support.projects import pyproject, write_module, write_skill

GOOD = ROOT / "fixtures" / "skills" / "good" / "refunds"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@pytest.mark.slow
def test_the_hook_passes_a_good_skill_and_fails_a_bad_one(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(GOOD, repo / "skills" / "refunds")
    bad = repo / "skills" / "broken"
    bad.mkdir(parents=True)
    (bad / "SKILL.md").write_text("---\nname: Broken Skill\ndescription: Does things.\n---\nBody.\n")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "skills")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "HOME": str(tmp_path)}
    command = [
        sys.executable,
        "-m",
        "pre_commit",
        "try-repo",
        str(ROOT),
        "flue-skills-check",
        "--all-files",
        "--verbose",
    ]

    failed = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "skills/broken/SKILL.md:2:7: FLU204 error" in failed.stdout, failed.stdout
    assert "skills/broken/SKILL.md:2:7: FLU205 error" in failed.stdout, failed.stdout  # and not its folder's name
    assert "2 errors" in failed.stdout

    shutil.rmtree(bad)
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "fix")
    passed = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "checked 1 skill: 0 errors" in passed.stdout

    # A hatchling project whose build refuses an unreferenced skill folder's `.env`: the hook's environment
    # has the backend, so the hook says what the build says (it used to check less and pass).
    (repo / "pyproject.toml").write_text(pyproject("hatchling", "acme"))
    write_module(
        repo / "src/acme/__init__.py", 'from flue_runtime import skill\n\nPDF = skill("./skills/pdf/SKILL.md")\n'
    )
    write_skill(repo / "src/acme/skills/pdf")
    write_skill(repo / "src/acme/skills/orphan", files={".env": "TOKEN=1\n"})
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "project")
    refused = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "src/acme/skills/orphan/.env: FLU302 error" in refused.stdout, refused.stdout
    assert "src/acme/skills/orphan: FLU410 warning" in refused.stdout, refused.stdout
