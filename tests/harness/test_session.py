"""The agent loop end to end with the scripted model: catalog, activation, resources, announcements."""

from __future__ import annotations

import asyncio

import pytest
from harness_support import tool_results

from flue_runtime import Harness, MemorySandbox, agent, use_instruction, use_model, use_skill, use_state
from flue_runtime.agents.catalog import PREAMBLE
from flue_runtime.errors import AgentError
from flue_runtime.models import ScriptedModel, ToolCall
from flue_runtime.mount.reference import SkillReference


def make_agent(model: ScriptedModel, *skills: SkillReference, conditional: SkillReference | None = None):  # type: ignore[no-untyped-def]
    @agent
    def support() -> str:
        use_model(model)
        for s in skills:
            use_skill(s)
        if conditional is not None and use_state("vip", False):
            use_skill(conditional)
        return "Answer customer support questions."

    return support


def test_catalog_line_present_and_instructions_absent_before_activation(refunds: SkillReference) -> None:
    model = ScriptedModel(["Hello."])
    session = Harness(make_agent(model, refunds)).session("s")
    result = session.prompt_sync("hi")
    assert result.text == "Hello."
    [request] = model.requests
    assert request.system == (
        "Answer customer support questions.\n\n## Available Skills\n\n" + PREAMBLE + "\n\n"
        "- **refunds** — Handle refund requests. Use when a customer asks for money back.\n"
    )
    assert "Read policy.md" not in request.system
    assert "Read policy.md" not in str(request.messages)
    assert [t["name"] for t in request.tools] == ["activate_skill", "read_skill_resource"]
    assert request.messages == [{"role": "user", "content": "hi"}]


def test_activation_returns_instructions_and_resource_paths(refunds: SkillReference) -> None:
    model = ScriptedModel([[ToolCall("activate_skill", {"name": "refunds"})], "Done."])
    Harness(make_agent(model, refunds)).session("s").prompt_sync("refund please")
    [result] = tool_results(model)
    assert result["is_error"] is False
    assert result["content"] == (
        '<skill name="refunds">\n# Refunds\n\nRead policy.md, then check the order date.\n</skill>\n\n'
        "Support files (read them with read_skill_resource when the instructions call for them):\n"
        "- /.flue/skills/refunds/forms/claim.pdf\n- /.flue/skills/refunds/policy.md"
    )


def test_unknown_skill_name_is_a_normal_result_listing_the_names(refunds: SkillReference, vip: SkillReference) -> None:
    model = ScriptedModel([[ToolCall("activate_skill", {"name": "refund"})], "ok"])
    Harness(make_agent(model, refunds, vip)).session("s").prompt_sync("x")
    [result] = tool_results(model)
    assert result["is_error"] is False
    assert result["content"] == "There is no skill named 'refund'. Available skills: refunds, vip."


def test_read_skill_resource_text_and_binary(refunds: SkillReference) -> None:
    model = ScriptedModel(
        [
            [
                ToolCall("read_skill_resource", {"path": "/.flue/skills/refunds/policy.md"}),
                ToolCall("read_skill_resource", {"path": "/.flue/skills/refunds/forms/claim.pdf"}),
                ToolCall("read_skill_resource", {"path": "/.flue/skills/refunds/nope.md"}),
            ],
            "ok",
        ]
    )
    Harness(make_agent(model, refunds)).session("s").prompt_sync("x")
    text, binary, missing = tool_results(model)
    assert text["content"] == "     1\tOrders younger than 30 days are refundable."
    assert binary["content"] == (
        "[binary file /.flue/skills/refunds/forms/claim.pdf, 10 bytes; base64 of bytes 0-10]\nJVBERi0xLjQA/w=="
    )
    assert missing["is_error"] and "has no file 'nope.md'" in missing["content"]


def test_no_skill_tools_and_no_section_without_skills() -> None:
    model = ScriptedModel(["ok"])

    @agent
    def plain() -> str:
        use_model(model)
        return "Be brief."

    session = Harness(plain).session("s")
    session.prompt_sync("x")
    assert model.requests[0].system == "Be brief.\n"
    assert model.requests[0].tools == []
    assert session.tools == []


