"""The application decides which skills the model has: explicit activation (`prompt(..., activate=[...])`) and
skills disabled by name, per harness (`Harness(disabled_skills=...)`) and per session (`disable_skills`,
`enable_skills`, saved in the store), each announced like any catalog change, the system prompt byte-stable."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from harness_support import tool_results

from flue_runtime import Harness, SkillNotFoundError, ToolContext, agent, define_skill, use_model, use_skill, use_tool
from flue_runtime.agents.harness import AgentFunction, Session
from flue_runtime.agents.skill_tools import MountedSkills
from flue_runtime.agents.stores import open_store
from flue_runtime.errors import AgentError
from flue_runtime.models import ModelRequest, ScriptedModel, ToolCall
from flue_runtime.mount.reference import SkillReference


def make_agent(model: ScriptedModel, *skills: SkillReference, tools: tuple[Any, ...] = ()) -> AgentFunction:
    @agent
    def support() -> str:
        use_model(model)
        for s in skills:
            use_skill(s)
        for tool in tools:
            use_tool(tool)
        return "Answer customer support questions."

    return support


def explicit(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in messages if m.get("explicit")]


def announcements(request: ModelRequest) -> list[str]:
    return [m["content"] for m in request.messages if m.get("catalog_update")]


# --- explicit activation ----------------------------------------------------------------------------------------


def test_an_explicit_activation_comes_after_the_prompt_before_the_models_turn_marked_explicit(
    refunds: SkillReference, vip: SkillReference
) -> None:
    model = ScriptedModel(["I will check your order."])
    session = Harness(make_agent(model, refunds, vip)).session("s")

    result = session.prompt_sync("I want my money back", activate=["refunds"])

    [request] = model.requests
    user, call, answer = request.messages
    assert user == {"role": "user", "content": "I want my money back"}
    [made] = call["tool_calls"]
    assert call == {"role": "assistant", "content": "", "tool_calls": [made], "explicit": True}
    assert made["name"] == "activate_skill" and made["arguments"] == {"name": "refunds"}
    assert answer == {
        "role": "tool",
        "tool_call_id": made["id"],
        "name": "activate_skill",
        "content": MountedSkills([refunds, vip]).activate("refunds"),  # what the model's own call returns
        "is_error": False,
        "explicit": True,
    }
    assert "Read policy.md, then check the order date." in answer["content"]
    assert result.messages == [user, call, answer, {"role": "assistant", "content": "I will check your order."}]
    assert session.messages == result.messages


def test_the_system_prompt_and_tools_are_byte_identical_with_and_without(
    refunds: SkillReference, vip: SkillReference
) -> None:
    plain, forced = ScriptedModel(["ok"]), ScriptedModel(["ok"])
    Harness(make_agent(plain, refunds, vip)).session("s").prompt_sync("hi")
    Harness(make_agent(forced, refunds, vip)).session("s").prompt_sync("hi", activate=["refunds", "vip"])
    assert forced.requests[0].system == plain.requests[0].system
    assert forced.requests[0].tools == plain.requests[0].tools
    assert "Read policy.md" not in forced.requests[0].system


def test_a_model_reads_an_activated_skills_file_by_its_relative_path(refunds: SkillReference) -> None:
    """The explicit activation counts as an activation of the conversation: `policy.md` means refunds' file."""
    other = define_skill(name="other", description="Other.", instructions="x", files={"policy.md": "Not this.\n"})
    model = ScriptedModel([[ToolCall("read_skill_resource", {"path": "policy.md"})], "Done."])
    Harness(make_agent(model, refunds, other)).session("s").prompt_sync("refund", activate="refunds")
    [read] = tool_results(model)
    assert read["is_error"] is False and "Orders younger than 30 days are refundable." in read["content"]


def test_several_names_one_call_turn_each_once_in_order(refunds: SkillReference, vip: SkillReference) -> None:
    model = ScriptedModel(["ok"])
    Harness(make_agent(model, refunds, vip)).session("s").prompt_sync("hi", activate=["vip", "refunds", "vip"])
    call, *answers = explicit(model.requests[0].messages)
    assert [c["arguments"]["name"] for c in call["tool_calls"]] == ["vip", "refunds"]
    assert [a["tool_call_id"] for a in answers] == [c["id"] for c in call["tool_calls"]]
    assert answers[0]["content"].startswith('<skill name="vip">')


