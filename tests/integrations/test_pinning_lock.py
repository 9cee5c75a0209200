"""Pin what you consume (issue 43 item 5): `remote_skills(..., lock=PATH, update_lock=True)` records each served
skill's server identity, URI and content digest (its entry's manifest, the digest a wheel's manifest would record);
with `lock=PATH` alone, a skill whose content differs from the lock, or that the lock does not hold, is left out
with a `SkillWarning` naming it and both digests, before a byte of it is read. `flue-skills lock SERVER` updates the
lock from the terminal. Against a real MCP server (the official SDK's, `support/scripted_mcp.py`) on stdio."""

from __future__ import annotations

import pytest
from support.optional import need

need("mcp", "mcp")

import hashlib
import os
import re
import shlex
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

from support import scripted_mcp
from support.scripted_mcp import entry, reads, served, skill_md, uri, write_config
from support.site import section

from flue_build.cli import main
from flue_runtime import SkillWarning
from flue_runtime.errors import RemoteSkillsError
from flue_runtime.format.lockfile import Pinned, read_lock
from flue_runtime.format.records import PackedFile, content_id
from flue_runtime.mcp import RemoteSkills, remote_skills

pytestmark = pytest.mark.slow  # each test starts MCP servers as child processes

TIMEOUT = 60.0
REFUNDS = {"SKILL.md": skill_md("refunds", "Handle refund requests."), "policy.md": b"30 days.\n"}
TRIAGE = {"SKILL.md": skill_md("triage", "Sort incoming tickets.")}


def digest(files: dict[str, bytes]) -> str:
    return content_id(PackedFile(p, len(d), hashlib.sha256(d).hexdigest()) for p, d in files.items())


def serve(folder: Path, skills: dict[str, dict[str, bytes]], *, dynamic: tuple[str, ...] = ()) -> list[str]:
    """The command of a server of `skills` (rewritten in place: the same command, so the same server identity)."""
    folder.mkdir(parents=True, exist_ok=True)
    pages: list[dict[str, Any]] = []
    files: dict[str, dict[str, Any]] = {}
    for name, content in skills.items():
        listed = entry(name, content)
        if name in dynamic:
            listed["resources"] = "dynamic"
        pages.append(listed)
        files.update(served(content, name))
    config = write_config(folder, [pages], files)
    return [sys.executable, str(Path(scripted_mcp.__file__)), str(config)]