def test_read_skill_resource_only_while_some_skill_has_files(vip: SkillReference) -> None:
    model = ScriptedModel(["ok"])
    Harness(make_agent(model, vip)).session("s").prompt_sync("x")
    assert [t["name"] for t in model.requests[0].tools] == ["activate_skill"]


def test_conditional_mount_is_announced_and_the_system_prompt_stays_identical(
    refunds: SkillReference, vip: SkillReference
) -> None:
    model = ScriptedModel(["one", "two", "three"])
    session = Harness(make_agent(model, refunds, conditional=vip)).session("s")
    session.prompt_sync("first")
    session.set_state("vip", True)
    session.prompt_sync("second")
    session.set_state("vip", False)
    session.prompt_sync("third")
    systems = {r.system for r in model.requests}
    assert len(systems) == 1 and "vip" not in systems.pop()
    second = model.requests[1].messages
    assert second[-2] == {
        "role": "user",
        "content": "[The available skills changed.]\nNew skills:\n- **vip** — Extra care for VIP customers.\n"
        "Available skills now: refunds, vip",
        "catalog_update": True,
    }
    assert second[-1] == {"role": "user", "content": "second"}
    third = model.requests[2].messages
    assert third[-2]["content"].endswith("No longer available: vip\nAvailable skills now: refunds")
    assert session.system_prompt == model.requests[0].system


def test_first_skill_appearing_later_brings_activate_skill(vip: SkillReference) -> None:
    model = ScriptedModel(["one", "two"])

    @agent
    def later() -> str:
        use_model(model)
        if use_state("vip", False):
            use_skill(vip)
        return "Help."

    session = Harness(later).session("s")
    session.prompt_sync("a")
    session.set_state("vip", True)
    session.prompt_sync("b")
    assert model.requests[0].tools == [] and model.requests[1].system == "Help.\n"
    assert [t["name"] for t in model.requests[1].tools] == ["activate_skill"]
    assert PREAMBLE in model.requests[1].messages[-2]["content"]


def test_description_change_is_announced(refunds: SkillReference) -> None:
    from flue_runtime import define_skill

    model = ScriptedModel(["one", "two"])
    changed = define_skill(name="refunds", description="Refunds, new wording.", instructions="x")

    @agent
    def support() -> str:
        use_model(model)
        use_skill(changed if use_state("new", False) else refunds)
        return "Help."

    session = Harness(support).session("s")
    session.prompt_sync("a")
    session.set_state("new", True)
    session.prompt_sync("b")
    assert "Changed descriptions:\n- **refunds** — Refunds, new wording." in model.requests[1].messages[-2]["content"]


def test_instructions_and_use_instruction_order(refunds: SkillReference) -> None:
    model = ScriptedModel(["ok"])

    def use_house_style() -> None:  # a custom hook: a plain function calling hooks
        use_instruction("Write in plain English.")
        use_skill(refunds)

    @agent
    def support() -> str:
        use_model(model)
        use_house_style()
        use_instruction("Never promise dates.")
        return "You are the support agent."

    Harness(support).session("s").prompt_sync("x")
    system = model.requests[0].system
    assert system.index("You are the support agent.") < system.index("Write in plain English.")
    assert (
        system.index("Write in plain English.")
        < system.index("Never promise dates.")
        < system.index("## Available Skills")
    )


def test_declared_skills_keep_call_order(refunds: SkillReference, vip: SkillReference) -> None:
    model = ScriptedModel(["ok"])
    Harness(make_agent(model, vip, refunds)).session("s").prompt_sync("x")
    system = model.requests[0].system
    assert system.index("**vip**") < system.index("**refunds**")


def test_duplicate_mount_raises_naming_the_skill(refunds: SkillReference) -> None:
    model = ScriptedModel(["ok"])
    with pytest.raises(AgentError, match="skill 'refunds' is mounted twice.*shared custom hook"):
        Harness(make_agent(model, refunds, refunds)).session("s").prompt_sync("x")


def test_hooks_outside_a_render_raise(refunds: SkillReference) -> None:
    with pytest.raises(AgentError, match=r"use_skill\(\) was called outside an agent render"):
        use_skill(refunds)
    with pytest.raises(AgentError, match="use_state"):
        use_state("x")


