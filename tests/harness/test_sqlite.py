"""Durable sessions: resumed in a new process, and intact after a process is killed mid-turn or mid-write."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from flue_runtime.agents.stores import SessionRecord
from flue_runtime.agents.stores.sqlite import SQLiteStore

AGENT = """
import sys, time
from pathlib import Path
from flue_runtime import Harness, agent, define_skill, use_model, use_skill, use_state, use_tool
from flue_runtime.models import ScriptedModel, ToolCall

REFUNDS = define_skill(name="refunds", description="Handle refunds.", instructions="Check the date.")
VIP = define_skill(name="vip", description="VIP care.", instructions="Be generous.")

def hang(marker: str) -> str:
    '''Signal the parent, then never return.'''
    Path(marker).write_text("inside the turn")
    time.sleep(600)
    return "unreachable"

def run(db, session_id, turns, prompt, set_vip=None):
    model = ScriptedModel(turns)

    @agent
    def support():
        use_model(model)
        use_skill(REFUNDS)
        use_tool(hang)
        if use_state("vip", False):
            use_skill(VIP)
        return "Answer support questions."

    session = Harness(support, store=db).session(session_id)
    if set_vip is not None:
        session.set_state("vip", set_vip)
    result = session.prompt_sync(prompt)
    return model, session, result
"""


def run_python(
    tmp_path: Path, body: str, *, wait: bool = True
) -> subprocess.Popen[str] | subprocess.CompletedProcess[str]:
    script = tmp_path / f"step_{time.monotonic_ns()}.py"
    script.write_text(AGENT + textwrap.dedent(body))
    if wait:
        proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        return proc
    return subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_session_resumes_in_a_new_process(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    first = run_python(
        tmp_path,
        f"""
        model, session, result = run({str(db)!r}, "case-42", [[ToolCall("activate_skill", {{"name": "refunds"}})], "First answer."], "I want a refund")
        Path({str(tmp_path / "system1.txt")!r}).write_bytes(session.system_prompt.encode())
        """,
    )
    second = run_python(
        tmp_path,
        f"""
        model, session, result = run({str(db)!r}, "case-42", ["Second answer."], "And VIP?", set_vip=True)
        req = model.requests[0]
        Path({str(tmp_path / "system2.txt")!r}).write_bytes(req.system.encode())
        print(result.text)
        print([m["role"] for m in req.messages])
        print(req.messages[-2]["content"].splitlines()[-1])
        print(session.state)
        """,
    )
    assert isinstance(first, subprocess.CompletedProcess) and isinstance(second, subprocess.CompletedProcess)
    assert (tmp_path / "system1.txt").read_bytes() == (tmp_path / "system2.txt").read_bytes()
    lines = second.stdout.splitlines()
    assert lines[0] == "Second answer."
    # the first turn (user, tool call, tool result, answer), the announcement, the new prompt
    assert lines[1] == "['user', 'assistant', 'tool', 'assistant', 'user', 'user']"
    assert lines[2] == "Available skills now: refunds, vip"
    assert lines[3] == "{'vip': True}"


def test_killed_mid_turn_leaves_a_store_that_opens_and_a_session_that_resumes(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    run_python(tmp_path, f'run({str(db)!r}, "s", ["Hello."], "first prompt")')
    marker = tmp_path / "marker"
    proc = run_python(
        tmp_path,
        f'run({str(db)!r}, "s", [[ToolCall("hang", {{"marker": {str(marker)!r}}})], "never"], "second prompt")',
        wait=False,
    )
    assert isinstance(proc, subprocess.Popen)
    deadline = time.monotonic() + 30
    while not marker.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    record = SQLiteStore(db).load("s")
    assert record is not None
    assert [m["content"] for m in record.messages] == ["first prompt", "Hello."]
    resumed = run_python(
        tmp_path,
        f"""
        model, session, result = run({str(db)!r}, "s", ["Third."], "third prompt")
        print([m["content"] for m in model.requests[0].messages])
        """,
    )
    assert isinstance(resumed, subprocess.CompletedProcess)
    assert resumed.stdout.strip() == "['first prompt', 'Hello.', 'third prompt']"


WRITER = """
import sys
from flue_runtime.agents.stores.sqlite import SQLiteStore
from flue_runtime.agents.stores import SessionRecord
store = SQLiteStore(sys.argv[1])
messages = []
for turn in range(100000):
    messages += [{"role": "user", "content": f"q{turn} " + "x" * 2000}, {"role": "assistant", "content": f"a{turn}"}]
    store.save("s", SessionRecord("system", messages, {"turn": turn}, [("refunds", "d")]))
    print(turn, flush=True)
"""


@pytest.mark.parametrize("delay", [0.05, 0.2, 0.5])
def test_killed_mid_write_leaves_a_consistent_store(tmp_path: Path, delay: float) -> None:
    db = tmp_path / "sessions.db"
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(db)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    proc.stdout.readline()  # at least one turn committed
    time.sleep(delay)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    with sqlite3.connect(db) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    record = SQLiteStore(db).load("s")
    assert record is not None
    turn = record.state["turn"]
    assert len(record.messages) == 2 * (turn + 1)
    assert record.messages[-1] == {"role": "assistant", "content": f"a{turn}"}


def test_store_round_trip_and_schema(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    assert store.load("nope") is None
    record = SessionRecord("sys ✓", [{"role": "user", "content": "é"}], {"k": [1, 2]}, [("a", "b")])
    store.save("x", record)
    store.save("x", SessionRecord("sys ✓", record.messages + [{"role": "assistant", "content": "ok"}], {"k": 3}, []))
    again = SQLiteStore(tmp_path / "s.db").load("x")
    assert again == SessionRecord(
        "sys ✓", [{"role": "user", "content": "é"}, {"role": "assistant", "content": "ok"}], {"k": 3}, []
    )
    assert store.session_ids() == ["x"]
