"""`--skill NAME` and `--disable-skill NAME` of `flue-skills run` and `prompt`, through the CLI's `main` in this process."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import cli_agents
import pytest

from flue_build.cli import main
from flue_runtime import Harness
from flue_runtime.agents.stores import open_store

ACTIVATION_SHOWN = [
    '  -> activate_skill {"name": "refunds"} (--skill)',
    '  <- activate_skill returned: <skill name="refunds"> Check the order with order_status, then apply policy.md. '
    "</skill> Support fi… (211 characters)",
]


def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str, stdin: str = "") -> Any:
    """`flue-skills ARGS` in this process: (exit status, stdout, stderr)."""
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def test_run_activates_with_the_first_prompt_and_the_session_keeps_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "sessions.db"
    status, out, err = cli(
        capsys,
        monkeypatch,
        *("run", "cli_agents:support", "--skill", "refunds", "--store", str(store), "--session", "s"),
        stdin="hello\nagain\n",
    )
    assert status == 0, err
    assert out.splitlines() == [
        "> hello",
        *ACTIVATION_SHOWN,
        "You said 1 thing(s) so far: hello",
        "> again",
        "You said 2 thing(s) so far: hello | again",
    ]
    record = open_store(store).load("s")
    assert record is not None
    roles = [(m["role"], bool(m.get("explicit"))) for m in record.messages]
    assert roles == [
        ("user", False),
        ("assistant", True),
        ("tool", True),
        ("assistant", False),
        ("user", False),
        ("assistant", False),
    ]
    assert record.messages[1]["tool_calls"][0]["arguments"] == {"name": "refunds"}


def test_run_with_a_skill_the_agent_does_not_mount_is_a_usage_error_before_any_prompt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "sessions.db"
    before = len(cli_agents.model.requests)
    status, out, err = cli(
        capsys,
        monkeypatch,
        *("run", "cli_agents:support", "--skill", "vip", "--store", str(store), "--session", "s"),
        stdin="hello\n",
    )
    assert (status, out) == (2, "")
    assert err == (
        "flue-skills run: error: --skill: cannot activate: no skill named 'vip' is mounted; available skills: refunds\n"
    )
    assert len(cli_agents.model.requests) == before and open_store(store).load("s") is None


def test_run_with_a_disabled_skill_leaves_it_out_for_the_run_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "sessions.db"
    args = ("run", "cli_agents:support", "--store", str(store), "--session", "s")
    status, out, err = cli(
        capsys, monkeypatch, *args, "--state", "vip=true", "--disable-skill", "refunds", stdin="I want a refund\n"
    )
    assert status == 0, err
    assert "  <- activate_skill returned: There is no skill named 'refunds'. Available skills: vip." in out
    record = open_store(store).load("s")
    assert record is not None and "refunds" not in record.system_prompt and record.skill_switches == {}
    # The next run without the flag offers it again, announced as a catalog change.
    status, out, err = cli(capsys, monkeypatch, *args, stdin="hi\n")
    assert status == 0, err
    record = open_store(store).load("s")
    assert record is not None and "New skills:\n- **refunds**" in record.messages[-3]["content"]


def test_prompt_shows_the_activation_after_the_users_message_and_counts_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, out, err = cli(capsys, monkeypatch, "prompt", "cli_agents:support", "--format", "json")
    assert status == 0, err
    plain = json.loads(out)
    status, out, err = cli(
        capsys, monkeypatch, "prompt", "cli_agents:support", "--format", "json", "--skill", "refunds"
    )
    assert status == 0, err
    shown = json.loads(out)
    assert (shown["system"], shown["tools"]) == (plain["system"], plain["tools"])  # byte-identical
    [activation] = shown["activations"]
    before = len(cli_agents.model.requests)
    Harness(cli_agents.support).prompt_sync("hello", activate=["refunds"])
    assert activation == {"skill": "refunds", "content": cli_agents.model.requests[before].messages[-1]["content"]}
    tokens = shown["tokens"]
    assert list(tokens["activations"]) == ["refunds"] and tokens["activations"]["refunds"] > 0
    assert tokens["total"] == plain["tokens"]["total"] + tokens["activations"]["refunds"]
    assert plain["activations"] == [] and plain["tokens"]["activations"] == {}

    status, out, err = cli(capsys, monkeypatch, "prompt", "cli_agents:support", "--skill", "refunds")
    assert status == 0, err
    assert "=== activation of refunds (--skill), after the user's message: " in out
    assert activation["content"] in out
    assert ", in 1 activation;" not in out and " in 1 activation; " in out.splitlines()[-1]


def test_prompt_without_a_disabled_skill(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    status, out, err = cli(
        capsys, monkeypatch, "prompt", "cli_agents:support", "--format", "json", "--disable-skill", "refunds"
    )
    assert status == 0, err
    shown = json.loads(out)
    assert "Available Skills" not in shown["system"] and shown["disabled_skills"] == ["refunds"]
    assert [t["name"] for t in shown["tools"]] == ["order_status", "slow_lookup", "blocking_lookup"]
    status, out, err = cli(
        capsys, monkeypatch, "prompt", "cli_agents:support", "--skill", "refunds", "--disable-skill", "refunds"
    )
    assert (status, out) == (2, "")
    assert err.startswith("flue-skills prompt: error: --skill: cannot activate: skill 'refunds' is disabled")