def test_an_explicit_activation_is_saved_and_read_back_from_sqlite(tmp_path: Path, refunds: SkillReference) -> None:
    store = tmp_path / "sessions.db"
    model = ScriptedModel(["ok", "again"])
    Harness(make_agent(model, refunds), store=store).session("s").prompt_sync("hi", activate=["refunds"])
    again = Harness(make_agent(model, refunds), store=store).session("s")
    assert [m["role"] for m in explicit(again.messages)] == ["assistant", "tool"]
    again.prompt_sync("and now?")
    assert explicit(model.requests[1].messages) == explicit(model.requests[0].messages)  # resumed as it was


def test_an_unknown_name_is_an_error_before_any_model_call(tmp_path: Path, refunds: SkillReference) -> None:
    store = tmp_path / "sessions.db"
    model = ScriptedModel(["never"])
    session = Harness(make_agent(model, refunds), store=store).session("s")
    with pytest.raises(SkillNotFoundError) as caught:
        session.prompt_sync("hi", activate=["refunds", "refund"])
    assert str(caught.value) == "cannot activate: no skill named 'refund' is mounted; available skills: refunds"
    assert isinstance(caught.value, LookupError)
    assert model.requests == [] and open_store(store).load("s") is None  # nothing sent, nothing saved
    assert session.prompt_sync("hi", activate=["refunds"]).text == "never"  # the session is usable as it was


def test_a_one_off_prompt_activates_too(refunds: SkillReference) -> None:
    model = ScriptedModel(["ok"])
    Harness(make_agent(model, refunds)).prompt_sync("hi", activate=["refunds"])
    assert [m["role"] for m in explicit(model.requests[0].messages)] == ["assistant", "tool"]


def test_activation_messages_preview_what_a_prompt_adds(refunds: SkillReference) -> None:
    model = ScriptedModel([])
    session = Harness(make_agent(model, refunds)).session("s")
    call, answer = session.activation_messages(["refunds"])
    assert call["explicit"] and answer["explicit"] and answer["content"].startswith('<skill name="refunds">')
    assert model.requests == [] and session.messages == []
    with pytest.raises(SkillNotFoundError, match="available skills: refunds"):
        session.activation_messages(["nope"])


@pytest.mark.parametrize("names", [[3], [""], 7, [None]])
def test_names_that_are_not_names_are_refused(refunds: SkillReference, names: Any) -> None:
    session = Harness(make_agent(ScriptedModel([]), refunds)).session("s")
    with pytest.raises(AgentError, match="activate takes skill names"):
        session.prompt_sync("hi", activate=names)
    with pytest.raises(AgentError, match="disabled_skills takes skill names"):
        Harness(make_agent(ScriptedModel([]), refunds), disabled_skills=names)
    with pytest.raises(AgentError, match="disable_skills takes skill names"):
        session.disable_skills(*(names if isinstance(names, list) else [names]))


# --- disabled skills --------------------------------------------------------------------------------------------


def test_a_skill_disabled_for_the_harness_is_out_of_the_catalog_and_answers_like_an_unknown_name(
    refunds: SkillReference, vip: SkillReference
) -> None:
    model = ScriptedModel(
        [
            [
                ToolCall("activate_skill", {"name": "refunds"}),
                ToolCall("read_skill_resource", {"path": "/.flue/skills/refunds/policy.md"}),
            ],
            "Sorry.",
        ]
    )
    harness = Harness(make_agent(model, refunds, vip), disabled_skills=["refunds"])
    session = harness.session("s")
    assert session.disabled_skills == ["refunds"]
    session.prompt_sync("refund")
    system = model.requests[0].system
    assert "**vip**" in system and "refunds" not in system
    assert [t["name"] for t in model.requests[0].tools] == ["activate_skill"]  # refunds' files were the only ones
    activation, read = tool_results(model)
    assert activation["content"] == "There is no skill named 'refunds'. Available skills: vip."
    assert read["is_error"] is True
    with pytest.raises(SkillNotFoundError, match=r"skill 'refunds' is disabled .*; available skills: vip$"):
        session.prompt_sync("hi", activate=["refunds"])


