"""`flue-skills run MODULE:AGENT`: a terminal conversation, driven through the child's standard input."""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from typing import Any

import pytest
from clisupport import CLI
from support.fakeapi import FakeAPI

from flue_runtime.agents.stores import open_store

pytestmark = pytest.mark.slow  # the console script in child processes

REFUND_TURN = [
    "Let me check.",
    '  -> activate_skill {"name": "refunds"}',
    '  -> order_status {"order_id": "A-1001"}',
    '  <- activate_skill returned: <skill name="refunds"> Check the order with order_status, then apply policy.md. '
    "</skill> Support fi… (211 characters)",
    "  <- order_status returned: A-1001: delivered 3 days ago",
    "Refund approved (A-1001: delivered 3 days ago).",
]


def typed(store: Path, session: str) -> list[str]:
    """What the user typed in the stored session, in order (announcements left out)."""
    record = open_store(store).load(session)
    assert record is not None
    return [
        m["content"]
        for m in record.messages
        if m["role"] == "user" and not m.get("catalog_update") and not m.get("instructions_update")
    ]


def test_a_conversation_shows_tool_calls_as_they_happen(cli: CLI) -> None:
    done = cli.run("run", "cli_agents:support", stdin="hello\n\nI want a refund\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "> hello",
        "You said 1 thing(s) so far: hello",
        "> I want a refund",
        *REFUND_TURN,
    ]
    assert done.stderr.startswith("cli_agents:support with ScriptedModel: session run-")
    assert "(new, not kept: add --store PATH to keep it). End with Ctrl-D; Ctrl-C stops." in done.stderr


def test_end_of_input_at_once_ends_cleanly(cli: CLI) -> None:
    done = cli.run("run", "cli_agents:support", stdin="")
    assert (done.returncode, done.stdout) == (0, "")
    assert "Traceback" not in done.stderr


def test_a_session_resumes_across_two_runs(cli: CLI) -> None:
    store = cli.cwd / "sessions.db"
    first = cli.run("run", "cli_agents:support", "--store", str(store), "--session", "case-7", stdin="hi\nrefund?\n")
    assert first.returncode == 0, first.stderr
    assert "session case-7 (new, kept in " in first.stderr
    second = cli.run("run", "cli_agents:support", "--store", str(store), "--session", "case-7", stdin="again\n")
    assert second.returncode == 0, second.stderr
    assert "session case-7 (resumed after 2 prompts, kept in " in second.stderr
    assert second.stdout == "> again\nYou said 3 thing(s) so far: hi | refund? | again\n"
    assert typed(store, "case-7") == ["hi", "refund?", "again"]


def test_a_store_without_a_session_names_the_new_one(cli: CLI) -> None:
    store = cli.cwd / "sessions.db"
    done = cli.run("run", "cli_agents:support", "--store", str(store), stdin="hi\n")
    assert done.returncode == 0, done.stderr
    last = done.stderr.splitlines()[-1]
    assert last.startswith(f"resume with: --store {store} --session run-")
    assert typed(store, last.rsplit(" ", 1)[1]) == ["hi"]


def test_state_renders_a_new_session_and_is_set_on_a_resumed_one(cli: CLI) -> None:
    store = cli.cwd / "sessions.db"
    args = ["run", "cli_agents:support", "--store", str(store), "--session"]
    assert cli.run(*args, "gold", "--state", "vip=true", stdin="hi\n").returncode == 0
    gold = open_store(store).load("gold")
    assert gold is not None and gold.state == {"vip": True} and "- **vip**" in gold.system_prompt
    assert cli.run(*args, "plain", stdin="hi\n").returncode == 0
    assert cli.run(*args, "plain", "--state", "vip=true", stdin="").returncode == 0
    plain = open_store(store).load("plain")
    assert plain is not None and plain.state == {"vip": True} and "**vip**" not in plain.system_prompt


