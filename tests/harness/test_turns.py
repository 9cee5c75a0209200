"""Issue 13 items 1-3: the agent is rendered before every model turn; changes of its instructions
and skills are announced in appended messages; the system prompt and every tool definition stay
byte-identical, and the set of tools only grows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from harness_support import tool_results

from flue_runtime import (
    Harness,
    MemorySandbox,
    ToolContext,
    agent,
    define_skill,
    use_instruction,
    use_model,
    use_skill,
    use_state,
    use_tool,
)
from flue_runtime.models import ModelRequest, ScriptedModel, ToolCall
from flue_runtime.mount.reference import SkillReference

NEW_INSTRUCTIONS = (
    "[Your instructions changed. Follow these from now on, in place of the instructions at the start "
    "of the conversation:]\n\n"
)


def tiered_agent(model: ScriptedModel):  # type: ignore[no-untyped-def]
    @agent
    def support() -> str:
        use_model(model)
        tier = use_state("tier", "basic")
        if tier == "gold":
            use_instruction("Gold customers get a reply within the hour.")
        return f"You answer {tier} customers."

    return support


def test_instruction_changes_are_announced_and_the_system_prompt_stays(tmp_path: Path) -> None:
    model = ScriptedModel(["one", "two", "three", "four"])
    db = tmp_path / "sessions.db"
    session = Harness(tiered_agent(model), store=db).session("s")
    session.prompt_sync("first")
    session.set_state("tier", "gold")
    session.prompt_sync("second")
    session.prompt_sync("third")  # nothing changed since: nothing announced
    assert {r.system for r in model.requests} == {"You answer basic customers.\n"}
    second = model.requests[1].messages
    assert second[-2] == {
        "role": "user",
        "content": NEW_INSTRUCTIONS + "You answer gold customers.\n\nGold customers get a reply within the hour.",
        "instructions_update": True,
    }
    assert second[-1] == {"role": "user", "content": "second"}
    assert model.requests[2].messages[-1] == {"role": "user", "content": "third"}
    assert sum(1 for m in model.requests[2].messages if m.get("instructions_update")) == 1
    # What the model was told is saved: a new process resuming the session announces nothing new...
    resumed = Harness(tiered_agent(model), store=db).session("s")
    resumed.prompt_sync("fourth")
    assert model.requests[3].messages[-1] == {"role": "user", "content": "fourth"}
    assert sum(1 for m in model.requests[3].messages if m.get("instructions_update")) == 1
    # ...and going back is announced too.
    resumed.set_state("tier", "basic")
    again = Harness(tiered_agent(ScriptedModel(["five"])), store=db).session("s")
    result = again.prompt_sync("fifth")
    assert result.messages[0] == {
        "role": "user",
        "content": NEW_INSTRUCTIONS + "You answer basic customers.",
        "instructions_update": True,
    }


def test_a_tool_changing_state_takes_effect_at_the_next_model_turn(
    refunds: SkillReference, vip: SkillReference, tmp_path: Path
) -> None:
    renders: list[bool] = []

    def upgrade(context: ToolContext) -> str:
        """Make the customer a VIP."""
        context.set_state("vip", True)
        return "upgraded"

    model = ScriptedModel(
        [
            [ToolCall("upgrade", {})],
            [ToolCall("activate_skill", {"name": "vip"})],
            "You are a VIP now.",
        ]
    )

    @agent
    def support() -> str:
        use_model(model)
        use_skill(refunds)
        use_tool(upgrade)
        vip_now = use_state("vip", False)
        renders.append(vip_now)
        if vip_now:
            use_skill(vip)
            use_instruction("Be generous.")
        return "Help."

    db = tmp_path / "sessions.db"
    session = Harness(support, store=db).session("s")
    session.prompt_sync("make me a VIP")
    assert renders[-3:] == [False, True, True]  # rendered before each of the three model turns
    first, second, third = model.requests
    assert first.system == second.system == third.system and "vip" not in first.system
    # After the tool's result, before the next model turn: the new instructions, then the new skill.
    assert [m["role"] for m in second.messages[-4:]] == ["assistant", "tool", "user", "user"]
    assert second.messages[-2]["content"] == NEW_INSTRUCTIONS + "Help.\n\nBe generous."
    assert second.messages[-1]["content"] == (
        "[The available skills changed.]\nNew skills:\n- **vip** — Extra care for VIP customers.\n"
        "Available skills now: refunds, vip"
    )
    [activation] = tool_results(model)
    assert activation["is_error"] is False and "Offer a voucher." in activation["content"]
    assert Harness(support, store=db).session("s").state == {"vip": True}  # saved with the turn


def test_session_set_state_called_by_a_tool_while_a_prompt_runs_is_not_lost(vip: SkillReference) -> None:
    model = ScriptedModel([[ToolCall("upgrade", {})], "done"])
    holder: dict[str, object] = {}

    def upgrade() -> str:
        """Make the customer a VIP."""
        holder["session"].set_state("vip", True)  # type: ignore[attr-defined]
        return "upgraded"

    @agent
    def support() -> str:
        use_model(model)
        use_tool(upgrade)
        if use_state("vip", False):
            use_skill(vip)
        return "Help."

    session = holder["session"] = Harness(support).session("s")
    session.prompt_sync("go")
    assert session.state == {"vip": True}
    assert "New skills:\n- **vip**" in model.requests[1].messages[-1]["content"]


def test_a_failed_prompt_keeps_neither_its_messages_nor_its_state(vip: SkillReference, tmp_path: Path) -> None:
    def upgrade(context: ToolContext) -> str:
        """Make the customer a VIP."""
        context.set_state("vip", True)
        return "upgraded"

    model = ScriptedModel([[ToolCall("upgrade", {})]])  # the script ends mid-prompt

    @agent
    def support() -> str:
        use_model(model)
        use_tool(upgrade)
        return "Help."

    db = tmp_path / "sessions.db"
    session = Harness(support, store=db).session("s")
    with pytest.raises(Exception, match="ScriptedModel has 1 turn"):
        session.prompt_sync("go")
    assert session.state == {} and session.messages == []
    assert Harness(support, store=db).session("s").state == {}


def definitions(request: ModelRequest) -> dict[str, str]:
    """Each tool's definition as the exact JSON a provider would receive."""
    return {tool["name"]: json.dumps(tool, sort_keys=True) for tool in request.tools}