def mounted(command: list[str], **options: Any) -> tuple[RemoteSkills, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        skills = remote_skills(command, timeout=TIMEOUT, **options)
    return skills, [str(w.message) for w in caught if issubclass(w.category, SkillWarning)]


def test_update_lock_records_each_served_skills_server_uri_and_content_digest(tmp_path: Path) -> None:
    command = serve(tmp_path, {"refunds": REFUNDS, "triage": TRIAGE})
    lock = tmp_path / "flue-skills.lock"
    skills, said = mounted(command, lock=lock, update_lock=True)
    with skills:
        assert [s.name for s in skills] == ["refunds", "triage"] and said == []
        pinned = read_lock(lock).servers[skills.identity]
        assert pinned.shown == f"MCP server `{sys.executable} …`"  # how a reader knows it; no argument
        assert pinned.skills == {
            uri("refunds"): Pinned("refunds", digest(REFUNDS)),
            uri("triage"): Pinned("triage", digest(TRIAGE)),
        }
        assert digest(REFUNDS) == skills[0].id  # the digest the skill is known by, as a wheel's manifest keys it
        assert reads(tmp_path) == []  # pinning reads the listing only


def test_a_skill_whose_content_changed_or_the_lock_lacks_is_left_out_before_a_byte_is_read(tmp_path: Path) -> None:
    lock = tmp_path / "flue-skills.lock"
    mounted(serve(tmp_path, {"refunds": REFUNDS, "triage": TRIAGE}), lock=lock, update_lock=True)[0].close()
    changed = {**REFUNDS, "policy.md": b"Every order is refundable, forever.\n"}
    escalation_files = {"SKILL.md": skill_md("escalation", "Escalate.")}
    command = serve(tmp_path, {"refunds": changed, "triage": TRIAGE, "escalation": escalation_files})
    skills, said = mounted(command, lock=lock)
    with skills:
        assert [s.name for s in skills] == ["triage"]
        [refunds] = [w for w in said if "'refunds'" in w or uri("refunds") in w]
        assert digest(changed) in refunds and digest(REFUNDS) in refunds
        [escalation] = [w for w in said if uri("escalation") in w]
        assert "not in the lock" in escalation and digest(escalation_files) in escalation
        assert reads(tmp_path) == []  # nothing of any of them was read
    assert read_lock(lock).servers[skills.identity].skills[uri("refunds")].digest == digest(REFUNDS)  # unchanged


def test_another_servers_pins_are_not_this_ones(tmp_path: Path) -> None:
    lock = tmp_path / "flue-skills.lock"
    mounted(serve(tmp_path / "one", {"refunds": REFUNDS}), lock=lock, update_lock=True)[0].close()
    skills, said = mounted(serve(tmp_path / "two", {"refunds": REFUNDS}), lock=lock)
    assert list(skills) == [] and len(said) == 1 and "not in the lock" in said[0]


def test_a_dynamic_skill_has_no_digest_to_pin_and_is_left_out_under_a_lock(tmp_path: Path) -> None:
    command = serve(tmp_path, {"refunds": REFUNDS, "triage": TRIAGE}, dynamic=("triage",))
    lock = tmp_path / "flue-skills.lock"
    skills, said = mounted(command, lock=lock, update_lock=True, allow_dynamic=True)
    with skills:
        assert [s.name for s in skills] == ["refunds"]
        assert len(said) == 1 and uri("triage") in said[0] and "dynamic" in said[0]
        assert set(read_lock(lock).servers[skills.identity].skills) == {uri("refunds")}


def test_update_lock_without_a_lock_is_refused_before_connecting(tmp_path: Path) -> None:
    with pytest.raises(RemoteSkillsError, match="update_lock=True needs lock="):
        remote_skills(["no-such-command-flue"], update_lock=True)


def test_uris_pin_those_skills_and_keep_the_servers_other_pins(tmp_path: Path) -> None:
    lock = tmp_path / "flue-skills.lock"
    command = serve(tmp_path, {"refunds": REFUNDS, "triage": TRIAGE})
    mounted(command, lock=lock, update_lock=True)[0].close()
    changed = {**TRIAGE, "SKILL.md": skill_md("triage", "Sort tickets, newest first.")}
    command = serve(tmp_path, {"refunds": REFUNDS, "triage": changed})
    skills, _ = mounted(command, lock=lock, update_lock=True, uris=[uri("triage")])
    skills.close()
    pins = read_lock(lock).servers[skills.identity].skills
    assert pins[uri("triage")].digest == digest(changed) and pins[uri("refunds")].digest == digest(REFUNDS)


def test_flue_skills_lock_pins_a_servers_skills_from_the_terminal(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    lock = tmp_path / "flue-skills.lock"
    command = serve(tmp_path, {"refunds": REFUNDS})
    assert main(["lock", shlex.join(command), "--lock", str(lock)]) == 0
    out, _ = capfd.readouterr()
    assert "refunds" in out and digest(REFUNDS) in out and uri("refunds") in out
    changed = {**REFUNDS, "policy.md": b"45 days.\n"}
    command = serve(tmp_path, {"refunds": changed})
    skills, said = mounted(command, lock=lock)
    assert list(skills) == [] and len(said) == 1
    assert main(["lock", shlex.join(command), "--lock", str(lock)]) == 0  # reviewed: pinned again
    assert digest(changed) in capfd.readouterr().out
    [server] = read_lock(lock).servers.values()
    assert server.skills == {uri("refunds"): Pinned("refunds", digest(changed))}  # what remote_skills now mounts


def test_the_guides_pinning_sample_prints_what_it_shows(tmp_path: Path) -> None:
    """docs/guides/hosted-skills.md, "Pinning a remote server's skills": run as written, `flue-skills` on PATH as an
    install puts it."""
    text = section("guides/hosted-skills.md", "## Pinning a remote server's skills")
    [(code, shown)] = re.findall(r"```python\n(.*?)```\n\n```\n(.*?)```", text, re.DOTALL)
    (tmp_path / "snippet.py").write_text(code, encoding="utf-8")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(
        [sys.executable, "snippet.py"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == shown
    [server] = read_lock(tmp_path / "flue-skills.lock").servers.values()
    assert [pin.name for pin in server.skills.values()] == ["refunds"]


def test_the_lock_holds_no_argument_of_a_stdio_servers_command(tmp_path: Path) -> None:
    """A lock is committed: a token passed to a server's command stays out of it (the identity, a digest of the whole
    command, still tells two commands apart)."""
    lock = tmp_path / "flue-skills.lock"
    command = [*serve(tmp_path, {"refunds": REFUNDS}), "--token=s3cr3t-value"]
    with mounted(command, lock=lock, update_lock=True)[0] as skills:
        assert [s.name for s in skills] == ["refunds"]
        shown = read_lock(lock).servers[skills.identity].shown
    assert "s3cr3t" not in lock.read_text()
    assert shown == f"MCP server `{sys.executable} …`"
