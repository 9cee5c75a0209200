"""`flue-skills eval TARGET`: trigger rates of each skill's evals/triggers.json, run through the CLI's main in this
process with a `ScriptedModel` the agent uses, and through the real OpenAI SDK against a loopback API."""

from __future__ import annotations

import itertools
import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from support.fakeapi import FakeAPI, anthropic_activation
from support.optional import need

from flue_build.cli import main
from flue_runtime import Harness
from flue_runtime.models import ModelRequest, ModelResponse, ToolCall

_modules = itertools.count()

TRIGGERS = {
    "refunds": [
        {"query": "I want my money back for order A-1", "should_trigger": True},
        {"query": "refund please, the mug broke", "should_trigger": True, "split": "validation"},
        {"query": "my parcel never came, where is my money?", "should_trigger": True},
        {"query": "what is your opening time?", "should_trigger": False},
    ],
    "shipping": [
        {"query": "track my parcel", "should_trigger": True},
        {"query": "refund my order", "should_trigger": False, "split": "validation"},
    ],
}


def route(request: ModelRequest) -> ModelResponse:
    """Activates refunds for "money"/"refund", shipping for "parcel" (so the lost parcel is a confusion)."""
    text = request.messages[-1]["content"]
    if "parcel" in text:
        return ModelResponse(tool_calls=(ToolCall("activate_skill", {"name": "shipping"}),))
    if "money" in text or "refund" in text:
        return ModelResponse(tool_calls=(ToolCall("activate_skill", {"name": "refunds"}),))
    return ModelResponse(text="We open at nine.")


def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model: str) -> str:
    """A folder with two skills and their eval sets, and an agent module mounting them; its MODULE:AGENT."""
    for name, queries in TRIGGERS.items():
        folder = tmp_path / "skills" / name
        (folder / "evals").mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Handle {name} questions. Use when a customer asks about {name}.\n---\n"
            f"# {name}\n\nHelp with {name}.\n"
        )
        (folder / "evals" / "triggers.json").write_text(json.dumps(queries))
    module = f"eval_agent_{next(_modules)}"
    (tmp_path / f"{module}.py").write_text(
        textwrap.dedent(
            f"""
            from pathlib import Path

            from flue_runtime import agent, use_model, use_skill
            from flue_runtime.models import ScriptedModel
            from flue_runtime.mount.disk import load_skill_dir
            from test_eval_command import route

            HERE = Path(__file__).parent
            model = ScriptedModel([route] * 1000)


            @agent
            def support():
                use_model({model})
                use_skill(load_skill_dir(HERE / "skills" / "refunds"))
                use_skill(load_skill_dir(HERE / "skills" / "shipping"))
                return "Answer customer support questions."
            """
        )
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return module


def test_rates_per_skill_and_split(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    module = project(tmp_path, monkeypatch, "model")
    assert main(["eval", f"{module}:support", "--format", "json", "--runs", "2"]) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)
    refunds, shipping = report["skills"]["refunds"], report["skills"]["shipping"]
    assert refunds["train"]["trigger_rate"] == 0.5 and refunds["train"]["positive_runs"] == 4
    assert refunds["train"]["confusions"] == {"shipping": 2}
    assert refunds["validation"]["trigger_rate"] == 1.0
    assert refunds["all"]["false_trigger_rate"] == 0.0
    assert shipping["train"]["trigger_rate"] == 1.0 and shipping["validation"]["false_trigger_rate"] == 0.0
    assert report["cost"]["requests"] == 12 and report["cost"]["tokens"] is None
    assert "[6/6]" in err and "12 requests" in err


def test_each_request_is_the_harness_first_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = project(tmp_path, monkeypatch, "model")
    assert main(["eval", f"{module}:support", "--runs", "1", "--skill", "shipping"]) == 0
    agent_module = __import__(module)
    sent = {r.messages[0]["content"]: r for r in agent_module.model.requests}
    Harness(agent_module.support).prompt_sync("what is your opening time?")  # the harness's real first request
    real = agent_module.model.requests[-1]
    evaluated = sent["track my parcel"]
    assert (evaluated.system, evaluated.tools) == (real.system, real.tools)
    assert "- **refunds** — Handle refunds questions." in evaluated.system
    assert evaluated.messages == [{"role": "user", "content": "track my parcel"}]


def test_fail_under_exits_1_and_the_table_shows_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    module = project(tmp_path, monkeypatch, "model")
    assert main(["eval", f"{module}:support", "--runs", "1", "--fail-under", "0.8"]) == 1
    out = capsys.readouterr().out
    assert "shipping ×1" in out and "train" in out and "validation" in out
    assert "below --fail-under: refunds: trigger rate 0.67 is below 0.8" in out
    assert "cost: 6 requests, tokens not reported by the model" in out


def test_an_invalid_eval_set_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    module = project(tmp_path, monkeypatch, "model")
    (tmp_path / "skills" / "refunds" / "evals" / "triggers.json").write_text('[{"query": "hi", "should_trigger": 1}]')
    assert main(["eval", f"{module}:support"]) != 0
    assert "refunds: evals/triggers.json: entry 0: `should_trigger` must be true or false" in capsys.readouterr().err


def test_through_the_openai_sdk(
    fake_api: FakeAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("openai")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", fake_api.url + "/v1")
    module = project(tmp_path, monkeypatch, "'openai/gpt-test'")
    for _ in range(2):
        fake_api.reply(_completion({"name": "shipping"}))
    assert (
        main(["eval", f"{module}:support", "--skill", "shipping", "--format", "json", "--runs", "1", "--jobs", "1"])
        == 0
    )
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    sent = fake_api.bodies[0]
    assert sent["model"] == "gpt-test" and sent["messages"][-1] == {"role": "user", "content": "track my parcel"}
    assert "activate_skill" in [tool["function"]["name"] for tool in sent["tools"]]
    assert report["cost"]["tokens"] == {"input": 200, "output": 20}
    assert report["skills"]["shipping"]["train"]["trigger_rate"] == 1.0  # "track my parcel"
    assert report["skills"]["shipping"]["validation"]["false_trigger_rate"] == 1.0  # "refund my order", too


def _completion(arguments: dict[str, Any]) -> dict[str, Any]:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "activate_skill", "arguments": json.dumps(arguments)},
    }
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "gpt-test",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": None, "refusal": None, "tool_calls": [call]},
                "finish_reason": "tool_calls",
                "logprobs": None,
            }
        ],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
    }


