"""`flue_runtime.integrations.evaluation` from Python (issue 42 item 1): what `flue-skills eval` measures, without the
command: an agent's first turn sent per labelled query, one model turn each, tallied per skill and split."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from flue_runtime import Harness, agent, define_skill, use_model, use_skill
from flue_runtime.errors import ModelError, SkillError, SkillNotFoundError, SkillWarning
from flue_runtime.integrations.evaluation import Evaluation, evaluate
from flue_runtime.models import ModelRequest, ModelResponse, ScriptedModel, ToolCall

REFUNDS = define_skill(
    name="refunds",
    description="Handle refunds. Use when a customer wants money back.",
    instructions="Refund.",
    files={
        "evals/triggers.json": json.dumps(
            [
                {"query": "refund my mug", "should_trigger": True},
                {"query": "my parcel is lost, refund it", "should_trigger": True, "split": "validation"},
                {"query": "when do you open?", "should_trigger": False},
            ]
        )
    },
)
SHIPPING = define_skill(name="shipping", description="Track parcels.", instructions="Track.")


def route(request: ModelRequest) -> ModelResponse:
    """Activates shipping for "parcel", refunds for "refund" (so the lost parcel is a confusion)."""
    text = request.messages[-1]["content"]
    for word, name in (("parcel", "shipping"), ("refund", "refunds")):
        if word in text:
            return ModelResponse(tool_calls=(ToolCall("activate_skill", {"name": name}),))
    return ModelResponse(text="Nine.")


def test_an_agent_is_evaluated_as_it_stands_and_the_report_says_per_skill_and_split() -> None:
    model = ScriptedModel([route] * 100)

    @agent
    def support() -> str:
        use_model(model)
        use_skill(REFUNDS)
        use_skill(SHIPPING)
        return "Answer support questions."

    report = evaluate(support, runs=2)
    refunds = report.skills["refunds"]
    assert (refunds["train"].triggered, refunds["train"].positive_runs) == (2, 2)
    assert refunds["validation"].confusions == {"shipping": 2} and refunds["validation"].trigger_rate == 0.0
    assert refunds["all"].false_trigger_rate == 0.0 and report.cost.requests == 6
    assert report.failing(0.8) == ["refunds: trigger rate 0.50 is below 0.8"]
    assert report.to_dict()["queries"][0] == {
        "skill": "refunds",
        "query": "refund my mug",
        "should_trigger": True,
        "split": "train",
        "fired": [["refunds"], ["refunds"]],
    }
    Harness(support).prompt_sync("hello")  # the harness's real first request: what each query was sent with
    real, sent = model.requests[-1], model.requests[0]
    assert (sent.system, sent.tools) == (real.system, real.tools)


def test_skills_alone_are_an_agent_mounting_them_and_those_without_an_eval_set_are_said() -> None:
    evaluation = Evaluation.of([REFUNDS, SHIPPING])
    cases, skipped = evaluation.cases()
    assert [case.query.query for case in cases] == [
        "refund my mug",
        "my parcel is lost, refund it",
        "when do you open?",
    ]
    assert skipped == ["shipping"] and evaluation.model is None
    assert "- **shipping** — Track parcels." in evaluation.system
    with pytest.raises(ModelError, match="no model"):
        asyncio.run(evaluation.run(cases))
    report = asyncio.run(evaluation.run(cases, ScriptedModel([route] * 10), runs=1, jobs=1))
    assert report.skills["refunds"]["all"].positive_runs == 2


def test_an_unknown_skill_and_an_invalid_eval_set_are_errors_naming_them() -> None:
    evaluation = Evaluation.of([REFUNDS, SHIPPING])
    with pytest.raises(SkillNotFoundError, match="no skill named nope; the skills: refunds, shipping"):
        evaluation.cases(["nope"])
    with pytest.warns(SkillWarning, match="FLU316"):  # what `check` says of it too
        broken = define_skill(
            name="broken", description="d", instructions="i", files={"evals/triggers.json": '[{"query": "q"}]'}
        )
    with pytest.raises(SkillError, match="broken: evals/triggers.json: entry 0: `should_trigger` must be true"):
        Evaluation.of([broken, SHIPPING]).cases()
    assert Evaluation.of([broken, SHIPPING]).cases(["shipping"]) == (
        [],
        ["shipping"],
    )  # a set not asked for is not read


def test_the_guides_python_sample_prints_what_it_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """guides/eval.md, "From Python": its sample run beside the guide's own `triage.py`, printing what it shows."""
    from support.site import blocks, section

    [triage] = [b for b in blocks(section("guides/eval.md", "## Trying it without a key")) if b.title == "triage.py"]
    found = blocks(section("guides/eval.md", "## From Python"))
    [sample] = [block.code for block in found if block.language == "python"]
    [shown] = [block.code for block in found if block.language == "text"]
    (tmp_path / "triage.py").write_text(triage.code)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "triage", raising=False)
    exec(compile(sample, "guides/eval.md", "exec"), {})
    assert capsys.readouterr().out == shown