def test_disabling_mid_session_is_announced_and_enabling_brings_it_back(
    refunds: SkillReference, vip: SkillReference
) -> None:
    model = ScriptedModel(
        [
            "Hello.",
            [ToolCall("activate_skill", {"name": "vip"})],
            "No voucher today.",
            [ToolCall("activate_skill", {"name": "vip"})],
            "Here is a voucher.",
        ]
    )
    session = Harness(make_agent(model, refunds, vip)).session("s")
    session.prompt_sync("hi")
    session.disable_skills("vip")
    assert session.disabled_skills == ["vip"]
    session.prompt_sync("I am a VIP")
    assert announcements(model.requests[1]) == [
        "[The available skills changed.]\nNo longer available: vip\nAvailable skills now: refunds"
    ]
    assert tool_results(model)[0]["content"] == "There is no skill named 'vip'. Available skills: refunds."
    session.enable_skills("vip")
    assert session.disabled_skills == []
    session.prompt_sync("Really, a VIP")
    assert announcements(model.requests[3])[-1] == (
        "[The available skills changed.]\nNew skills:\n- **vip** — Extra care for VIP customers.\n"
        "Available skills now: refunds, vip"
    )
    assert tool_results(model)[0]["content"].startswith('<skill name="vip">')
    assert len({request.system for request in model.requests}) == 1  # byte-identical throughout
    assert len({repr(request.tools) for request in model.requests}) == 1


def test_a_session_can_enable_a_skill_the_harness_disables(refunds: SkillReference, vip: SkillReference) -> None:
    model = ScriptedModel(["ok"])
    session = Harness(make_agent(model, refunds, vip), disabled_skills=["vip", "refunds"]).session("s")
    session.enable_skills("vip")  # before the first prompt: the system prompt lists it from the start
    assert session.disabled_skills == ["refunds"]
    session.prompt_sync("hi")
    assert "**vip**" in model.requests[0].system and "refunds" not in model.requests[0].system
    assert announcements(model.requests[0]) == []


def test_switches_are_saved_in_sqlite_and_hold_in_a_new_harness(
    tmp_path: Path, refunds: SkillReference, vip: SkillReference
) -> None:
    store = tmp_path / "sessions.db"
    model = ScriptedModel(["one", [ToolCall("activate_skill", {"name": "vip"})], "two"])
    Harness(make_agent(model, refunds, vip), store=store).session("s").disable_skills("vip")
    assert open_store(store).load("s").skill_switches == {"vip": False}  # type: ignore[union-attr]

    session = Harness(make_agent(model, refunds, vip), store=store).session("s")  # another process, say
    assert session.disabled_skills == ["vip"]
    session.prompt_sync("hi")
    assert "vip" not in model.requests[0].system and announcements(model.requests[0]) == []
    Harness(make_agent(model, refunds, vip), store=store).session("s").prompt_sync("voucher?")
    assert tool_results(model)[0]["content"] == "There is no skill named 'vip'. Available skills: refunds."
    assert Harness(make_agent(model, refunds, vip), store=store).session("other").disabled_skills == []


def test_disabling_while_a_prompt_runs_takes_effect_at_the_next_model_turn(
    refunds: SkillReference, vip: SkillReference
) -> None:
    sessions: list[Session] = []

    def retire_vip() -> str:
        """Stop offering VIP care in this conversation."""
        sessions[0].disable_skills("vip")
        return "done"

    model = ScriptedModel([[ToolCall("retire_vip", {})], [ToolCall("activate_skill", {"name": "vip"})], "ok"])
    session = Harness(make_agent(model, refunds, vip, tools=(retire_vip,))).session("s")
    sessions.append(session)
    session.prompt_sync("hi")
    assert announcements(model.requests[1]) == [
        "[The available skills changed.]\nNo longer available: vip\nAvailable skills now: refunds"
    ]
    assert tool_results(model)[0]["content"].startswith("There is no skill named 'vip'.")
    assert session.disabled_skills == ["vip"]


def test_a_tools_one_off_prompt_keeps_the_sessions_disabled_skills(
    refunds: SkillReference, vip: SkillReference
) -> None:
    async def ask_colleague(question: str, context: ToolContext) -> str:
        """Ask a colleague."""
        return (await context.prompt(question)).text

    model = ScriptedModel([[ToolCall("ask_colleague", {"question": "q"})], "colleague", "ok"])
    session = Harness(make_agent(model, refunds, vip, tools=(ask_colleague,))).session("s")
    session.disable_skills("refunds")
    session.prompt_sync("hi")
    assert "refunds" not in model.requests[1].system and "**vip**" in model.requests[1].system


def test_a_new_session_can_start_with_switches(refunds: SkillReference, vip: SkillReference) -> None:
    harness = Harness(make_agent(ScriptedModel([]), refunds, vip))
    session = Session(harness, "s", harness.store, skill_switches={"refunds": False})
    assert session.disabled_skills == ["refunds"]
    assert "refunds" not in session.system_prompt and [t["name"] for t in session.tools] == ["activate_skill"]