def _anthropic_message(name: str) -> dict[str, Any]:
    """One `activate_skill` call, with the usage the API reports (cache writes apart)."""
    usage = {"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 90, "cache_read_input_tokens": 0}
    return anthropic_activation(name, usage)


def test_through_the_anthropic_sdk(
    fake_api: FakeAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    need("anthropic", "anthropic")
    from flue_runtime.integrations.evaluation import Evaluation

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_api.url)
    module = project(tmp_path, monkeypatch, "'anthropic/claude-test'")
    for _ in range(4):
        fake_api.reply(_anthropic_message("shipping"))
    command = ["eval", f"{module}:support", "--skill", "shipping", "--format", "json", "--runs", "2", "--jobs", "1"]
    assert main(command) == 0
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    harness_turn = Evaluation.of(__import__(module).support)
    assert [received.path for received in fake_api.received] == ["/v1/messages"] * 4
    for sent in fake_api.bodies:  # what the SDK put on the wire is the harness's first turn
        assert sent["model"] == "claude-test"
        assert [block["text"] for block in sent["system"]] == [harness_turn.system]
        assert "- **refunds** — Handle refunds questions." in sent["system"][0]["text"]
        assert [tool["name"] for tool in sent["tools"]] == [tool["name"] for tool in harness_turn.tools]
        assert sent["messages"][0]["role"] == "user" and len(sent["messages"]) == 1
    asked = sorted(block["text"] for sent in fake_api.bodies for block in sent["messages"][0]["content"])
    assert asked == ["refund my order"] * 2 + ["track my parcel"] * 2
    shipping = report["skills"]["shipping"]
    assert shipping["train"]["triggered"] == 2 and shipping["train"]["positive_runs"] == 2
    assert shipping["validation"]["false_triggers"] == 2 and shipping["validation"]["negative_runs"] == 2
    cost = report["cost"]
    assert cost["requests"] == 4
    assert cost["tokens"] == {"input": 4 * (100 + 90), "output": 4 * 10}  # cache writes count as input
    assert cost["seconds"] > 0


PYPROJECT = """\
[build-system]
requires = ["hatchling", "hatch-flue-skills"]
build-backend = "hatchling.build"

[project]
name = "acme"
version = "0.1.0"
dependencies = ["flue-skills"]

[tool.hatch.build.hooks.flue-skills]
"""


def test_a_project_folder_is_evaluated_as_check_finds_its_skills(
    fake_api: FakeAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    need("anthropic", "anthropic")
    root = tmp_path / "acme-project"
    (root / "acme" / "skills").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "acme" / "__init__.py").write_text(
        'from flue_runtime import skill\n\nR = skill("./skills/refunds/SKILL.md")\n'
    )
    for name, queries in TRIGGERS.items():  # refunds is referenced; shipping is a folder the build ships (FLU410)
        folder = root / "acme" / "skills" / name
        (folder / "evals").mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Handle {name} questions.\n---\nHelp.\n")
        (folder / "evals" / "triggers.json").write_text(json.dumps(queries))
    monkeypatch.chdir(tmp_path)
    assert main(["check", "acme-project"]) == 0
    assert "checked 2 skills" in capsys.readouterr().out
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_api.url)
    for _ in range(6):
        fake_api.reply(_anthropic_message("refunds"))
    command = ["eval", "acme-project", "--model", "anthropic/claude-test", "--format", "json", "--runs", "1"]
    assert main(command) == 0
    report = json.loads(capsys.readouterr().out)
    assert sorted(report["skills"]) == ["refunds", "shipping"]
    assert report["cost"]["requests"] == 6
    catalog = fake_api.bodies[0]["system"][0]["text"]
    assert "- **refunds** — Handle refunds questions." in catalog and "- **shipping** —" in catalog
    assert report["skills"]["refunds"]["all"]["trigger_rate"] == 1.0
    assert report["skills"]["shipping"]["all"]["confusions"] == {"refunds": 1}