def test_agent_called_directly_says_how_to_run_it() -> None:
    @agent
    def support() -> str:
        return "x"

    with pytest.raises(AgentError, match="pass it to Harness"):
        support()


def test_harness_prompt_uses_the_same_rendered_config(refunds: SkillReference) -> None:
    model = ScriptedModel(["a", "b"])
    harness = Harness(make_agent(model, refunds))
    harness.prompt_sync("one-off")
    harness.session("s").prompt_sync("in a session")
    first, second = model.requests
    assert first.system == second.system and first.tools == second.tools


def test_state_and_messages_persist_across_prompts_of_a_session(refunds: SkillReference) -> None:
    model = ScriptedModel(["a", "b"])
    harness = Harness(make_agent(model, refunds))
    harness.session("s").prompt_sync("one")
    again = harness.session("s")
    again.prompt_sync("two")
    assert [m["content"] for m in model.requests[1].messages] == ["one", "a", "two"]


def test_prompt_sync_inside_an_event_loop_says_to_await(refunds: SkillReference) -> None:
    session = Harness(make_agent(ScriptedModel(["a"]), refunds)).session("s")

    async def inside() -> None:
        session.prompt_sync("x")

    with pytest.raises(Exception, match="await session.prompt"):
        asyncio.run(inside())


def test_failed_turn_leaves_the_session_unchanged(refunds: SkillReference) -> None:
    model = ScriptedModel([[ToolCall("activate_skill", {"name": "refunds"})]])  # runs out mid-turn
    session = Harness(make_agent(model, refunds)).session("s")
    with pytest.raises(Exception, match="ScriptedModel has 1 turn"):
        session.prompt_sync("x")
    assert session.messages == []


def test_unknown_tool_is_an_error_result(refunds: SkillReference) -> None:
    model = ScriptedModel([[ToolCall("frobnicate", {})], "ok"])
    Harness(make_agent(model, refunds)).session("s").prompt_sync("x")
    [result] = tool_results(model)
    assert (
        result["is_error"]
        and "no tool named 'frobnicate'" in result["content"]
        and "activate_skill" in result["content"]
    )


def test_bad_arguments_are_an_error_result(refunds: SkillReference) -> None:
    model = ScriptedModel([[ToolCall("activate_skill", {"nam": "refunds"})], "ok"])
    Harness(make_agent(model, refunds)).session("s").prompt_sync("x")
    [result] = tool_results(model)
    assert result["is_error"]
    assert "missing required argument 'name'" in result["content"] and "unknown argument 'nam'" in result["content"]


def test_session_exposes_what_the_model_receives(refunds: SkillReference) -> None:
    model = ScriptedModel(["ok"])
    session = Harness(make_agent(model, refunds), sandbox=MemorySandbox()).session("s")
    session.prompt_sync("x")
    assert session.system_prompt == model.requests[0].system
    assert session.tools == model.requests[0].tools
    assert session.messages == [{"role": "user", "content": "x"}, {"role": "assistant", "content": "ok"}]


def test_long_instructions_are_paged_from_skill_md() -> None:
    from flue_runtime import define_skill
    from flue_runtime.agents.reading import MAX_BYTES

    lines = [f"step {i}: " + "x" * 90 for i in range(1, 1001)]  # ~100 KB of instructions
    big = define_skill(name="big", description="A long skill.", instructions="\n".join(lines) + "\n")
    model = ScriptedModel([[ToolCall("activate_skill", {"name": "big"})], "ok"])
    Harness(make_agent(model, big)).session("s").prompt_sync("x")
    assert [t["name"] for t in model.requests[0].tools] == ["activate_skill", "read_skill_resource"]
    [result] = tool_results(model)
    content = result["content"]
    assert len(content.encode()) < MAX_BYTES + 1024
    hint = content.split("\n</skill>")[0].splitlines()[-1]
    shown = sum(1 for line in content.splitlines() if line.startswith("step "))
    first = int(hint.rsplit("offset=", 1)[1].rstrip("]"))
    assert f"{1000 - shown} more lines" in hint and "path=/.flue/skills/big/SKILL.md" in hint
    skill_md = big.read_text("SKILL.md").splitlines()
    assert skill_md[first - 1] == lines[shown] and skill_md[first - 2] == lines[shown - 1]
