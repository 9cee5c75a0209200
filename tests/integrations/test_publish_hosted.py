"""`flue-skills publish TARGET --to anthropic|openai` and `flue_runtime.publish.publish` (issue 43 items 1-4, 6):
the vetted bytes of each skill uploaded through the official SDK, once; a lock of what was published; one new
version per change (the default, on OpenAI); `--check` and `--dry-run` that send nothing that writes.

Against a loopback stand-in of both services (`support/hosted_skills.py`), written from the SDKs' paths and response
types, reached by the real SDK clients through the variables a user sets (`ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL`).
"""

from __future__ import annotations

import pytest
from support.optional import need

need("anthropic", "anthropic")
need("openai", "openai")

import json
import re
from pathlib import Path
from typing import Any

from support.hosted_skills import StandIn, failure, stand_in
from support.site import section

from flue_build.cli import main
from flue_runtime.format.lockfile import LOCK_FILE, read_lock
from flue_runtime.mount.disk import load_skill_dir
from flue_runtime.mount.reference import SkillReference
from flue_runtime.publish import publish

__all__ = ["stand_in"]

SECRET = "ghp_" + "Zx9" * 12  # a GitHub token at full length: what vetting refuses


def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder (its pyproject.toml, where the lock goes by default) with a folder of two skills; the
    current folder is the project's."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'acme'\nversion = '1'\n")
    write_skill(tmp_path / "skills" / "refunds", "Handle refund requests.", {"policy.md": b"30 days.\n"})
    write_skill(tmp_path / "skills" / "triage", "Sort incoming tickets.", {})
    monkeypatch.chdir(tmp_path)
    return tmp_path / "skills"


