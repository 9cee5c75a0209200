"""`remote_skills` as SEP-2640 asks of a host, requirement by requirement (issue 33), against a real MCP server on
this machine (the official SDK's `MCPServer`, `support/scripted_mcp.py`) that logs every URI it is asked to read.
The table in docs/guides/mcp.md maps each requirement to its test here."""

from __future__ import annotations

import pytest
from support.optional import need

need("mcp", "mcp")

import sys
import warnings
from pathlib import Path
from typing import Any

from support import scripted_mcp
from support.scripted_mcp import entry, gets, reads, served, skill_md, uri, write_config

from flue_runtime import Harness, LocalSandbox, SkillWarning, agent, use_model, use_skill
from flue_runtime.agents import approval
from flue_runtime.agents.approval import ScriptRequest
from flue_runtime.errors import FlueError, RemoteSkillsError, SkillError
from flue_runtime.format.records import content_id
from flue_runtime.mcp import RemoteSkills, remote_skills
from flue_runtime.models import ScriptedModel, ToolCall

pytestmark = pytest.mark.slow

TIMEOUT = 60.0
REFUNDS = {
    "SKILL.md": skill_md("refunds", "Handle refund requests.", "Read policy.md first.\n"),
    "policy.md": b"Orders younger than 30 days are refundable.\n",
    "scripts/check.py": b"print('ok')\n",
}


def command(config: Path) -> list[str]:
    return [sys.executable, str(Path(scripted_mcp.__file__)), str(config)]


