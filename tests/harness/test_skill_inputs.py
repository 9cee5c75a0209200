"""Issue 13 items 5 and 6: `use_skill` takes what `define_skill` returns or a mapping of its
arguments (held to the same rules), and `define_skill` refuses blank instructions."""

from __future__ import annotations

from typing import Any

import pytest
from harness_support import tool_results

from flue_runtime import Harness, agent, define_skill, use_model, use_skill
from flue_runtime.errors import AgentError, SkillError
from flue_runtime.models import ScriptedModel, ToolCall

REFUNDS: dict[str, Any] = {
    "name": "refunds",
    "description": "Handle refund requests.",
    "instructions": "Read policy.md first.",
    "files": {"policy.md": "30 days.\n"},
    "metadata": {"team": "support"},
}


def run_with(skill: object, model: ScriptedModel) -> None:
    @agent
    def a() -> str:
        use_model(model)
        use_skill(skill)  # type: ignore[arg-type]
        return "x"

    Harness(a).session("s").prompt_sync("go")


def test_a_mapping_of_define_skills_arguments_mounts_like_define_skill() -> None:
    model = ScriptedModel(
        [
            [
                ToolCall("activate_skill", {"name": "refunds"}),
                ToolCall("read_skill_resource", {"path": "/.flue/skills/refunds/policy.md"}),
            ],
            "ok",
        ]
    )
    run_with(REFUNDS, model)
    assert "- **refunds** — Handle refund requests." in model.requests[0].system
    activation, policy = tool_results(model)
    assert "Read policy.md first." in activation["content"] and policy["content"] == "     1\t30 days."
    # the same skill as define_skill(**REFUNDS): equal by content
    reference = ScriptedModel([[ToolCall("activate_skill", {"name": "refunds"})], "ok"])
    run_with(define_skill(**REFUNDS), reference)
    assert tool_results(reference)[0]["content"] == activation["content"]


def test_a_mapping_is_validated_by_define_skills_rules() -> None:
    with pytest.raises(SkillError, match=r"name: .*Refunds") as caught:
        run_with({**REFUNDS, "name": "Refunds", "files": {"../up.md": "x"}}, ScriptedModel(["ok"]))
    assert set(caught.value.fields) == {"name", "files"}


def test_a_mapping_with_unknown_or_missing_keys_names_them() -> None:
    with pytest.raises(AgentError, match=r"unknown key 'body'; its keys are define_skill's: name, description"):
        run_with({"name": "refunds", "description": "d", "body": "x"}, ScriptedModel(["ok"]))
    with pytest.raises(AgentError, match=r"without 'instructions'"):
        run_with({"name": "refunds", "description": "d"}, ScriptedModel(["ok"]))
    with pytest.raises(AgentError, match=r"or a mapping of define_skill's arguments, not list"):
        run_with(["refunds"], ScriptedModel(["ok"]))


@pytest.mark.parametrize("blank", ["", "   ", "\n\n\t\n"])
def test_define_skill_refuses_blank_instructions(blank: str) -> None:
    with pytest.raises(SkillError) as caught:
        define_skill(name="refunds", description="Handle refunds.", instructions=blank)
    assert caught.value.fields == {
        "instructions": ["`instructions` is blank: activating the skill would give the model nothing to follow"]
    }
    [diagnostic] = caught.value.diagnostics
    assert diagnostic.hint.startswith("write the steps the model should take")


def test_use_skill_refuses_a_mapping_with_blank_instructions_too() -> None:
    with pytest.raises(SkillError, match="instructions"):
        run_with({**REFUNDS, "instructions": " "}, ScriptedModel(["ok"]))