def write_skill(folder: Path, description: str, files: dict[str, bytes]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\nname: {folder.name}\ndescription: {description}\n---\nDo it well.\n")
    for path, data in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_bytes(data)


def on_disk(folder: Path) -> dict[str, bytes]:
    return {
        f"{folder.name}/{p.relative_to(folder).as_posix()}": p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["publish", *args])
    out, err = capsys.readouterr()
    return code, out, err


def rows(out: str) -> dict[str, list[str]]:
    """The summary table, by skill: skill, service, id, version, action (and why)."""
    lines = out.strip().splitlines()
    assert lines[0].split()[:5] == ["skill", "service", "id", "version", "action"], out
    return {line.split()[0]: line.split(None, 4) for line in lines[1:]}


def test_the_first_publish_creates_each_skill_once_with_its_vetted_bytes_and_locks_it(
    stand_in: StandIn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    skills = project(tmp_path, monkeypatch)
    code, out, err = run(capsys, str(skills), "--to", "anthropic")
    assert code == 0, err
    assert [(r.method, r.path) for r in stand_in.writes] == [("POST", "/v1/skills")] * 2
    assert stand_in.uploads("anthropic") == [on_disk(skills / "refunds"), on_disk(skills / "triage")]
    lock = read_lock(tmp_path / LOCK_FILE)
    hosted = {s.name: s for s in stand_in.skills["anthropic"].values()}
    for name in ("refunds", "triage"):
        entry = lock.published["anthropic"][name]
        assert entry.id == hosted[name].id and entry.version == hosted[name].versions[-1].id
        assert entry.digest == load_skill_dir(skills / name).id
        assert rows(out)[name] == [name, "anthropic", entry.id, entry.version, "created"]
    assert [line.split()[2] for line in err.strip().splitlines()] == ["refunds:", "triage:"]  # progress, on stderr


@pytest.mark.parametrize("service", ["anthropic", "openai"])
def test_unchanged_skills_send_no_request_that_writes(
    service: str,
    stand_in: StandIn,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    skills = project(tmp_path, monkeypatch)
    assert run(capsys, str(skills), "--to", service)[0] == 0
    written, lock = len(stand_in.writes), (tmp_path / LOCK_FILE).read_bytes()
    code, out, _ = run(capsys, str(skills), "--to", service)
    assert code == 0 and len(stand_in.writes) == written
    assert (tmp_path / LOCK_FILE).read_bytes() == lock
    assert {row[4] for row in rows(out).values()} == {"unchanged"}


def test_a_change_makes_one_new_version_and_openai_makes_it_the_default(
    stand_in: StandIn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    skills = project(tmp_path, monkeypatch)
    assert run(capsys, str(skills), "--to", "openai")[0] == 0
    [first, _] = stand_in.uploads("openai")
    assert first == on_disk(skills / "refunds")  # the zip holds the folder, named as the skill, byte for byte
    (skills / "refunds" / "policy.md").write_bytes(b"45 days.\n")
    before = len(stand_in.writes)
    code, out, err = run(capsys, str(skills), "--to", "openai")
    assert code == 0, err
    [write] = stand_in.writes[before:]
    refunds = next(s for s in stand_in.skills["openai"].values() if s.name == "refunds")
    assert write.path == f"/v1/skills/{refunds.id}/versions" and write.form.get("default") == "true"
    assert stand_in.uploads("openai")[-1] == on_disk(skills / "refunds")
    assert refunds.default == "2" and len(refunds.versions) == 2
    entry = read_lock(tmp_path / LOCK_FILE).published["openai"]["refunds"]
    assert entry.version == "2" and entry.digest == load_skill_dir(skills / "refunds").id
    assert rows(out)["refunds"][3] == "2" and rows(out)["refunds"][4].startswith("updated (changed here: ")
    assert rows(out)["triage"][4] == "unchanged"


def test_check_exits_0_in_sync_and_1_naming_every_skill_changed_here_or_there_or_never_published(
    stand_in: StandIn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    skills = project(tmp_path, monkeypatch)
    assert run(capsys, str(skills), "--to", "anthropic")[0] == 0
    written, lock = len(stand_in.writes), (tmp_path / LOCK_FILE).read_bytes()
    code, out, _ = run(capsys, str(skills), "--to", "anthropic", "--check")
    assert code == 0 and [row[4] for row in rows(out).values()] == ["in sync", "in sync"]

    (skills / "refunds" / "policy.md").write_bytes(b"45 days.\n")  # changed here
    triage = read_lock(tmp_path / LOCK_FILE).published["anthropic"]["triage"].id
    made = stand_in.out_of_band("anthropic", triage, on_disk(skills / "triage"))  # changed there
    write_skill(skills / "escalation", "Escalate to a human.", {})  # never published
    code, out, err = run(capsys, str(skills), "--to", "anthropic", "--check")
    assert code == 1
    table = rows(out)
    assert {name: row[4].split()[0] for name, row in table.items()} == {
        "escalation": "drifted",
        "refunds": "drifted",
        "triage": "drifted",
    }
    assert "changed here" in table["refunds"][4] and "changed there" in table["triage"][4] and made in out
    assert "not published" in table["escalation"][4]
    for name in ("escalation", "refunds", "triage"):
        assert name in err
    assert len(stand_in.writes) == written and (tmp_path / LOCK_FILE).read_bytes() == lock


def test_dry_run_prints_the_plan_and_sends_nothing_that_writes(
    stand_in: StandIn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    skills = project(tmp_path, monkeypatch)
    code, out, _ = run(capsys, str(skills), "--to", "openai", "--dry-run")
    assert code == 0 and stand_in.writes == [] and not (tmp_path / LOCK_FILE).exists()
    assert {row[4] for row in rows(out).values()} == {"would create"}
    assert run(capsys, str(skills), "--to", "openai")[0] == 0
    (skills / "triage" / "SKILL.md").write_text("---\nname: triage\ndescription: Sort tickets.\n---\nNew.\n")
    written = len(stand_in.writes)
    code, out, _ = run(capsys, str(skills), "--to", "openai", "--dry-run")
    assert code == 0 and len(stand_in.writes) == written
    assert rows(out)["triage"][4].startswith("would update") and rows(out)["refunds"][4] == "unchanged"


def test_a_skill_a_service_refuses_stops_everything_before_any_request(
    stand_in: StandIn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    skills = project(tmp_path, monkeypatch)
    write_skill(skills / "claude-notes", "Notes.", {})
    code, out, err = run(capsys, str(skills), "--to", "anthropic")
    assert code == 1 and stand_in.requests == [] and not (tmp_path / LOCK_FILE).exists()
    assert "'claude-notes'" in err and "claude" in err and "nothing was sent" in err
    assert run(capsys, str(skills), "--to", "openai")[0] == 0  # OpenAI has no such rule


def test_a_secret_never_leaves(
    stand_in: StandIn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    skills = project(tmp_path, monkeypatch)
    (skills / "refunds" / ".env").write_text(f"TOKEN={SECRET}\n")
    code, _, err = run(capsys, str(skills), "--to", "openai")
    assert code == 1 and stand_in.requests == [], err  # a skill that fails vetting stops the whole publish
    assert "refunds" in err and ".env" in err and "nothing was sent" in err

    (skills / "refunds" / ".env").unlink()
    (skills / "refunds" / "node_modules").mkdir()  # noise: skipped with a warning, never vetted, never shipped
    (skills / "refunds" / "node_modules" / "settings.txt").write_text(f"TOKEN={SECRET}\n")
    code, _, err = run(capsys, str(skills), "--to", "anthropic")
    assert code == 0, err
    assert stand_in.uploads("anthropic")[0] == {
        k: v for k, v in on_disk(skills / "refunds").items() if "node_modules" not in k
    }
    assert all(SECRET.encode() not in request.body for request in stand_in.requests)  # multipart: bytes as sent


def test_json_output_has_the_tables_rows(
    stand_in: StandIn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    skills = project(tmp_path, monkeypatch)
    code, out, _ = run(capsys, str(skills), "--to", "openai", "--format", "json")
    assert code == 0
    document: list[dict[str, Any]] = json.loads(out)
    assert [(r["skill"], r["service"], r["version"], r["action"]) for r in document] == [
        ("refunds", "openai", "1", "created"),
        ("triage", "openai", "1", "created"),
    ]
    assert document[0]["digest"] == load_skill_dir(skills / "refunds").id and document[0]["id"].startswith("skill_")


def test_a_service_that_refuses_the_request_is_exit_2_naming_the_service_and_its_answer(
    stand_in: StandIn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    skills = project(tmp_path, monkeypatch)
    stand_in.failure = failure("anthropic", 401, "invalid x-api-key")
    code, _, err = run(capsys, str(skills), "--to", "anthropic")
    assert code == 2 and "Anthropic" in err and "401" in err and "invalid x-api-key" in err
    assert "ANTHROPIC_API_KEY" in err and read_lock(tmp_path / LOCK_FILE).published == {}


def test_a_lock_that_cannot_be_written_stops_the_publish_before_any_request(
    stand_in: StandIn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A skill created there and recorded nowhere would be created again by the next run."""
    skills = project(tmp_path, monkeypatch)
    code, _, err = run(capsys, str(skills), "--to", "openai", "--lock", str(tmp_path / "no-such-folder" / LOCK_FILE))
    assert code == 2 and "no-such-folder" in err and stand_in.requests == []


def test_a_lock_holds_what_was_done_before_a_failure_so_nothing_is_created_twice(
    stand_in: StandIn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    skills = project(tmp_path, monkeypatch)
    write_skill(skills / "zeta", "Last in order.", {})
    assert run(capsys, str(skills / "refunds"), "--to", "openai")[0] == 0
    (skills / "refunds" / "policy.md").write_bytes(b"45 days.\n")
    stand_in.failure = None
    original = stand_in.answer

    def fail_on_zeta(request: Any) -> tuple[int, Any]:
        if request.writes and "zeta.zip" in request.files:
            return failure("openai", 400, "zeta refused")
        return original(request)

    monkeypatch.setattr(stand_in, "answer", fail_on_zeta)
    assert run(capsys, str(skills), "--to", "openai")[0] == 2
    lock = read_lock(tmp_path / LOCK_FILE).published["openai"]
    assert set(lock) == {"refunds", "triage"} and lock["refunds"].version == "2"
    monkeypatch.setattr(stand_in, "answer", original)
    before = len(stand_in.writes)
    code, out, _ = run(capsys, str(skills), "--to", "openai")
    assert code == 0 and [r.path for r in stand_in.writes[before:]] == ["/v1/skills"]
    assert rows(out)["zeta"][4] == "created" and rows(out)["refunds"][4] == "unchanged"


def test_the_python_side_returns_the_report_the_command_prints(stand_in: StandIn, tmp_path: Path) -> None:
    write_skill(tmp_path / "refunds", "Handle refund requests.", {"policy.md": b"30 days.\n"})
    refunds = load_skill_dir(tmp_path / "refunds")
    lock = tmp_path / "hosted.lock"
    report = publish([refunds], to="openai", lock=lock)
    [done] = report.outcomes
    assert (done.skill, done.service, done.action, done.digest) == ("refunds", "openai", "created", refunds.id)
    assert report.lock == lock and read_lock(lock).published["openai"]["refunds"].id == done.id
    checked = publish([refunds], to="openai", lock=lock, check=True)
    assert checked.drifted == () and [o.action for o in checked.outcomes] == ["in sync"]


@pytest.mark.slow  # the fixture project's wheel, built and installed once per session (`installed`)
def test_an_installed_wheels_skills_are_published_as_its_manifest_records_them(
    stand_in: StandIn, demo: dict[str, SkillReference], tmp_path: Path
) -> None:
    lock = tmp_path / LOCK_FILE
    report = publish([demo["refunds"], demo["triage"]], to="anthropic", lock=lock)
    assert [o.action for o in report.outcomes] == ["created", "created"]
    for name, upload in zip(("refunds", "triage"), stand_in.uploads("anthropic")):
        skill = demo[name]
        assert upload == {f"{name}/{f.path}": skill.read_bytes(f.path) for f in skill.files}
        assert read_lock(lock).published["anthropic"][name].digest == skill.id  # the manifest's key


def test_the_guides_python_sample_prints_what_it_shows(
    stand_in: StandIn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/guides/hosted-skills.md, "From Python": run as written against the stand-in."""
    text = section("guides/hosted-skills.md", "### From Python")
    [(code, shown)] = re.findall(r"```python\n(.*?)```\n\n```\n(.*?)```", text, re.DOTALL)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "hosted-skills.md", "exec"), {"__name__": "__sample__"})
    assert capsys.readouterr().out == shown
    assert [r.path for r in stand_in.writes] == ["/v1/skills"]


@pytest.mark.parametrize(("service", "variable"), [("anthropic", "ANTHROPIC_API_KEY"), ("openai", "OPENAI_API_KEY")])
def test_no_key_is_exit_2_naming_the_variable_the_sdk_reads(
    service: str,
    variable: str,
    stand_in: StandIn,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    skills = project(tmp_path, monkeypatch)
    monkeypatch.delenv(variable)
    code, _, err = run(capsys, str(skills), "--to", service)
    assert code == 2 and variable in err and "Traceback" not in err and stand_in.requests == []