def test_tool_definitions_are_byte_identical_across_catalog_changes(tmp_path: Path) -> None:
    first = define_skill(name="alpha", description="First.", instructions="A.", files={"a.md": "a"})
    second = define_skill(name="beta", description="Second.", instructions="B.")
    model = ScriptedModel(["1", "2", "3", "4"])

    @agent
    def a() -> str:
        use_model(model)
        stage = use_state("stage", 0)
        if stage == 0:
            use_skill(first)
        elif stage == 1:
            use_skill(second)  # alpha, the only skill with files, is gone
            use_skill(first)
        else:
            use_skill(second)
        return "x"

    db = tmp_path / "sessions.db"
    session = Harness(a, store=db, sandbox=MemorySandbox()).session("s")
    session.prompt_sync("one")
    for stage in (1, 2):
        session.set_state("stage", stage)
        session.prompt_sync(str(stage))
    Harness(a, store=db, sandbox=MemorySandbox()).session("s").prompt_sync("resumed")
    before = definitions(model.requests[0])
    for request in model.requests[1:]:
        assert definitions(request) == before  # same tools, same bytes, though the catalog changed
    assert list(before) == ["activate_skill", "read_skill_resource", "read", "write", "ls"]
    for name in ("alpha", "beta"):
        assert name not in before["activate_skill"]


def test_the_tool_set_grows_only_when_a_tool_is_first_needed() -> None:
    plain = define_skill(name="plain", description="No files.", instructions="P.")
    with_files = define_skill(name="filed", description="Files.", instructions="F.", files={"f.md": "f"})
    model = ScriptedModel(["1", "2", "3"])

    @agent
    def a() -> str:
        use_model(model)
        use_skill(with_files if use_state("files", False) else plain)
        return "x"

    session = Harness(a).session("s")
    session.prompt_sync("one")
    session.set_state("files", True)
    session.prompt_sync("two")
    session.set_state("files", False)
    session.prompt_sync("three")
    names = [[t["name"] for t in r.tools] for r in model.requests]
    assert names == [["activate_skill"], ["activate_skill", "read_skill_resource"]] + [
        ["activate_skill", "read_skill_resource"]
    ]
    assert definitions(model.requests[1])["activate_skill"] == definitions(model.requests[0])["activate_skill"]
    assert session.tools == model.requests[2].tools


def test_a_record_saved_before_instructions_were_tracked_resumes_without_an_announcement() -> None:
    from flue_runtime.agents.stores.contract import MemoryStore, SessionRecord

    store = MemoryStore()
    old = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    store.save("s", SessionRecord("You answer basic customers.\n", list(old)))  # instructions=None, tools=[]
    model = ScriptedModel(["again"])
    Harness(tiered_agent(model), store=store).session("s").prompt_sync("still there?")
    assert model.requests[0].messages == [*old, {"role": "user", "content": "still there?"}]
    assert store.load("s").instructions == "You answer basic customers."  # type: ignore[union-attr]