def serve(folder: Path, skills: dict[str, dict[str, bytes]]) -> Path:
    """A server of `skills` (by URI path: `acme/billing/refunds`), logging its reads in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    pages: list[dict[str, Any]] = []
    files: dict[str, dict[str, Any]] = {}
    for path, content in skills.items():
        pages.append(entry(path, content, root=path))
        files.update(served(content, path))
    return write_config(folder, [pages], files)


def mounted(config: Path, **options: Any) -> tuple[RemoteSkills, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        skills = remote_skills(command(config), timeout=TIMEOUT, **options)
    return skills, [str(w.message) for w in caught if issubclass(w.category, SkillWarning)]


def run(skills: RemoteSkills, calls: list[ToolCall]) -> ScriptedModel:
    """An agent of `skills` whose model makes `calls`, then answers."""
    model = ScriptedModel([calls, "done"])

    @agent
    def support():  # type: ignore[no-untyped-def]
        use_model(model)
        for skill in skills:
            use_skill(skill)
        return "Answer."

    Harness(support).prompt_sync("hello")
    return model


def test_listing_fetches_no_file_and_a_skill_md_is_fetched_verified_when_first_needed(tmp_path: Path) -> None:
    """Requirement 1: no file retrieved ahead of need (not on connection, not on listing)."""
    config = serve(tmp_path, {"refunds": REFUNDS})
    with mounted(config)[0] as skills:
        assert [s.name for s in skills] == ["refunds"]
        assert skills[0].description.startswith("Handle refund requests.")
        assert skills[0].resources == ("policy.md", "scripts/check.py")
        assert reads(tmp_path) == []  # mounted from the entry alone
        run(skills, [ToolCall("activate_skill", {"name": "refunds"})])
        assert reads(tmp_path) == [uri("refunds")]  # SKILL.md at activation, no support file
        assert "Read policy.md first." in skills[0].instructions


def test_a_file_read_twice_is_fetched_once(tmp_path: Path) -> None:
    """Requirement 7: verified content is cached (two reads of one file, one server read)."""
    config = serve(tmp_path, {"refunds": REFUNDS})
    with mounted(config)[0] as skills:
        path = f"/.flue/remote/{skills.identity}/refunds/policy.md"
        calls = [ToolCall("read_skill_resource", {"path": path}), ToolCall("read_skill_resource", {"path": path})]
        model = run(skills, calls)
        assert "Orders younger than 30 days" in str(model.requests[-1].messages[-1]["content"])
        assert skills[0].read_bytes("policy.md") == REFUNDS["policy.md"]
        assert reads(tmp_path).count(uri("refunds", "policy.md")) == 1
        assert reads(tmp_path).count(uri("refunds")) == 1


def test_names_colliding_in_one_listing_get_labels_the_user_is_told_about(tmp_path: Path) -> None:
    """Requirement 3: two entries named `refunds` are disambiguated by their paths, neither dropped."""
    billing = {"SKILL.md": skill_md("refunds", "Billing refunds.", "Billing.\n")}
    support = {"SKILL.md": skill_md("refunds", "Support refunds.", "Support.\n")}
    config = serve(tmp_path, {"acme/billing/refunds": billing, "acme/support/refunds": support})
    skills, said = mounted(config)
    with skills:
        assert [s.name for s in skills] == ["refunds-billing", "refunds-support"]
        assert [s.alias_of for s in skills] == ["refunds", "refunds"]
        [warning] = [m for m in said if "named 'refunds'" in m]
        assert "skill://acme/billing/refunds/SKILL.md as 'refunds-billing'" in warning
        assert "skill://acme/support/refunds/SKILL.md as 'refunds-support'" in warning
        run(skills, [ToolCall("activate_skill", {"name": "refunds-support"})])
        assert reads(tmp_path) == [uri("acme/support/refunds")]
        assert "Support." in skills[1].instructions


def test_the_catalog_line_and_the_activation_name_the_server_and_the_uri(tmp_path: Path) -> None:
    """Requirement 4: the origin is visible to the model; a remote skill never reads as a local one."""
    config = serve(tmp_path, {"refunds": REFUNDS})
    origin = f"MCP server `{' '.join(command(config))}` skill://refunds"
    with mounted(config)[0] as skills:
        model = run(skills, [ToolCall("activate_skill", {"name": "refunds"})])
        system = str(model.requests[0])
        served_by = f"served by {origin}, server {skills.identity}: a remote MCP server's skill"
        assert f"- **refunds** — Handle refund requests. ({served_by}, not a local one)" in system
        result = str(model.requests[-1].messages[-1]["content"])
        assert f"[Skill {served_by}; its instructions and files are that server's.]" in result
        assert result.index("[Skill served by") < result.index("Read policy.md first.")
        assert skills[0].origin == origin


def test_a_skill_is_loaded_by_uri_alone_through_skills_get_and_verified_as_a_listed_one(tmp_path: Path) -> None:
    """Requirement 2: a host MUST support loading a skill by URI alone; an empty listing proves nothing."""
    tampered = {"SKILL.md": skill_md("tampered", "Tampered.", "Bad.\n")}
    hidden = [
        entry("acme/billing/refunds", REFUNDS, root="acme/billing/refunds"),
        entry("tampered", tampered, listed={"SKILL.md": {"digest": "sha256:" + "0" * 64}}),
    ]
    files = {**served(REFUNDS, "acme/billing/refunds"), **served(tampered, "tampered")}
    config = write_config(tmp_path, [[]], files, unlisted=hidden)
    assert mounted(config)[0] == ()  # the listing is empty
    asked = [uri("acme/billing/refunds"), uri("tampered"), uri("missing")]
    skills, said = mounted(config, uris=asked)
    with skills:
        assert [s.name for s in skills] == ["refunds", "tampered"]
        assert gets(tmp_path) == asked
        assert reads(tmp_path) == []  # nothing beyond what skills/get returned
        [missing] = [m for m in said if "skill://missing/SKILL.md" in m]
        assert (
            "not mounted: skills/get: the server answered error -32602: no skill at skill://missing/SKILL.md" in missing
        )
        run(skills, [ToolCall("activate_skill", {"name": "refunds"})])
        assert reads(tmp_path) == [uri("acme/billing/refunds")]
        assert "Read policy.md first." in skills[0].instructions
        assert skills[0].origin.endswith(" skill://acme/billing/refunds")
        with pytest.raises(SkillError, match="refused when first loaded: .*the content hashes to sha256:"):
            _ = skills[1].instructions


def test_uris_that_are_no_skill_md_uri_are_refused_before_connecting(tmp_path: Path) -> None:
    config = write_config(tmp_path, [[]], {})
    for wrong in ("skill://refunds/SKILL.md", ["skill://refunds"], ["refunds/SKILL.md"], ["/x/SKILL.md"], [7]):
        with pytest.raises(RemoteSkillsError, match="uris= "):
            remote_skills(command(config), uris=wrong)  # type: ignore[arg-type]
    assert not (tmp_path / "server.pid").exists()


def test_a_skill_is_loaded_by_any_absolute_uri_and_the_servers_answer_decides(tmp_path: Path) -> None:
    """Issue 40 item 7 (final text, "Resource Mapping": no scheme is privileged; `skills/get` confirms a skill):
    a `github://` URI is asked with `skills/get` and mounted; an `https://` URI the server does not serve as a skill
    is asked too, and left out because the server said so; two skills of one name under another scheme get labels
    from their own path segments."""
    github = "github://acme/skills/refunds/SKILL.md"
    other = "github://acme/archive/refunds/SKILL.md"
    hidden = [
        entry("acme/skills/refunds", REFUNDS, root="acme/skills/refunds"),
        entry("acme/archive/refunds", REFUNDS, root="acme/archive/refunds"),
    ]
    for each in hidden:
        each["uri"] = each["uri"].replace("skill://", "github://")
        for resource in each["resources"]:
            resource["uri"] = resource["uri"].replace("skill://", "github://")
    files = {
        key.replace("skill://", "github://"): value
        for root in ("acme/skills/refunds", "acme/archive/refunds")
        for key, value in served(REFUNDS, root).items()
    }
    config = write_config(tmp_path, [[]], files, unlisted=hidden)
    asked = [github, "https://acme.example/skills/billing/SKILL.md", other]
    skills, said = mounted(config, uris=asked)
    with skills:
        assert gets(tmp_path) == asked
        assert [s.name for s in skills] == ["refunds-skills", "refunds-archive"]
        assert [s.source.uri for s in skills] == [github, other]
        [refused] = [m for m in said if "https://acme.example" in m]
        assert "not mounted: skills/get: the server answered error -32602" in refused
        assert "Read policy.md first." in skills[0].instructions
        assert reads(tmp_path) == [github]


def test_our_own_server_answers_skills_get_for_a_host_loading_by_uri(tmp_path: Path) -> None:
    """Requirement 2 against `flue-skills mcp` (a folder of skills over stdio): the skill loaded by its URI."""
    for path, data in REFUNDS.items():
        (tmp_path / "skills" / "refunds" / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "skills" / "refunds" / path).write_bytes(data)
    served_by = [sys.executable, "-m", "flue_build", "mcp", str(tmp_path / "skills")]
    with remote_skills(served_by, timeout=TIMEOUT, uris=[uri("refunds")]) as skills:
        assert [s.name for s in skills] == ["refunds"]
        assert skills[0].read_bytes("policy.md") == REFUNDS["policy.md"]
        assert "Read policy.md first." in skills[0].instructions


def runner(says: str) -> dict[str, bytes]:
    return {
        "SKILL.md": skill_md("runner", "Runs a script.", "Run scripts/run.py.\n"),
        "scripts/run.py": f"import os\nprint({says!r}, os.path.dirname(os.path.abspath(__file__)))\n".encode(),
    }


def test_two_servers_skills_of_one_uri_never_share_a_materialized_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Requirement 5: every path where skill files are materialized encodes the server identity. Three servers
    serve `skill://runner`: A's and C's scripts are the same bytes, B's another; each runs its own, from its own
    copy (`<server identity>-<content id>`); in the agent each is mounted under a name of its own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    contents = {"a": runner("from A"), "b": runner("from B"), "c": runner("from A")}
    servers = {key: serve(tmp_path / key, {"runner": files}) for key, files in contents.items()}
    mounts = {key: mounted(config)[0] for key, config in servers.items()}
    try:
        assert len({m.identity for m in mounts.values()}) == 3
        model = ScriptedModel(
            [[ToolCall("run_skill_script", {"skill": f"runner-{key}", "script": "run.py"}) for key in mounts], "ok"]
        )

        @agent
        def support():  # type: ignore[no-untyped-def]
            use_model(model)
            for key, skills in mounts.items():
                use_skill(skills[0], name=f"runner-{key}")
            return "Answer."

        (tmp_path / "work").mkdir()
        sandbox = LocalSandbox(tmp_path / "work", allow_exec=True)
        Harness(support, sandbox=sandbox, approve_scripts=lambda request: True).prompt_sync("go")
        results = [str(m["content"]) for m in model.requests[-1].messages if m.get("role") == "tool"]
        assert len(results) == 3, model.requests[-1].messages
        cache = tmp_path / "cache" / "flue-skills" / "skills"
        folders = {}
        for key, result in zip(mounts, results):
            says = "from B" if key == "b" else "from A"
            assert result.count(says) == 1, result
            folder = Path(result.split(says + " ", 1)[1].split()[0])
            copy = f"{mounts[key].identity}-{content_id(mounts[key][0].verdict)}"
            assert folder == cache / copy / f"runner-{key}" / "scripts"
            folders[key] = folder.parent.parent
        assert len(set(folders.values())) == 3  # A's and C's bytes are the same, their copies are not
        assert content_id(mounts["a"][0].verdict) == content_id(mounts["c"][0].verdict)
    finally:
        for skills in mounts.values():
            skills.close()


def test_a_server_identity_is_its_url_without_credentials_or_its_whole_command() -> None:
    from mcp import StdioServerParameters

    from flue_runtime.mcp.remote import server_identity

    url = server_identity("http://127.0.0.1:8000/mcp")
    assert url == server_identity("HTTP://user:secret@127.0.0.1:8000/mcp")
    assert len({url, server_identity("http://127.0.0.1:8001/mcp"), server_identity("http://127.0.0.1:8000/x")}) == 3
    here = StdioServerParameters(command="flue-skills", args=["mcp", "skills"], cwd="/srv/a")
    there = StdioServerParameters(command="flue-skills", args=["mcp", "skills"], cwd="/srv/b")
    assert server_identity(here) != server_identity(there)
    assert server_identity(here).startswith("mcp-") and len(server_identity(here)) == 20


def policy(says: str) -> dict[str, bytes]:
    return {
        "SKILL.md": skill_md("runner", "Runs things.", "Read policy.md.\n"),
        "policy.md": f"{says}\n".encode(),
    }


def test_two_servers_skills_of_one_uri_never_share_a_virtual_path_nor_reach_each_others_server(
    tmp_path: Path,
) -> None:
    """Requirement 5, the virtual tree: two servers serve `skill://runner`; mounted as `runner` and `runner-b`, each
    skill's files appear read-only under `/.flue/remote/<its server's identity>/<name>/` (never /.flue/skills/),
    in the activation, read_skill_resource, the sandbox's read and ls, relative paths and provenance alike; a path
    of one server's skill never reads the other's, and nothing can be written there. (The model acts on both
    servers' skills at once, so each read across them is asked of the read policy: approved here.)"""
    mounts = {key: mounted(serve(tmp_path / key, {"runner": policy(f"from {key}")}))[0] for key in ("a", "b")}
    a, b = mounts["a"], mounts["b"]
    at = {"a": f"/.flue/remote/{a.identity}/runner", "b": f"/.flue/remote/{b.identity}/runner-b"}
    calls = [
        ToolCall("activate_skill", {"name": "runner"}),
        ToolCall("activate_skill", {"name": "runner-b"}),
        ToolCall("read_skill_resource", {"path": f"{at['a']}/policy.md"}),
        ToolCall("read", {"path": f"{at['b']}/policy.md"}),
        ToolCall("read_skill_resource", {"path": f"/.flue/remote/{a.identity}/runner-b/policy.md"}),
        ToolCall("read", {"path": f"/.flue/remote/{b.identity}/runner/policy.md"}),
        ToolCall("read_skill_resource", {"path": "/.flue/skills/runner/policy.md"}),
        ToolCall("read_skill_resource", {"path": "policy.md"}),
        ToolCall("read_skill_resource", {"path": f"{b.identity}/runner-b/policy.md"}),
        ToolCall("write", {"path": f"{at['a']}/policy.md", "content": "SHADOW"}),
        ToolCall("write", {"path": f".flue/remote/{b.identity}/runner-b/new.md", "content": "SHADOW"}),
        ToolCall("ls", {"path": "/.flue/remote"}),
        ToolCall("ls", {"path": at["b"]}),
    ]
    model = ScriptedModel([calls, "done"])

    @agent
    def support():  # type: ignore[no-untyped-def]
        use_model(model)
        use_skill(a[0])
        use_skill(b[0], name="runner-b")
        return "Answer."

    (tmp_path / "work").mkdir()
    try:
        harness = Harness(support, sandbox=LocalSandbox(tmp_path / "work"), approve_reads=lambda request: True)
        session = harness.session("s")
        session.prompt_sync("go")
        results = [
            (str(m["content"]), bool(m.get("is_error"))) for m in model.requests[-1].messages if m["role"] == "tool"
        ]
        assert len(results) == len(calls)
        assert f"- {at['a']}/policy.md" in results[0][0] and f"- {at['b']}/policy.md" in results[1][0]
        assert "/.flue/skills/" not in results[0][0] + results[1][0]
        header = {
            key: f"server {m.identity}: a remote MCP server's content, not the application's.]\n"
            for key, m in mounts.items()
        }
        assert results[2] == (results[2][0], False) and results[2][0].endswith(f"{header['a']}     1\tfrom a")
        assert results[3] == (results[3][0], False) and results[3][0].endswith(f"{header['b']}     1\tfrom b")
        for wrong in results[4:7]:  # another server's identity, or the local tree: refused, pointing at the real one
            assert wrong[1] and "no mounted skill at" in wrong[0], wrong
        assert f"read {at['b']}/policy.md" in results[4][0] and f"read {at['a']}/policy.md" in results[5][0]
        assert results[7][1] and f"{at['a']}/policy.md" in results[7][0] and f"{at['b']}/policy.md" in results[7][0]
        assert results[8] == (results[3][0], False)
        for written in results[9:11]:
            assert written[1] and "read-only" in written[0], written
        assert not (tmp_path / "work" / ".flue").exists()
        assert results[11] == (f"{a.identity}/\n{b.identity}/", False)
        assert results[12] == (results[12][0], False)
        assert results[12][0].endswith(f"{header['b']}SKILL.md  (63 bytes)\npolicy.md  (7 bytes)")
        # Each server was asked for its own files only, each once.
        assert reads(tmp_path / "a") == [uri("runner"), uri("runner", "policy.md")]
        assert reads(tmp_path / "b") == [uri("runner"), uri("runner", "policy.md")]
        served_ = [s for turn in session.provenance() for s in turn.served if s.kind == "read"]
        assert [(s.skill, s.path, s.origin) for s in served_] == [
            ("runner", "policy.md", a[0].origin),
            ("runner-b", "policy.md", b[0].origin),
            ("runner-b", "policy.md", b[0].origin),
        ]
        assert a[0].origin != b[0].origin
    finally:
        a.close()
        b.close()


def hostile(says: str) -> dict[str, bytes]:
    """A skill whose script leaves a file in the working folder when it runs: the proof that it ran."""
    return {
        "SKILL.md": skill_md("runner", "Runs a script.", "Run scripts/x.py.\n"),
        "scripts/x.py": f"open('ran', 'a').write({says!r} + '\\n')\n".encode(),
    }


def test_a_remote_skills_script_is_refused_by_default_runs_when_approved_and_is_asked_again_when_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Consent, end to end: a hostile server's `scripts/x.py` under `LocalSandbox(allow_exec=True)`. The default
    policy refuses it and it never runs; an approving policy runs it, asked once for that content in the session
    (kept in the session's SQLite store); when the server serves other bytes, the policy is asked again."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    work = tmp_path / "work"
    work.mkdir()
    store = str(tmp_path / "sessions.db")
    asked: list[ScriptRequest] = []

    def operator(request: ScriptRequest) -> bool:
        asked.append(request)
        return True

    def prompt(config: Path, session: str, **options: Any) -> dict[str, Any]:
        model = ScriptedModel([[ToolCall("run_skill_script", {"skill": "runner", "script": "x.py"})], "ok"])
        with mounted(config)[0] as skills:

            @agent
            def support():  # type: ignore[no-untyped-def]
                use_model(model)
                use_skill(skills[0])
                return "Answer."

            sandbox = LocalSandbox(work, allow_exec=True)
            Harness(support, sandbox=sandbox, store=store, **options).session(session).prompt_sync("go")
        return [m for m in model.requests[-1].messages if m["role"] == "tool"][-1]

    config = serve(tmp_path / "server", {"runner": hostile("first")})
    refused = prompt(config, "default")
    assert (
        refused["is_error"]
        and "not approved by the application's script approval policy 'bundled_only'" in (refused["content"])
    )
    assert not (work / "ran").exists() and not (tmp_path / "cache").exists()  # never run, never even copied
    assert prompt(config, "asked", approve_scripts=approval.ask(operator))["is_error"] is False
    assert (work / "ran").read_text() == "first\n" and len(asked) == 1
    assert asked[0].kind == "source" and asked[0].origin.endswith(" skill://runner") and not asked[0].bundled
    prompt(config, "asked", approve_scripts=approval.ask(operator))  # the same content: not asked again
    assert (work / "ran").read_text() == "first\nfirst\n" and len(asked) == 1
    config = serve(tmp_path / "server", {"runner": hostile("second")})  # the server now serves other bytes
    assert prompt(config, "asked", approve_scripts=approval.ask(operator))["is_error"] is False
    assert len(asked) == 2 and asked[1].digest != asked[0].digest and asked[1].skill == asked[0].skill
    assert (work / "ran").read_text() == "first\nfirst\nsecond\n"


def test_an_approval_is_kept_per_server_never_for_the_same_uri_and_bytes_served_by_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A persisted approval keeps the server half of a skill's identity (SEP-2640: never the URI alone). Two servers
    run by the same command in other environments serve `skill://runner` with the same bytes: one origin as messages
    show it, one digest, two identities; approving one's script in a session is asked again for the other's."""
    from mcp import StdioServerParameters

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "work").mkdir()
    config = serve(tmp_path / "server", {"runner": hostile("same")})
    asked: list[ScriptRequest] = []

    def operator(request: ScriptRequest) -> bool:
        asked.append(request)
        return True

    for key in ("a", "b"):
        target = StdioServerParameters(command=sys.executable, args=command(config)[1:], env={"FLUE_SERVER": key})
        model = ScriptedModel([[ToolCall("run_skill_script", {"skill": "runner", "script": "x.py"})], "ok"])
        with remote_skills(target, timeout=TIMEOUT) as skills:
            sandbox = LocalSandbox(tmp_path / "work", allow_exec=True)
            harness = Harness(
                mounting([skills[0]], model),
                sandbox=sandbox,
                store=str(tmp_path / "sessions.db"),
                approve_scripts=approval.ask(operator),
            )
            harness.session("s").prompt_sync("go")
    assert len(asked) == 2, asked
    assert (asked[0].origin, asked[0].digest) == (asked[1].origin, asked[1].digest)
    assert asked[0].server is not None and asked[0].server != asked[1].server
    assert (tmp_path / "work" / "ran").read_text() == "same\nsame\n"


def test_a_servers_script_copies_outlive_close_and_are_removed_when_it_is_forgotten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 40 item 8 (final text, "Cache integrity ...": hosts SHOULD remove a server's cached skill content when
    the user removes that server): the verified copy a script ran from stays in the cache folder after `close()`
    (it is checked again at the next run); `close(forget=True)` removes every copy of that server's skills and
    nothing else (another server's, the application's own); `forget_server(identity)` does it without a connection
    (after a restart), and is told a key that is not a server's."""
    from flue_runtime import define_skill
    from flue_runtime.mcp import forget_server

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "work").mkdir()
    cache = tmp_path / "cache" / "flue-skills" / "skills"
    own = define_skill(
        name="own", description="Ours.", instructions="Run it.", files={"scripts/x.py": "open('own', 'w').close()\n"}
    )

    def run_one(skills: list[Any], name: str) -> None:
        model = ScriptedModel([[ToolCall("run_skill_script", {"skill": name, "script": "x.py"})], "ok"])
        sandbox = LocalSandbox(tmp_path / "work", allow_exec=True)
        harness = Harness(mounting(skills, model), sandbox=sandbox, approve_scripts=approval.ask(lambda _: True))
        harness.prompt_sync("go")
        [result] = [m for m in model.requests[-1].messages if m["role"] == "tool"]
        assert result["is_error"] is False, result

    first = remote_skills(command(serve(tmp_path / "a", {"runner": hostile("a")})), timeout=TIMEOUT)
    second = remote_skills(command(serve(tmp_path / "b", {"runner": hostile("b")})), timeout=TIMEOUT)
    run_one([first[0]], "runner")
    run_one([second[0]], "runner")
    run_one([own], "own")

    def copies() -> list[str]:
        return sorted(p.name.split("-")[1] if p.name.startswith("mcp-") else "own" for p in cache.iterdir())

    assert copies() == sorted([first.identity[4:], second.identity[4:], "own"])
    first.close()
    assert copies() == sorted([first.identity[4:], second.identity[4:], "own"])  # close() alone keeps them
    second.close(forget=True)
    assert copies() == sorted([first.identity[4:], "own"])
    assert forget_server(first.identity) == 1
    assert copies() == ["own"]
    assert forget_server(first.identity) == 0
    with pytest.raises(FlueError, match="not a server's identity"):
        forget_server("../skills")


