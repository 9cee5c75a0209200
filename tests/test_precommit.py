"""The pre-commit hook, run by the real `pre-commit` from a `.pre-commit-config.yaml` as the skills page shows it,
against a temporary git repository: the hook's environment installed once, for the three runs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import site
from support.paths import ROOT
from support.projects import pyproject, write_module, write_skill

GOOD = ROOT / "fixtures" / "skills" / "good" / "refunds"
COMMIT = ("-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm")


def _git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env
    ).stdout.strip()


def this_checkout(where: Path) -> tuple[Path, str]:
    """A clone of this checkout with its changes to tracked files committed, as `pre-commit try-repo` makes one:
    the repository and revision a configuration names."""
    clone = where / "flue-skills"
    _git(where, "clone", "-q", str(ROOT), str(clone))
    git_dir = Path(_git(clone, "rev-parse", "--absolute-git-dir"))
    env = {**os.environ, "GIT_INDEX_FILE": str(git_dir / "index"), "GIT_OBJECT_DIRECTORY": str(git_dir / "objects")}
    _git(ROOT, "add", "-u", env=env)
    _git(clone, *COMMIT, "this checkout", "--allow-empty")
    return clone, _git(clone, "rev-parse", "HEAD")


def configuration(repo: Path, rev: str) -> str:
    """The skills page's `.pre-commit-config.yaml`, naming `repo` at `rev`."""
    [sample] = [b.code for b in site.blocks(site.page("concepts/skills.md")) if ".pre-commit-config.yaml" in b.code]
    assert "repo: /path/to/flue-skills" in sample and "rev: main" in sample, sample
    return re.sub(r"rev: main\b", f"rev: {rev}", sample.replace("/path/to/flue-skills", str(repo)))


@pytest.mark.slow
def test_the_hook_passes_a_good_skill_and_fails_a_bad_one(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(GOOD, repo / "skills" / "refunds")
    bad = repo / "skills" / "broken"
    bad.mkdir(parents=True)
    (bad / "SKILL.md").write_text("---\nname: Broken Skill\ndescription: Does things.\n---\nBody.\n")
    (repo / ".pre-commit-config.yaml").write_text(configuration(*this_checkout(tmp_path)))
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, *COMMIT, "skills")
    # One store for the three runs: pre-commit installs the hook's environment once (`try-repo` made a new one a run).
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "HOME": str(tmp_path)}
    command = [sys.executable, "-m", "pre_commit", "run", "--all-files", "--verbose"]

    failed = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "skills/broken/SKILL.md:2:7: FLU204 error" in failed.stdout, failed.stdout
    assert "skills/broken/SKILL.md:2:7: FLU205 error" in failed.stdout, failed.stdout  # and not its folder's name
    assert "2 errors" in failed.stdout

    shutil.rmtree(bad)
    _git(repo, "add", "-A")
    _git(repo, *COMMIT, "fix")
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
    _git(repo, *COMMIT, "project")
    refused = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "src/acme/skills/orphan/.env: FLU302 error" in refused.stdout, refused.stdout
    assert "src/acme/skills/orphan: FLU410 warning" in refused.stdout, refused.stdout
    # Installed once: the store holds one environment of the hook.
    assert len(list((tmp_path / "cache").glob("repo*/py_env-*"))) == 1
