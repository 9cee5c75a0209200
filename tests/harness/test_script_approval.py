"""Issue 33, consent: `run_skill_script` runs a script only when the harness's approval policy approves the
skill's identity and content digest; skills from elsewhere and workspace skills are refused by default, and a
refusal is the tool's result, naming the policy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from harness_support import tool_results
from support.sources import DictSource, skill_md

from flue_runtime import Harness, LocalSandbox, agent, define_skill, load_skill, use_model, use_skill
from flue_runtime.agents import approval
from flue_runtime.agents.approval import ScriptRequest
from flue_runtime.models import ScriptedModel, ToolCall
from flue_runtime.mount.reference import SkillReference

RUN = ToolCall("run_skill_script", {"skill": "tools", "script": "hello.py"})


def defined(text: str = "hi") -> SkillReference:
    return define_skill(
        name="tools",
        description="Has a script.",
        instructions="Run it.",
        files={"scripts/hello.py": f"print({text!r})\n"},
    )


def loaded() -> SkillReference:
    """A skill from elsewhere: a `SkillSource` mounted through `load_skill`, as a remote MCP skill is."""
    files = {"SKILL.md": skill_md("tools", "Has a script."), "scripts/hello.py": b"open('ran', 'w').write('yes')\n"}
    return load_skill(DictSource("tools", files, where="remote skill skill://tools"))


def prompt(skill: SkillReference, work: Path, **options: Any) -> dict[str, Any]:
    model = ScriptedModel([[RUN], "ok"])

    @agent
    def a() -> str:
        use_model(model)
        use_skill(skill)
        return "x"

    Harness(a, sandbox=LocalSandbox(work, allow_exec=True), **options).session("s").prompt_sync("go")
    [result] = tool_results(model)
    return result


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "work").mkdir()
    return tmp_path / "work"


def test_a_skill_from_elsewhere_is_refused_by_default_and_the_loop_goes_on(work: Path) -> None:
    result = prompt(loaded(), work)
    assert not (work / "ran").exists()
    assert result["is_error"]
    assert "not approved by the application's script approval policy 'bundled_only'" in result["content"]
    assert "remote skill skill://tools" in result["content"]


def test_the_applications_own_skill_runs_by_default_and_never_refuses_it(work: Path) -> None:
    assert prompt(defined(), work)["content"] == "exit status: 0\n--- stdout ---\nhi\n--- stderr: empty ---"
    refused = prompt(defined(), work, approve_scripts=approval.never)
    assert (
        refused["is_error"]
        and "not approved by the application's script approval policy 'never'" in (refused["content"])
    )


def test_a_callback_decides_and_sees_the_skills_identity_and_digest(work: Path) -> None:
    asked: list[ScriptRequest] = []

    def yes(request: ScriptRequest) -> bool:
        asked.append(request)
        return True

    skill = loaded()
    prompt(skill, work, approve_scripts=approval.ask(yes))
    assert (work / "ran").read_text() == "yes"
    [request] = asked
    assert (request.skill, request.origin, request.kind, request.script) == (
        "tools",
        "remote skill skill://tools",
        "source",
        "scripts/hello.py",
    )
    assert request.digest == skill.id and not request.bundled


def test_a_failing_or_async_callback(work: Path) -> None:
    def broken(request: ScriptRequest) -> bool:
        raise RuntimeError("no terminal")

    async def no(request: ScriptRequest) -> bool:
        return False

    failed = prompt(defined(), work, approve_scripts=broken)
    assert failed["is_error"] and "the approval policy 'ask' failed (RuntimeError: no terminal)" in failed["content"]
    refused = prompt(defined(), work, approve_scripts=approval.ask(no, name="operator"))
    assert refused["is_error"] and "policy 'operator'" in refused["content"]


WORKSPACE_SKILL = "---\nname: helper\ndescription: Helps. Use when asked.\n---\nRun scripts/go.py.\n"


def test_a_workspace_skill_is_refused_whatever_the_policy_and_it_is_never_asked(work: Path) -> None:
    folder = work / ".agents" / "skills" / "helper"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(WORKSPACE_SKILL)
    (folder / "scripts" / "go.py").write_text("open('ran', 'w').write('yes')\n")
    asked: list[ScriptRequest] = []
    model = ScriptedModel([[ToolCall("run_skill_script", {"skill": "helper", "script": "go.py"})], "ok"])

    @agent
    def a() -> str:
        use_model(model)
        use_skill(defined())
        return "x"

    def yes(request: ScriptRequest) -> bool:
        asked.append(request)
        return True

    policy = approval.ask(yes)
    Harness(a, sandbox=LocalSandbox(work, allow_exec=True), approve_scripts=policy).session("s").prompt_sync("go")
    [result] = tool_results(model)
    assert not (work / "ran").exists() and not asked
    assert result["is_error"] and "not approved by any policy" in result["content"]


def test_harness_refuses_what_is_not_a_policy() -> None:
    from flue_runtime.errors import AgentError

    with pytest.raises(AgentError, match="approve_scripts"):
        Harness(lambda: "x", approve_scripts="always")  # type: ignore[arg-type]


def two_scripts() -> SkillReference:
    """A skill from elsewhere with a harmless script and a harmful one."""
    files = {
        "SKILL.md": skill_md("tools", "Has scripts."),
        "scripts/report.py": b"import sys\nopen('reported', 'a').write(' '.join(sys.argv[1:]) + '\\n')\n",
        "scripts/wipe.py": b"open('wiped', 'w').write('all')\n",
    }
    return load_skill(DictSource("tools", files, where="remote skill skill://tools"))


def test_an_answer_covers_the_script_it_named_with_any_arguments_and_no_other(work: Path) -> None:
    """Issue 41 item 3: a yes for `scripts/report.py --dry-run` lets report.py run again, with other arguments,
    in this session; `scripts/wipe.py --all` is asked about on its own (and, refused here, never runs)."""
    asked: list[ScriptRequest] = []

    def operator(request: ScriptRequest) -> bool:
        asked.append(request)
        return request.script == "scripts/report.py"

    calls = [
        ToolCall("run_skill_script", {"skill": "tools", "script": "report.py", "args": ["--dry-run"]}),
        ToolCall("run_skill_script", {"skill": "tools", "script": "wipe.py", "args": ["--all"]}),
        ToolCall("run_skill_script", {"skill": "tools", "script": "report.py", "args": ["--for-real"]}),
    ]
    model = ScriptedModel([[calls[0]], [calls[1]], [calls[2]], [calls[1]], "ok"])
    skill = two_scripts()

    @agent
    def a() -> str:
        use_model(model)
        use_skill(skill)
        return "x"

    policy = approval.ask(operator)
    Harness(a, sandbox=LocalSandbox(work, allow_exec=True), approve_scripts=policy).session("s").prompt_sync("go")
    assert [(r.script, r.args) for r in asked] == [
        ("scripts/report.py", ("--dry-run",)),
        ("scripts/wipe.py", ("--all",)),
    ]
    assert (work / "reported").read_text() == "--dry-run\n--for-real\n"
    assert not (work / "wiped").exists()
    assert asked[0].key != asked[1].key
    results = [m for m in model.requests[-1].messages if m["role"] == "tool"]
    assert [r["is_error"] for r in results] == [False, True, False, True]