def test_a_remote_skill_is_exported_only_when_asked_and_its_copy_stays_remote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """Issue 40 item 6 ("Origin travels with content": copies keep it): `export_skills` of a remote skill is refused
    unless `allow_remote=True` (`flue-skills export --allow-remote`), and then lands under `DEST/<server identity>/
    <name>/` beside an origin record; that folder mounted again from disk is the server's skill (its identity, the
    kind of a source from elsewhere), so its script is refused under the default policy and an approval names the
    server, as for the skill served live."""
    from flue_build.cli import main
    from flue_runtime.errors import ExportError
    from flue_runtime.integrations.export import export_skills
    from flue_runtime.mount.disk import load_skill_dir

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "work").mkdir()
    config = serve(tmp_path / "server", {"runner": hostile("copied")})
    dest = tmp_path / "dest"
    with mounted(config)[0] as skills:
        with pytest.raises(ExportError, match=r"served by .*allow_remote=True"):
            export_skills(skills, dest)
        assert not dest.exists()
        [done] = export_skills(skills, dest, allow_remote=True)
        identity = skills.identity
    assert done.folder == dest / identity / "runner"
    assert sorted(p.name for p in (dest / identity).iterdir()) == [".flue-origin.json", "runner"]
    assert (done.folder / "scripts" / "x.py").read_bytes() == hostile("copied")["scripts/x.py"]

    again = load_skill_dir(done.folder)
    assert (again.source.kind, again.source.identity) == ("source", identity)
    assert again.source.uri == "skill://runner/SKILL.md"
    model = ScriptedModel([[ToolCall("run_skill_script", {"skill": "runner", "script": "x.py"})], "ok"])
    Harness(mounting([again], model), sandbox=LocalSandbox(tmp_path / "work", allow_exec=True)).prompt_sync("go")
    [refused] = [m for m in model.requests[-1].messages if m["role"] == "tool"]
    assert refused["is_error"] and "not approved by the application's script approval policy" in refused["content"]
    assert not (tmp_path / "work" / "ran").exists()
    asked: list[ScriptRequest] = []
    model = ScriptedModel([[ToolCall("run_skill_script", {"skill": "runner", "script": "x.py"})], "ok"])
    harness = Harness(
        mounting([again], model),
        sandbox=LocalSandbox(tmp_path / "work", allow_exec=True),
        approve_scripts=approval.ask(lambda request: asked.append(request) or True),
    )
    harness.prompt_sync("go")
    assert [(r.server, r.kind, r.bundled) for r in asked] == [(identity, "source", False)]

    module = tmp_path / "exporting_agent.py"
    module.write_text(
        "from flue_runtime import agent, use_skill\n"
        "from flue_runtime.mcp import remote_skills\n"
        f"SKILLS = remote_skills({command(config)!r}, timeout={TIMEOUT})\n"
        "@agent\n"
        "def support():\n"
        "    use_skill(SKILLS[0])\n"
        "    return 'Answer.'\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    cli_dest = tmp_path / "cli"
    assert main(["export", "exporting_agent:support", str(cli_dest)]) == 1
    assert "--allow-remote" in capfd.readouterr().err and not cli_dest.exists()
    assert main(["export", "exporting_agent:support", str(cli_dest), "--allow-remote"]) == 0
    assert (cli_dest / identity / "runner" / "SKILL.md").is_file()


def test_spans_of_a_remote_skill_carry_its_skill_uri(tmp_path: Path) -> None:
    """Telemetry: an activation and a read of a remote skill are spans with `gen_ai.skill.source.uri`, the URI of
    its SKILL.md as the server lists it (the source's `uri`), recorded by the real SDK's in-memory exporter."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from flue_runtime.agents.telemetry import Telemetry

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    config = serve(tmp_path, {"acme/billing/refunds": REFUNDS})
    with mounted(config)[0] as skills:
        path = f"/.flue/remote/{skills.identity}/refunds/policy.md"
        model = ScriptedModel(
            [[ToolCall("activate_skill", {"name": "refunds"}), ToolCall("read_skill_resource", {"path": path})], "ok"]
        )

        @agent
        def support():  # type: ignore[no-untyped-def]
            use_model(model)
            use_skill(skills[0])
            return "Answer."

        Harness(support, telemetry=Telemetry(tracer_provider=provider)).session("s").prompt_sync("go")
    spans = {span.name: span.attributes or {} for span in exporter.get_finished_spans()}
    for name, file in (("execute_tool activate_skill", "SKILL.md"), ("execute_tool read_skill_resource", "policy.md")):
        assert spans[name]["gen_ai.skill.source.uri"] == "skill://acme/billing/refunds/SKILL.md", spans[name]
        assert spans[name]["gen_ai.skill.name"] == "refunds" and spans[name]["flue.skill.file.path"] == file


def mounting(skills: list[Any], model: ScriptedModel | None = None) -> Any:
    """An agent of `model` (one that answers at once by default) mounting `skills` in that order."""

    @agent
    def both():  # type: ignore[no-untyped-def]
        use_model(model or ScriptedModel(["done"]))
        for skill in skills:
            use_skill(skill)
        return "Answer."

    return both


def test_a_remote_skill_grants_no_tools_and_never_stands_in_for_a_local_skill_of_its_name(tmp_path: Path) -> None:
    """ "No implicit permission grants": a remote skill's `allowed-tools` is never taken, before or after it is
    loaded; "Names": a remote `refunds` and the application's own `refunds` in one agent resolve per origin (the
    local one keeps its name, the remote one is labelled by its server, a warning says so: never one silently
    preferred, nor the agent stopped; more in test_remote_origins.py); mounted under another name, both are there."""
    from flue_runtime import define_skill

    granting = {
        **REFUNDS,
        "SKILL.md": skill_md("refunds", "Handle refund requests.", "Go.\n", **{"allowed-tools": "Bash"}),
    }
    local = define_skill(name="refunds", description="The local refunds.", instructions="Local.")
    with mounted(serve(tmp_path, {"refunds": granting}))[0] as skills:
        assert skills[0].allowed_tools == ()
        assert "Go." in skills[0].instructions and skills[0].allowed_tools == ()  # loaded: still none
        labelled = f"refunds-{skills.identity.removeprefix('mcp-')[:8]}"
        for order in ([local, skills[0]], [skills[0], local]):
            model = ScriptedModel(["done"])
            with pytest.warns(SkillWarning, match=f"'refunds' of .* as '{labelled}'"):
                Harness(mounting(order, model)).prompt_sync("hello")
            assert "- **refunds** — The local refunds." in model.requests[0].system
            assert f"- **{labelled}** — Handle refund requests. (served by" in model.requests[0].system
        model = ScriptedModel(["done"])

        @agent
        def apart():  # type: ignore[no-untyped-def]
            use_model(model)
            use_skill(local)
            use_skill(skills[0], name="refunds-remote")
            return "Answer."

        Harness(apart).prompt_sync("hello")
        assert "- **refunds** — The local refunds." in model.requests[0].system
        assert "- **refunds-remote** — Handle refund requests. (served by" in model.requests[0].system


def test_a_skill_at_the_extensions_limits_is_mounted_and_read(tmp_path: Path) -> None:
    """ "Hosts MUST support skills up to and including these limits": 512 files, 16 MiB in all, listed, mounted
    and read, the largest file (over 15 MiB) verified against its digest."""
    files = {"SKILL.md": skill_md("big", "A skill at the limits.", "Read the files.\n")}
    files.update({f"files/{n:03}.md": b"x\n" for n in range(510)})
    files["data.bin"] = b"\x00" * (16 * 1024 * 1024 - sum(len(data) for data in files.values()))
    assert len(files) == 512 and sum(len(data) for data in files.values()) == 16 * 1024 * 1024
    config = write_config(tmp_path, [[entry("big", files)]], served(files, "big", blob=True))
    skills, said = mounted(config)
    with skills:
        assert [s.name for s in skills] == ["big"] and len(skills[0].files) == 512, said
        with pytest.warns(SkillWarning, match="FLU305 large file"):  # (the build's warning, when first loaded)
            assert skills[0].read_bytes("data.bin") == files["data.bin"]
        assert skills[0].read_bytes("files/509.md") == b"x\n"


def test_the_guides_table_of_host_rules_names_tests_that_exist() -> None:
    """docs/guides/mcp.md maps each host rule of SEP-2640 to its tests: each one named exists, so none drifts."""
    import re

    root = Path(__file__).parents[2]
    text = (root / "docs" / "guides" / "mcp.md").read_text(encoding="utf-8")
    table = text.split("### The extension's host rules, and their tests", 1)[1]
    legend = dict(re.findall(r"`([A-Z])`:\s+`([\w/.]+)`", table.split("| SEP-2640 (host)", 1)[0]))
    modules = {
        key: root / "tests" / ("integrations/" + path if "/" not in path else path.removeprefix("tests/"))
        for key, path in legend.items()
    }
    named = re.findall(r"`([A-Z])::(test_\w+)`", table)
    assert len(named) >= 30 and set(key for key, _ in named) == set(modules)
    for key, name in named:
        assert f"def {name}(" in modules[key].read_text(encoding="utf-8"), (key, name)
