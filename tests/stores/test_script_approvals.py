"""Issue 33, consent: an `approval.ask` callback is asked once per script, skill and content digest per session, the
answer kept with the session in its store (a new Harness on the same store does not ask again), and asked
again when the skill's content changes. Real scripts, a real SQLite file and a real PostgreSQL server."""

from __future__ import annotations

from pathlib import Path

import pytest
from store_backends import Backend

from flue_runtime import Harness, LocalSandbox, agent, define_skill, use_model, use_skill
from flue_runtime.agents import approval
from flue_runtime.agents.approval import ScriptRequest
from flue_runtime.agents.stores.contract import SessionRecord
from flue_runtime.models import ScriptedModel, ToolCall
from flue_runtime.mount.reference import SkillReference


def tools(text: str) -> SkillReference:
    return define_skill(
        name="tools",
        description="Has a script.",
        instructions="Run it.",
        files={"scripts/hello.py": f"print({text!r})\n"},
    )


def test_an_answer_is_kept_per_session_and_asked_again_when_the_content_changes(
    durable: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "work").mkdir()
    asked: list[ScriptRequest] = []
    mounted = {"skill": tools("first")}

    def operator(request: ScriptRequest) -> bool:
        asked.append(request)
        return True

    def prompt(session_id: str) -> str:
        run = ToolCall("run_skill_script", {"skill": "tools", "script": "hello.py"})
        model = ScriptedModel([[run, run], "ok"])  # asked twice in one turn: one question

        @agent
        def a() -> str:
            use_model(model)
            use_skill(mounted["skill"])
            return "x"

        harness = Harness(  # a new harness each time: what is remembered is in the store
            a,
            sandbox=LocalSandbox(tmp_path / "work", allow_exec=True),
            store=durable.open(),
            approve_scripts=approval.ask(operator),
        )
        harness.session(session_id).prompt_sync("go")
        results = [m["content"] for m in model.requests[-1].messages if m["role"] == "tool"][-2:]
        assert results[0] == results[1]
        return str(results[0])

    assert "--- stdout ---\nfirst\n" in prompt("s1")
    assert "--- stdout ---\nfirst\n" in prompt("s1")
    assert len(asked) == 1  # once for this content in this session, across two harnesses
    prompt("s2")
    assert len(asked) == 2  # another session asks for itself
    mounted["skill"] = tools("second")  # the skill's content changed: the session is asked again
    assert "--- stdout ---\nsecond\n" in prompt("s1")
    assert len(asked) == 3
    assert asked[2].skill == asked[0].skill and asked[2].digest != asked[0].digest
    prompt("s1")
    assert len(asked) == 3


def test_a_refusal_is_kept_too(durable: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "work").mkdir()
    asked: list[str] = []
    for _ in range(2):
        model = ScriptedModel([[ToolCall("run_skill_script", {"skill": "tools", "script": "hello.py"})], "ok"])

        @agent
        def a() -> str:
            use_model(model)  # noqa: B023 - rendered within this iteration
            use_skill(tools("x"))
            return "x"

        def no(request: ScriptRequest) -> bool:
            asked.append(request.key)
            return False

        policy = approval.ask(no)
        Harness(
            a, sandbox=LocalSandbox(tmp_path / "work", allow_exec=True), store=durable.open(), approve_scripts=policy
        ).session("s").prompt_sync("go")
        result = model.requests[-1].messages[-1]
        assert result["is_error"] and "not approved" in result["content"]
    assert len(asked) == 1
    assert durable.open().load("s").script_approvals == {asked[0]: False}


def two_scripts() -> SkillReference:
    return define_skill(
        name="tools",
        description="Has scripts.",
        instructions="Run them.",
        files={"scripts/report.py": "print('report')\n", "scripts/wipe.py": "open('wiped', 'w').write('all')\n"},
    )


def test_a_kept_answer_covers_its_script_alone_and_an_old_broader_one_grants_nothing(
    durable: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 41 item 3: across runs on one store, a yes for report.py does not run wipe.py; and an answer kept
    before answers named their script (the skill's identity and digest alone, as a release before issue 41 kept
    it) approves no script: the session is asked again."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    work = tmp_path / "work"
    work.mkdir()
    skill = two_scripts()
    asked: list[str] = []

    def prompt(session_id: str, script: str, answer: bool) -> dict[str, object]:
        model = ScriptedModel([[ToolCall("run_skill_script", {"skill": "tools", "script": script})], "ok"])

        @agent
        def a() -> str:
            use_model(model)
            use_skill(skill)
            return "x"

        def operator(request: ScriptRequest) -> bool:
            asked.append(request.script)
            return answer

        policy = approval.ask(operator)
        harness = Harness(a, sandbox=LocalSandbox(work, allow_exec=True), store=durable.open(), approve_scripts=policy)
        harness.session(session_id).prompt_sync("go")
        result: dict[str, object] = model.requests[-1].messages[-1]
        return result

    assert not prompt("s", "report.py", True)["is_error"]
    refused = prompt("s", "wipe.py", False)  # another run on the same store: asked, not run
    assert refused["is_error"] and not (work / "wiped").exists()
    assert asked == ["scripts/report.py", "scripts/wipe.py"]

    store = durable.open()
    store.save("old", SessionRecord("", script_approvals={f"tools {skill.id} {skill.origin}": True}))
    refused = prompt("old", "wipe.py", False)
    assert refused["is_error"] and not (work / "wiped").exists()
    assert asked[-1] == "scripts/wipe.py"  # asked: the old answer approved nothing