def test_the_guides_offline_example_runs_as_shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 44 item 10: the eval guide's "Trying it without a key": its `triage.py`, its command as written in the
    folder holding it, and the table it shows (the wall time aside); the counts on stderr in plain English."""
    import contextlib
    import io
    import re
    import shlex
    import sys

    from support.site import blocks, section

    found = blocks(section("guides/eval.md", "## Trying it without a key"))
    [module] = [block for block in found if block.title == "triage.py"]
    [command] = [block.code.strip().removeprefix("$ ") for block in found if block.language == "console"]
    [shown] = [block.code for block in found if block.language == "text"]
    (tmp_path / "triage.py").write_text(module.code)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "triage", raising=False)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert main(shlex.split(command)[1:]) == 0
    timed = re.compile(r"\d+\.\ds$")
    assert [timed.sub("Ns", line) for line in out.getvalue().splitlines()] == [
        timed.sub("Ns", line) for line in shown.splitlines()
    ]
    assert "flue-skills eval: 3 queries × 1 run = 3 requests" in err.getvalue().splitlines()


def test_counts_of_one_are_said_in_the_singular(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """One run is "1 run", not "1 runs"; and a target without eval sets has no "a evals/triggers.json" but an."""
    module = project(tmp_path, monkeypatch, "model")
    assert main(["eval", f"{module}:support", "--runs", "1", "--skill", "shipping"]) == 0
    assert "flue-skills eval: 2 queries × 1 run = 2 requests" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes").mkdir()
    (tmp_path / "empty" / "notes" / "SKILL.md").write_text(
        "---\nname: notes\ndescription: Notes. Use when asked.\n---\nx\n"
    )
    assert main(["eval", str(tmp_path / "empty"), "--model", "anthropic/claude-haiku-4-5"]) == 2
    assert "no skill has an evals/triggers.json to evaluate" in capsys.readouterr().err
