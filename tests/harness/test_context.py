"""Issue 13 item 7: a tool declares a `ToolContext` parameter and reaches the running session:
its state, and one-off prompts with the agent's current configuration. The parameter never
appears in the tool's schema."""

from __future__ import annotations

from pathlib import Path

import pytest
from harness_support import tool_results

from flue_runtime import Harness, LocalSandbox, ToolContext, agent, use_model, use_skill, use_state, use_tool
from flue_runtime.agents.tools import tool_from_function
from flue_runtime.errors import AgentError
from flue_runtime.models import ScriptedModel, ToolCall
from flue_runtime.mount.reference import SkillReference


async def consult(question: str, context: ToolContext) -> str:
    """Ask a second opinion in a fresh conversation.

    Args:
        question: What to ask.
    """
    answer = await context.prompt(question)
    return f"second opinion: {answer.text}"


def test_the_context_parameter_is_not_in_the_schema() -> None:
    tool = tool_from_function(consult)
    assert tool.context == "context"
    assert tool.parameters == {
        "type": "object",
        "properties": {"question": {"type": "string", "description": "What to ask."}},
        "required": ["question"],
        "additionalProperties": False,
    }

    def twice(a: ToolContext, b: ToolContext) -> str:
        """Two contexts."""
        return ""

    with pytest.raises(AgentError, match="only one parameter can take the ToolContext"):
        tool_from_function(twice)


def test_a_tool_reads_and_sets_state_through_its_context() -> None:
    seen: list[dict[str, object]] = []

    def count(context: ToolContext) -> int:
        """Count the calls."""
        seen.append(dict(context.state))
        context.set_state("calls", context.state.get("calls", 0) + 1)
        return int(context.state["calls"])

    model = ScriptedModel([[ToolCall("count", {})], [ToolCall("count", {})], "done", [ToolCall("count", {})], "done"])

    @agent
    def a() -> str:
        use_model(model)
        use_tool(count)
        return "x"

    session = Harness(a).session("s")
    session.set_state("user", "ada")
    session.prompt_sync("one")
    session.prompt_sync("two")
    assert seen == [{"user": "ada"}, {"user": "ada", "calls": 1}, {"user": "ada", "calls": 2}]
    assert [r["content"] for r in tool_results(model)] == ["3"]
    assert session.state == {"user": "ada", "calls": 3}


def test_the_model_cannot_pass_the_context_itself() -> None:
    model = ScriptedModel([[ToolCall("consult", {"question": "q", "context": "forged"})], "ok"])

    @agent
    def a() -> str:
        use_model(model)
        use_tool(consult)
        return "x"

    Harness(a).session("s").prompt_sync("go")
    [result] = tool_results(model)
    assert result["is_error"] and "unknown argument 'context'" in result["content"]


def test_set_state_refuses_what_json_cannot_keep() -> None:
    def keep(context: ToolContext) -> str:
        """Keep an object."""
        context.set_state("when", object())
        return "kept"

    model = ScriptedModel([[ToolCall("keep", {})], "ok"])

    @agent
    def a() -> str:
        use_model(model)
        use_tool(keep)
        return "x"

    session = Harness(a).session("s")
    session.prompt_sync("go")
    [result] = tool_results(model)
    assert result["is_error"] and "state 'when': the value must be JSON data" in result["content"]
    assert session.state == {}


def test_context_prompt_runs_with_the_current_configuration(tmp_path: Path, refunds: SkillReference) -> None:
    notes = tmp_path / ".agents" / "skills" / "notes"
    notes.mkdir(parents=True)
    (notes / "SKILL.md").write_text("---\nname: notes\ndescription: Take notes.\n---\nWrite notes.\n")
    model = ScriptedModel(
        [
            [ToolCall("consult", {"question": "Is a refund after 40 days fine?"})],
            "No: 30 days is the limit.",  # the one-off prompt's answer
            "The policy says no.",
        ]
    )

    @agent
    def support() -> str:
        use_model(model)
        use_skill(refunds)
        use_tool(consult)
        return "Help" + (", briefly." if use_state("brief", False) else ".")

    db = tmp_path / "sessions.db"
    harness = Harness(support, sandbox=LocalSandbox(tmp_path), store=db)
    session = harness.session("s")
    session.set_state("brief", True)
    result = session.prompt_sync("A refund after 40 days?")
    assert result.text == "The policy says no."
    parent, one_off, last = model.requests
    assert one_off.system == parent.system  # same instructions (rendered with the session's state), same catalog
    assert "**notes** — Take notes." in one_off.system and "Help, briefly." in one_off.system
    assert one_off.tools == parent.tools
    assert one_off.messages == [{"role": "user", "content": "Is a refund after 40 days fine?"}]
    assert tool_results(model)[0]["content"] == "second opinion: No: 30 days is the limit."
    assert harness.store.session_ids() == ["s"]  # type: ignore[attr-defined]  # the one-off is not saved


def test_context_prompts_nest_at_most_max_nested_prompts_deep() -> None:
    """A model that delegates at every level ends: the prompt past the limit fails as a tool error."""
    from flue_runtime.agents.context import MAX_NESTED_PROMPTS

    levels = MAX_NESTED_PROMPTS + 1  # the session's own conversation, then each nested one-off
    model = ScriptedModel(
        [
            *[[ToolCall("consult", {"question": "Ask again."})] for _ in range(levels)],
            *[f"answer {n}" for n in range(levels)],
        ]
    )

    @agent
    def delegating() -> str:
        use_model(model)
        use_tool(consult)
        return "Delegate."

    result = Harness(delegating).session("s").prompt_sync("Go.")
    assert result.text == f"answer {levels - 1}"
    assert len(model.requests) == 2 * levels
    [refused] = tool_results(model, levels)  # the deepest conversation's turn after its tool call
    assert refused["is_error"]
    assert refused["content"].startswith(
        f"Error: consult raised AgentError: ToolContext.prompt is nested {MAX_NESTED_PROMPTS} deep, the limit"
    )
    assert tool_results(model, levels + 1)[0]["content"] == "second opinion: answer 0"  # the levels above go on
