"""`remote_skills` against a hostile MCP server: a real `MCPServer` (official SDK) run as a child process over stdio
(and once over HTTP), serving tampered digests, wrong sizes, a 2 GiB claim, more bytes than listed, a frontmatter
other than SKILL.md's, hostile names and paths, a secret, a private key, a nested skill, a dynamic skill, reads
that never answer. Each is refused with a `FlueError` naming the server (a skill left out with a `SkillWarning`
saying why, a read refused with a `SkillError`, an unusable server a `RemoteSkillsError`), never half
mounted, and never a hang."""

from __future__ import annotations

import pytest
from support.optional import need

need("mcp", "mcp")

import base64
import gc
import os
import signal
import socket
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from support import scripted_mcp
from support.scripted_mcp import entry, reads, served, skill_md, uri, write_config
from support.sources import PEM_KEY

from flue_runtime import Harness, SkillWarning, agent, use_model, use_skill
from flue_runtime.errors import RemoteSkillsError, SkillError
from flue_runtime.mcp import RemoteSkills, remote_skills
from flue_runtime.mcp.remote import FROM, UNVERIFIED
from flue_runtime.models import ScriptedModel, ToolCall

pytestmark = pytest.mark.slow

#: Generous: the server is a Python process started on a machine shared with other test runs.
TIMEOUT = 60.0
#: For the servers that never answer: long enough to start one (a few times what it takes on a loaded machine),
#: short enough to wait for.
SHORT = 8.0


def command(config: Path) -> list[str]:
    return [sys.executable, str(Path(scripted_mcp.__file__)), str(config)]


def shown(config: Path) -> str:
    """How messages name the server: the command that runs it."""
    return f"MCP server `{sys.executable} {Path(scripted_mcp.__file__)} {config}`"


def mounted(target: Any, **options: Any) -> tuple[RemoteSkills, list[str]]:
    """`remote_skills(target)` and every warning it gave."""
    # Garbage an earlier test in this process left (an unclosed file in a reference cycle) is collected first:
    # its ResourceWarning would otherwise land among the warnings recorded here, at whatever moment GC runs.
    gc.collect()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        skills = remote_skills(target, **options)
    assert all(issubclass(w.category, SkillWarning) for w in caught), [str(w.message) for w in caught]
    return skills, [str(w.message) for w in caught]


def finishes(call: Callable[[], object], within: float) -> BaseException | object:
    """What `call()` returned or raised; an AssertionError when it is still running after `within` seconds."""
    out: list[BaseException | object] = []

    def run() -> None:
        try:
            out.append(call())
        except BaseException as exc:
            out.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(within)
    assert not thread.is_alive(), f"still waiting after {within} s: a hang"
    return out[0]


def gone(pid: int) -> bool:
    """The process has exited and was reaped (no zombie left)."""
    try:
        Path(f"/proc/{pid}/status").read_text()  # (a zombie still has one)
    except FileNotFoundError:
        return True
    return False


