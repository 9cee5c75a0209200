"""Issue 22 item 3: skills shipped raw by any installed distribution. A wheel built by plain hatchling WITHOUT the
flue-skills hook, installed by pip, and a real distribution from the package index that ships skill folders:
`skills_of(dist)` and `flue-skills ls/mcp/export DIST` find every SKILL.md folder among the distribution's files,
vet each at load by the build's rules, skip a refused one with the reason, and never serve it."""

from __future__ import annotations

import pytest
from support.optional import need

need("mcp", "mcp")

import hashlib
import subprocess
import sys
import zipfile
from importlib.metadata import distribution
from pathlib import Path

import anyio
from mcpclient import stdio, verified_skills
from support.envs import clean_env
from support.imports import imported_from
from support.rawdist import DIST, PACKAGE, SECRET, RawInstalled

from flue_runtime import Harness, SkillNotFoundError, SkillWarning, agent, skills_of, use_model, use_skill
from flue_runtime.models import ScriptedModel, ToolCall

pytestmark = pytest.mark.slow

#: The real distribution from the package index (pinned in the `test` extra): 22 plain skill folders.
REAL = "agent-skills-bundle"
REAL_SKILLS = 22


def flue(*args: str, site: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = clean_env(PYTHONPATH=str(site))
    return subprocess.run(
        [sys.executable, "-m", "flue_build", *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=120
    )


def test_the_wheel_was_built_without_the_hook_and_holds_the_refused_files(raw_installed: RawInstalled) -> None:
    names = zipfile.ZipFile(raw_installed.wheel).namelist()
    assert not [n for n in names if "_flue_skills" in n]
    assert f"{PACKAGE}/skills/leaky/.env" in names and f"{PACKAGE}/skills/Bad_Name/SKILL.md" in names
    assert (raw_installed.skills / "leaky" / ".env").read_bytes() == SECRET


def test_skills_of_serves_every_valid_skill_folder_and_skips_each_refused_one_with_the_reason(
    raw_installed: RawInstalled,
) -> None:
    with imported_from(raw_installed.site), pytest.warns(SkillWarning) as warned:
        skills = skills_of(DIST)
        refunds = next(s for s in skills if s.name == "refunds")
        assert refunds.read_bytes("policy.md") == (raw_installed.skills / "refunds" / "policy.md").read_bytes()

    assert [s.name for s in skills] == ["refunds", "triage"]
    assert refunds.origin == f"{DIST}: {PACKAGE}/skills/refunds"
    assert refunds.resources == ("assets/stamp.png", "data/rates.csv", "policy.md", "templates/email (v2).md")
    messages = [str(w.message) for w in warned]
    assert any(f"skipped {DIST}: {PACKAGE}/skills/leaky/.env: FLU302" in m for m in messages), messages
    assert any(f"skipped {DIST}: {PACKAGE}/skills/Bad_Name" in m and "FLU204" in m for m in messages), messages


def test_a_file_changed_since_pip_installed_it_refuses_its_skill(raw_installed: RawInstalled, tmp_path: Path) -> None:
    """RECORD's SHA-256 is the listing: a file edited after the install no longer matches it."""
    import shutil

    site = tmp_path / "site"
    shutil.copytree(raw_installed.site, site)
    skill_md = site / PACKAGE / "skills" / "triage" / "SKILL.md"
    original = skill_md.read_bytes()
    skill_md.write_bytes(original.replace(b"Sort", b"Drop", 1))  # the same size: only the digest tells
    assert skill_md.read_bytes() != original and len(skill_md.read_bytes()) == len(original)
    with imported_from(site), pytest.warns(SkillWarning, match=r"triage/SKILL.md: FLU308 .*SHA-256 differs"):
        assert [s.name for s in skills_of(DIST)] == ["refunds"]


def test_a_distribution_zipped_on_sys_path_is_read_from_the_zip(raw_installed: RawInstalled) -> None:
    """The wheel itself on sys.path: importlib.metadata reads its RECORD from the zip, files are read from it."""
    with imported_from(raw_installed.wheel), pytest.warns(SkillWarning):
        skills = skills_of(DIST)
        assert [s.name for s in skills] == ["refunds", "triage"]
        assert skills[1].instructions == (raw_installed.skills / "triage" / "SKILL.md").read_text().split("---\n", 2)[2]


def test_an_unknown_distribution_is_a_skill_not_found_error() -> None:
    with pytest.raises(SkillNotFoundError, match="no installed distribution or top-level package"):
        skills_of("no-such-distribution-anywhere")


def test_ls_mcp_and_export_take_the_distribution(raw_installed: RawInstalled, tmp_path: Path) -> None:
    listed = flue("ls", DIST, site=raw_installed.site, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    rows = listed.stdout.splitlines()
    assert [row.split()[0] for row in rows[1:-1]] == ["refunds", "triage"], listed.stdout
    assert "raw_skills_demo/skills" in rows[1]
    assert f"flue-skills ls: warning: skipped {DIST}: {PACKAGE}/skills/leaky/.env: FLU302" in listed.stderr
    assert "Bad_Name" in listed.stderr and "FLU204" in listed.stderr
    by_package = flue("ls", PACKAGE, site=raw_installed.site, cwd=tmp_path)
    assert by_package.stdout == listed.stdout

    exported = flue("export", DIST, str(tmp_path / "out"), site=raw_installed.site, cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["refunds", "triage"]
    assert not list((tmp_path / "out").rglob(".env")) and "leaky" in exported.stderr

    async def session() -> dict[str, dict[str, bytes]]:
        async with stdio(DIST, env=clean_env(PYTHONPATH=str(raw_installed.site))) as client:
            return await verified_skills(client)

    served = anyio.run(session)
    assert sorted(served) == ["skill://refunds/SKILL.md", "skill://triage/SKILL.md"]
    policy = served["skill://refunds/SKILL.md"]["skill://refunds/policy.md"]
    assert policy == (raw_installed.skills / "refunds" / "policy.md").read_bytes()


def test_a_real_distribution_from_the_index_that_ships_skill_folders() -> None:
    """agent-skills-bundle 0.1.0 (the `test` extra) ships 22 skill folders as package data, without the hook."""
    dist = distribution(REAL)
    assert dist.version == "0.1.0"
    assert not [f for f in dist.files or () if "_flue_skills" in str(f)]
    with pytest.warns(SkillWarning, match="FLU210 unknown field `user-invocable`"):
        skills = skills_of(REAL)
    assert len(skills) == REAL_SKILLS and len({s.name for s in skills}) == REAL_SKILLS
    tdd = next(s for s in skills if s.name == "tdd")
    installed = Path(str(dist.locate_file("agent_skills_bundle/skills/tdd/SKILL.md")))
    assert tdd.instructions == installed.read_text().split("---\n", 2)[2]
    assert tdd.resources == ("deep-modules.md", "interface-design.md", "mocking.md", "refactoring.md", "tests.md")
    for skill in skills:  # every file as listed in RECORD, read back through the reference
        for packed in skill.files:
            assert hashlib.sha256(skill.read_bytes(packed.path)).hexdigest() == packed.sha256

    model = ScriptedModel([[ToolCall("activate_skill", {"name": "tdd"})], "ok"])

    @agent
    def assistant() -> str:
        use_model(model)
        use_skill(tdd)
        return "Help."

    Harness(assistant).prompt_sync("go")
    assert "- **tdd** — " in model.requests[0].system
    assert model.requests[-1].messages[-1]["content"].startswith('<skill name="tdd">')

    listed = subprocess.run(
        [sys.executable, "-m", "flue_build", "ls", REAL], capture_output=True, text=True, timeout=120, check=True
    )
    assert listed.stdout.splitlines()[-1] == f"{REAL_SKILLS} skills in agent_skills_bundle/skills"