@pytest.mark.parametrize("request_, tool", [("search the archive", "slow_lookup"), ("old files", "blocking_lookup")])
def test_ctrl_c_during_a_slow_tool_stops_and_keeps_the_last_complete_turn(cli: CLI, request_: str, tool: str) -> None:
    """slow_lookup awaits; blocking_lookup blocks the event loop in time.sleep: Ctrl-C stops both at once."""
    store = cli.cwd / "sessions.db"
    child = cli.start("run", "cli_agents:support", "--store", str(store), "--session", "s")
    watchdog = threading.Timer(60, child.kill)
    watchdog.start()
    try:
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(f"hello\n{request_}\n")
        child.stdin.flush()
        seen = [child.stdout.readline() for _ in range(4)]
        assert seen == [
            "> hello\n",
            "You said 1 thing(s) so far: hello\n",
            f"> {request_}\n",
            f'  -> {tool} {{"query": "{request_}"}}\n',
        ]
        child.send_signal(signal.SIGINT)  # the tool is running now: it sleeps for a minute
        out, err = child.communicate(timeout=30)
    finally:
        watchdog.cancel()
    assert child.returncode == 130, err
    assert out == ""
    assert err.endswith("\ninterrupted: the unfinished turn was not saved\n") and "Traceback" not in err
    assert typed(store, "s") == ["hello"]


def test_ctrl_c_at_the_prompt_exits_130(cli: CLI) -> None:
    store = cli.cwd / "sessions.db"
    child = cli.start("run", "cli_agents:support", "--store", str(store), "--session", "s")
    watchdog = threading.Timer(60, child.kill)
    watchdog.start()
    try:
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write("hello\n")
        child.stdin.flush()
        assert [child.stdout.readline() for _ in range(2)] == ["> hello\n", "You said 1 thing(s) so far: hello\n"]
        child.send_signal(signal.SIGINT)  # waiting for the next line
        out, err = child.communicate(timeout=30)
    finally:
        watchdog.cancel()
    assert (child.returncode, out) == (130, "")
    assert err.endswith(". End with Ctrl-D; Ctrl-C stops.\n\ninterrupted\n"), err
    assert typed(store, "s") == ["hello"]


def test_session_without_store_is_a_usage_error(cli: CLI) -> None:
    done = cli.run("run", "cli_agents:support", "--session", "x")
    assert done.returncode == 2
    assert "--session needs --store PATH" in done.stderr


def test_an_agent_without_a_model_asks_for_model(cli: CLI) -> None:
    done = cli.run("run", "cli_agents:modelless", stdin="hi\n")
    assert done.returncode == 2
    assert "cli_agents:modelless calls no use_model(); pass --model PROVIDER/NAME" in done.stderr


def test_a_bad_model_name_is_reported_before_the_conversation(cli: CLI) -> None:
    done = cli.run("run", "cli_agents:support", "--model", "nowhere/x", stdin="hi\n")
    assert done.returncode == 2 and done.stdout == ""
    assert "unknown model provider 'nowhere'" in done.stderr and "Traceback" not in done.stderr


def completion(content: str | None, *calls: dict[str, Any]) -> dict[str, Any]:
    """A Chat Completions response body."""
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
    if calls:
        message["tool_calls"] = list(calls)
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "gpt-test",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
    }


def test_model_replaces_the_agents_own_and_a_failed_turn_is_not_saved(cli: CLI, fake_api: FakeAPI) -> None:
    call = {
        "id": "call_abc",
        "type": "function",
        "function": {"name": "order_status", "arguments": '{"order_id": "B-7"}'},
    }
    fake_api.reply(completion(None, call))
    fake_api.reply(completion("B-7 is on its way."))
    # The third request finds no reply queued: the server answers 500 and the SDK does not retry.
    cli.env.update(OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=fake_api.url + "/v1")
    store = cli.cwd / "sessions.db"
    done = cli.run(
        "run", "cli_agents:support", "--model", "openai/gpt-test", "--store", str(store), "--session", "o",
        stdin="where is B-7?\nand now?\n",
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "> where is B-7?",
        '  -> order_status {"order_id": "B-7"}',
        "  <- order_status returned: B-7: delivered 3 days ago",
        "B-7 is on its way.",
        "> and now?",
    ]
    assert "with openai/gpt-test: session o" in done.stderr
    assert "flue-skills run: error: " in done.stderr and "; this turn was not saved" in done.stderr
    sent = fake_api.bodies[0]
    assert sent["model"] == "gpt-test" and "**refunds**" in sent["messages"][0]["content"]
    assert typed(store, "o") == ["where is B-7?"]