def wait_gone(pid: int, seconds: float = 30.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if gone(pid):
            return True
        time.sleep(0.05)
    return gone(pid)


# --- the hostile server's skills -----------------------------------------------------------------

GOOD = {
    "SKILL.md": skill_md("good", "An honest skill."),
    "notes.md": b"Some notes.\n",
    "sub/SKILL.md": skill_md("sub", "A skill inside a skill, a file of good."),
}
POLICY = b"Refund policy: 30 days.\n"


def _skill(name: str, extra: dict[str, bytes] | None = None) -> dict[str, bytes]:
    return {"SKILL.md": skill_md(name, f"The {name} skill."), **(extra or {})}


def hostile_config(folder: Path) -> Path:
    """One server, every kind of bad entry beside two honest skills."""
    pages: list[dict[str, Any]] = []
    files: dict[str, dict[str, Any]] = {}

    def add(name: str, content: dict[str, bytes], **tamper: Any) -> dict[str, Any]:
        made = entry(name, content, **tamper)
        pages.append(made)
        files.update(served(content, name))
        return made

    add("good", GOOD)
    # A SKILL.md inside another skill's folder, listed as a skill of its own: never acted on.
    pages.append(entry("sub", {"SKILL.md": GOOD["sub/SKILL.md"]}, root="good/sub"))
    add("tampered", _skill("tampered"), listed={"SKILL.md": {"digest": "sha256:" + "0" * 64}})
    add("wrong-size", _skill("wrong-size"), listed={"SKILL.md": {"size": 10}})
    add(
        "other-frontmatter",
        _skill("other-frontmatter"),
        frontmatter={"name": "other-frontmatter", "description": "Not what SKILL.md says."},
    )
    add("huge", _skill("huge", {"big.bin": b"x"}), listed={"big.bin": {"size": 2 * 1024**3}})
    add("secret", _skill("secret", {".env": b"TOKEN=1\n"}))
    traversal = add("traversal", _skill("traversal"))
    traversal["resources"].append(
        {"uri": "skill://traversal/..%2F..%2Fetc%2Fpasswd", "digest": "sha256:" + "1" * 64, "size": 5}
    )
    add("escape", _skill("escape", {"a\x1b[2Jb.md": b"hi\n"}))
    pages.append(
        {"uri": "skill://../x/SKILL.md", "frontmatter": {"name": "../x", "description": "Up."}, "resources": []}
    )
    bad_name = "bad\x1b[31mname"  # (raw in its URI, as a hostile server may send it)
    bad = entry(bad_name, {"SKILL.md": skill_md(bad_name, "A name with an escape.")})
    bad["uri"] = bad["resources"][0]["uri"] = f"skill://{bad_name}/SKILL.md"
    files[bad["uri"]] = {"text": skill_md(bad_name, "A name with an escape.").decode()}
    pages.append(bad)
    dynamic = _skill("shifting")
    files.update(served(dynamic, "shifting"))
    pages.append(
        {
            "uri": uri("shifting"),
            "frontmatter": {"name": "shifting", "description": "The shifting skill."},
            "resources": "dynamic",
        }
    )
    # Mounted (their files are listed with digests, so read when the model reads them), then refused at the read.
    lazy = {
        "SKILL.md": skill_md("lazy", "Files refused when read."),
        "tampered.md": POLICY,
        "more.md": POLICY,
        "key.txt": PEM_KEY,
        "gone.md": POLICY,
        "policy.md": POLICY,
        "more.bin": b"\x00" * 24,
    }
    add("lazy", lazy, listed={"tampered.md": {"digest": "sha256:" + "2" * 64}})
    files[uri("lazy", "more.md")] = {"text": POLICY.decode() + "and more\n"}
    files[uri("lazy", "gone.md")] = {"error": "gone"}
    files[uri("lazy", "more.bin")] = {"blob": base64.b64encode(b"\x00" * 1000).decode()}
    pages.append(entry("good", GOOD))  # the same skill again
    pages.append(42)  # type: ignore[arg-type]  (not an entry at all)
    return write_config(folder, [pages[:4], pages[4:]], files)


@pytest.fixture
def hostile(tmp_path: Path) -> Iterator[tuple[Path, RemoteSkills, list[str]]]:
    config = hostile_config(tmp_path)
    skills, said = mounted(command(config), timeout=TIMEOUT)
    try:
        yield config, skills, said
    finally:
        skills.close()


def test_only_the_honest_skills_of_a_hostile_server_are_mounted_each_refusal_named(
    hostile: tuple[Path, RemoteSkills, list[str]],
) -> None:
    config, skills, said = hostile
    server = shown(config)
    assert skills.server == server
    # Both pages read; nothing else mounted, not even in part. A SKILL.md other than its entry says is found when
    # the skill is first loaded (nothing is read at listing): the skill is listed, and refused then.
    assert [s.name for s in skills] == ["good", "tampered", "wrong-size", "other-frontmatter", "lazy"]
    refused = {
        m.split(f"{server}: skill ", 1)[1].split(" not mounted: ")[0]: m
        for m in said
        if " not mounted: " in m and "listed twice" not in m
    }
    assert len(refused) == len([m for m in said if " not mounted: " in m]) - 1
    expected = {
        "'skill://good/sub/SKILL.md'": "sits inside the folder of skill skill://good/SKILL.md",
        "'skill://huge/SKILL.md'": "FLU311",
        "'skill://secret/SKILL.md'": ".env",
        "'skill://traversal/SKILL.md'": "listed path '../../etc/passwd' refused",
        "'skill://escape/SKILL.md'": "holds a control character",
        "'skill://../x/SKILL.md'": "is not the last segment of the URI",
        "'skill://bad\\x1b[31mname/SKILL.md'": "FLU20",
        "'skill://shifting/SKILL.md'": "the skill is dynamic: no digests to verify its content by; "
        "remote_skills(..., allow_dynamic=True) mounts it, marked unverified",
        "'42'": "the entry's uri must be the URI of its SKILL.md",
    }
    assert sorted(refused) == sorted(expected)
    assert any(m.startswith(f"{server}: skill 'skill://good/SKILL.md' not mounted: listed twice") for m in said)
    for name, words in expected.items():
        assert words in refused[name], refused[name]
    assert not any("\x1b" in m for m in said)  # a server's escape sequences are shown escaped
    # The nested SKILL.md inside good is a file of good, with the build's warning.
    assert skills[0].resources == ("notes.md", "sub/SKILL.md")
    assert any("FLU212" in m and "skill://good/sub/SKILL.md" in m for m in said)
    # Nothing was read that a listing refused: not the 2 GiB file, not a path outside a skill.
    assert uri("huge", "big.bin") not in reads(config.parent) and not any("passwd" in r for r in reads(config.parent))
    # No file of any skill is read at listing, not even a SKILL.md (SEP-2640: nothing fetched ahead of need).
    assert reads(config.parent) == []


def test_a_skill_md_other_than_its_entry_is_refused_when_first_loaded_and_at_every_later_need(
    hostile: tuple[Path, RemoteSkills, list[str]],
) -> None:
    config, skills, _ = hostile
    named = {s.name: s for s in skills}
    problems = {
        "tampered": "the content hashes to sha256:",
        "wrong-size": "the server sent more than the 10 bytes listed",
        "other-frontmatter": "frontmatter 'description': the entry says \"Not what SKILL.md says.\"",
    }
    for name, words in problems.items():
        for _ in range(2):
            with pytest.raises(SkillError) as raised:
                _ = named[name].instructions
            assert str(raised.value).startswith(f"{shown(config)} skill://{name}: refused when first loaded: ")
            assert words in str(raised.value), raised.value
    assert reads(config.parent).count(uri("tampered")) == 1  # refused once, remembered


def test_files_read_later_are_checked_when_read_and_refused_naming_the_server(
    hostile: tuple[Path, RemoteSkills, list[str]],
) -> None:
    config, skills, _ = hostile
    lazy = skills[-1]
    assert lazy.read_bytes("policy.md") == POLICY
    assert reads(config.parent)[-1] == uri("lazy", "policy.md")
    problems = {
        "tampered.md": "content hashes to sha256:",
        "more.md": "the server sent more than the 24 bytes listed",
        "key.txt": "private key",
        "gone.md": "the server refused to serve it: error -32602: gone",
        "more.bin": "the server sent more than the 24 bytes listed",
    }
    for path, words in problems.items():
        with pytest.raises(SkillError) as raised:
            lazy.read_bytes(path)
        assert str(raised.value).startswith(f"{shown(config)} skill://lazy"), raised.value
        assert words in str(raised.value), raised.value
    # Through the harness, the model's read is refused with the same words, and the skill still works.
    model = ScriptedModel(
        [
            [
                ToolCall("read_skill_resource", {"path": f"/.flue/remote/{skills.identity}/lazy/tampered.md"}),
                ToolCall("read_skill_resource", {"path": f"/.flue/remote/{skills.identity}/lazy/policy.md"}),
            ],
            "done",
        ]
    )

    @agent
    def assistant() -> str:
        use_model(model)
        use_skill(lazy)
        return ""

    Harness(assistant).prompt_sync("go")
    results = [m for m in model.requests[-1].messages if m["role"] == "tool"]
    assert results[0]["is_error"] and "content hashes to sha256:" in results[0]["content"]
    assert not results[1]["is_error"] and "Refund policy: 30 days." in results[1]["content"]


def test_a_dynamic_skill_is_mounted_only_when_allowed_and_its_catalog_line_says_it_is_unverified(
    tmp_path: Path,
) -> None:
    """A "dynamic" entry (no file list, no digests): mounted from its entry alone, nothing fetched at listing
    (SEP-2640: not on listing either), its SKILL.md fetched at first need and still compared with the entry field by
    field; its catalog line says its origin and that it is unverified, its activation its origin."""
    dynamic = _skill("shifting")
    honest = _skill("steady", {"notes.md": b"notes\n"})
    files = {**served(dynamic, "shifting"), **served(honest, "steady")}
    pages = [
        [
            {
                "uri": uri("shifting"),
                "frontmatter": {"name": "shifting", "description": "The shifting skill."},
                "resources": "dynamic",
            },
            entry("steady", honest),
        ]
    ]
    config = write_config(tmp_path, pages, files)
    with mounted(command(config), timeout=TIMEOUT, allow_dynamic=True)[0] as skills:
        shifting, steady = skills
        assert reads(tmp_path) == []  # listed and mounted: no file fetched, the dynamic one's neither
        assert (
            shifting.description
            == "The shifting skill." + FROM.format(origin=shifting.origin, identity=skills.identity) + UNVERIFIED
        )
        assert shifting.resources == () and reads(tmp_path) == []
        assert steady.description == "The steady skill." + FROM.format(origin=steady.origin, identity=skills.identity)
        model = ScriptedModel([[ToolCall("activate_skill", {"name": "shifting"})], "done"])

        @agent
        def assistant() -> str:
            use_model(model)
            use_skill(shifting)
            use_skill(steady)
            return ""

        Harness(assistant).prompt_sync("go")
        assert reads(tmp_path) == [uri("shifting")]  # at its activation, once
        system = model.requests[-1].system
        assert f"- **shifting** — {shifting.description}\n" in system
        assert f"- **steady** — {steady.description}\n" in system + "\n"
        activation = str(model.requests[-1].messages[-1]["content"])
        assert f"[Skill served by {shifting.origin}, server {skills.identity}: a remote MCP server" in activation
        assert "Do the thing." in activation
        assert shifting.instructions.endswith("Do the thing.\n") and reads(tmp_path) == [uri("shifting")]
    # Its SKILL.md is still compared with the entry, field by field: refused at first need, never served.
    pages[0][0]["frontmatter"]["description"] = "Something else."
    config = write_config(tmp_path, pages, files)
    (tmp_path / "reads.log").unlink()
    skills, said = mounted(command(config), timeout=TIMEOUT, allow_dynamic=True)
    with skills:
        assert [s.name for s in skills] == ["shifting", "steady"] and reads(tmp_path) == []
        with pytest.raises(SkillError) as refused:
            _ = skills[0].instructions
        assert "frontmatter 'description': the entry says \"Something else.\", the SKILL.md read says" in str(
            refused.value
        )
        assert reads(tmp_path) == [uri("shifting")]


def test_a_read_that_never_answers_is_refused_within_the_timeout(tmp_path: Path) -> None:
    files = _skill("slow", {"slow.md": b"slow\n"})
    answers = served(files, "slow")
    answers[uri("slow", "slow.md")] = {"hang": True}
    config = write_config(tmp_path, [[entry("slow", files)]], answers)
    skills, _ = mounted(command(config), timeout=SHORT)
    with skills:
        started = time.monotonic()
        raised = finishes(lambda: skills[0].read_bytes("slow.md"), within=SHORT + 30)
        assert isinstance(raised, SkillError), raised
        assert f"resources/read {uri('slow', 'slow.md')}: no answer within {SHORT:g} s" in str(raised)
        assert time.monotonic() - started >= SHORT - 1  # it waited for the server, then gave up
        assert skills[0].read_text("SKILL.md").startswith("---")  # the session is still usable


def test_a_skill_md_that_never_answers_stops_its_load_within_the_timeout(tmp_path: Path) -> None:
    honest, stuck = _skill("honest"), _skill("stuck")
    answers = {**served(honest, "honest"), uri("stuck"): {"hang": True}}
    config = write_config(tmp_path, [[entry("honest", honest), entry("stuck", stuck)]], answers)
    skills, _ = mounted(command(config), timeout=SHORT)  # (listing reads no SKILL.md: nothing to wait for)
    with skills:
        raised = finishes(lambda: skills[1].instructions, within=SHORT + 30)
        assert isinstance(raised, RemoteSkillsError), raised
        assert str(raised).startswith(shown(config) + ": ")
        assert "resources/read skill://stuck/SKILL.md: no answer within" in str(raised)
        assert skills[0].instructions.endswith("\n\nDo the thing.\n")  # the server's failure is not the other skill's
    assert wait_gone(int((tmp_path / "server.pid").read_text()))  # the server was stopped and reaped


def test_a_server_that_never_answers_the_handshake_is_refused_and_reaped(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    silent = [
        sys.executable,
        "-c",
        f"import os, time; open({str(pidfile)!r}, 'w').write(str(os.getpid())); time.sleep(600)",
    ]
    # Nothing has to start in time here (the process never answers): a short wait, as for the silent HTTP server.
    raised = finishes(lambda: remote_skills(silent, timeout=3), within=40)
    assert isinstance(raised, RemoteSkillsError), raised
    assert "no answer within 3 s while connecting" in str(raised)
    assert wait_gone(int(pidfile.read_text()))


def test_an_http_server_that_accepts_and_never_answers_is_refused_within_the_timeout() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/mcp"
        raised = finishes(lambda: remote_skills(url, timeout=3), within=40)
    assert isinstance(raised, RemoteSkillsError), raised
    assert str(raised) == f"MCP server {url}: no answer within 3 s while connecting"


def test_unreachable_servers_are_refused_naming_them() -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    url = f"http://user:hunter2@127.0.0.1:{port}/mcp?key=hunter2"
    raised = finishes(lambda: remote_skills(url, timeout=TIMEOUT), within=TIMEOUT)
    assert isinstance(raised, RemoteSkillsError), raised
    assert str(raised).startswith(f"MCP server http://127.0.0.1:{port}/mcp: cannot connect: ")
    assert "hunter2" not in str(raised)  # credentials in a URL are never shown
    raised = finishes(lambda: remote_skills(["/nonexistent/mcp-server"], timeout=TIMEOUT), within=TIMEOUT)
    assert isinstance(raised, RemoteSkillsError), raised
    assert str(raised).startswith("MCP server `/nonexistent/mcp-server`: cannot connect: ")


def test_a_server_without_the_skills_extension_is_refused(tmp_path: Path) -> None:
    config = write_config(tmp_path, [[]], {}, extension=False)
    with pytest.raises(RemoteSkillsError, match="does not offer the Skills extension"):
        remote_skills(command(config), timeout=TIMEOUT)
    assert wait_gone(int((tmp_path / "server.pid").read_text()))


def test_pages_are_all_read_and_a_listing_that_never_ends_is_refused(tmp_path: Path) -> None:
    skills = {name: _skill(name) for name in ("one", "two", "three")}
    files = {k: v for name, content in skills.items() for k, v in served(content, name).items()}
    pages = [[entry("one", skills["one"])], [entry("two", skills["two"])], [entry("three", skills["three"])]]
    with remote_skills(command(write_config(tmp_path, pages, files)), timeout=TIMEOUT) as mounted_skills:
        assert [s.name for s in mounted_skills] == ["one", "two", "three"]
    config = write_config(tmp_path, pages, files, loop_cursor=True)
    with pytest.raises(RemoteSkillsError, match="gave a cursor it gave before: its pages never end"):
        remote_skills(command(config), timeout=TIMEOUT)
    config = write_config(tmp_path, ["not a list"], files)  # type: ignore[list-item]
    with pytest.raises(RemoteSkillsError) as raised:
        remote_skills(command(config), timeout=TIMEOUT)
    assert (
        str(raised.value) == f"{shown(config)}: skills/list: a malformed answer: skills: Input should be a valid list"
    )


def test_a_stdio_server_that_went_away_is_started_again_for_the_next_read_and_stopped_at_close(
    tmp_path: Path,
) -> None:
    content = _skill("again", {"notes.md": b"notes\n"})
    config = write_config(tmp_path, [[entry("again", content)]], served(content, "again"))
    pidfile = tmp_path / "server.pid"
    skills = remote_skills(command(config), timeout=TIMEOUT)
    first = int(pidfile.read_text())
    os.kill(first, signal.SIGKILL)
    assert wait_gone(first)
    assert skills[0].read_bytes("notes.md") == b"notes\n"  # a new server, started for this read
    second = int(pidfile.read_text())
    assert second != first
    skills.close()
    assert wait_gone(second)
    with pytest.raises(SkillError, match=r"the connection was closed \(RemoteSkills.close\(\)\)"):
        skills[0].read_bytes("notes.md")
