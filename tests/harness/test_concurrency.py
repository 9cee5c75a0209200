"""Fifty sessions at once against one SQLite store: no cross-talk, no lost message, no
`database is locked` reaching the user, an event loop that keeps running while a session
waits for the database, and a store that survives a process killed in the middle of it all.

The model answers after a pause, as a provider does, so the sessions' turns, tool calls and
writes interleave on the event loop. Every check reads the store back in a new process.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from flue_runtime import Harness, MemorySandbox, agent, define_skill, use_model, use_skill, use_state
from flue_runtime.models import ModelRequest, ModelResponse, ScriptedModel, ToolCall

SESSIONS = 50
TURNS = 3

REFUNDS = define_skill(
    name="refunds",
    description="Handle refunds.",
    instructions="# Refunds\nRead policy.md first.\n",
    files={"policy.md": "REFUNDS-POLICY: 30 days.\n", "forms/claim.md": "REFUNDS-CLAIM form\n"},
)
VIP = define_skill(
    name="vip",
    description="VIP care.",
    instructions="# VIP\nBe generous.\n",
    files={"perks.md": "VIP-PERKS: lounge.\n"},
)


class PacedModel:
    """A ScriptedModel that takes a moment to answer, like a real provider: turns interleave."""

    def __init__(self, turns: list[Any], seed: int) -> None:
        self.script = ScriptedModel(turns)
        self.random = random.Random(seed)

    @property
    def requests(self) -> list[ModelRequest]:
        return self.script.requests

    async def complete(self, request: ModelRequest) -> ModelResponse:
        await asyncio.sleep(self.random.uniform(0, 0.01))
        return await self.script.complete(request)


def expected_skill(index: int) -> tuple[str, str, str]:
    """The skill session `index` mounts and reads: (name, file, the file's marker)."""
    return ("vip", "perks.md", "VIP-PERKS") if index % 2 else ("refunds", "policy.md", "REFUNDS-POLICY")


def script(index: int, count: int = TURNS) -> list[Any]:
    skill, file, _ = expected_skill(index)
    turns: list[Any] = []
    for turn in range(count):
        turns.append(
            [
                ToolCall("activate_skill", {"name": skill}),
                ToolCall("read_skill_resource", {"path": f"/.flue/skills/{skill}/{file}"}),
            ]
        )
        turns.append(f"answer {index}.{turn}")
    return turns


def make_harness(store: Path, models: dict[int, PacedModel]) -> Harness:
    @agent
    def support() -> str:
        n = use_state("n")  # set before the first prompt; the first render (set_state's) has no state yet
        use_model(models[n] if n in models else ScriptedModel([]))
        use_skill(REFUNDS)
        if use_state("vip", False):
            use_skill(VIP)
        return "Answer support questions."

    return Harness(support, store=store, sandbox=MemorySandbox())


async def heartbeat(stop: asyncio.Event, gaps: list[float]) -> None:
    """The event loop's pulse: the longest gap is how long some call kept every session waiting."""
    loop = asyncio.get_running_loop()
    last = loop.time()
    while not stop.is_set():
        await asyncio.sleep(0.005)
        now = loop.time()
        gaps.append(now - last)
        last = now


async def run_sessions(harness: Harness, ids: list[int], turn: int) -> tuple[list[str], float]:
    """One prompt in every session at once; the answers, and the event loop's longest stall."""
    stop, gaps = asyncio.Event(), []  # type: ignore[var-annotated]
    pulse = asyncio.create_task(heartbeat(stop, gaps))
    results = await asyncio.gather(*(harness.session(f"s{i}").prompt(f"question {i}.{turn}") for i in ids))
    stop.set()
    await pulse
    return [r.text for r in results], max(gaps, default=0.0)


def start_sessions(harness: Harness, ids: list[int]) -> None:
    for i in ids:
        session = harness.session(f"s{i}")
        session.set_state("n", i)
        session.set_state("vip", i % 2 == 1)


READ_BACK = """
import json, sys
from flue_runtime.agents.stores.sqlite import SQLiteStore
store = SQLiteStore(sys.argv[1])
print(json.dumps({i: store.load(i).__dict__ for i in store.session_ids()}))
"""


def read_back(db: Path) -> dict[str, dict[str, Any]]:
    """Every session as a new process finds it in the store."""
    proc = subprocess.run([sys.executable, "-c", READ_BACK, str(db)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    found: dict[str, dict[str, Any]] = json.loads(proc.stdout)
    return found


def assert_conversation(index: int, record: dict[str, Any], turns: int) -> None:
    """Exactly this session's turns, in order, each with its own skill's text and nothing else's.

    The state was set before the first question: a VIP session's system prompt lists `vip` from the
    start (the conversation starts at the first prompt), so nothing is announced."""
    skill, _, marker = expected_skill(index)
    other = "REFUNDS-POLICY" if marker == "VIP-PERKS" else "VIP-PERKS"
    messages = record["messages"]
    if turns:
        assert ("- **vip** — VIP care." in record["system_prompt"]) == (index % 2 == 1)
    assert not any(m.get("catalog_update") for m in messages)
    roles = [m["role"] for m in messages]
    assert roles == ["user", "assistant", "tool", "tool", "assistant"] * turns, roles
    for turn in range(turns):
        user, call, activation, resource, answer = messages[turn * 5 : turn * 5 + 5]
        assert user["content"] == f"question {index}.{turn}"
        assert [c["name"] for c in call["tool_calls"]] == ["activate_skill", "read_skill_resource"]
        assert f'<skill name="{skill}">' in activation["content"] and not activation["is_error"]
        assert marker in resource["content"] and other not in resource["content"]
        assert answer["content"] == f"answer {index}.{turn}"
    assert record["state"] == {"n": index, "vip": index % 2 == 1}
    assert record["announced"] == (
        [["refunds", "Handle refunds."], ["vip", "VIP care."]] if index % 2 else [["refunds", "Handle refunds."]]
    )


def test_fifty_sessions_in_parallel_keep_their_own_conversations(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    models = {i: PacedModel(script(i), seed=i) for i in range(SESSIONS)}
    harness = make_harness(db, models)
    start_sessions(harness, list(range(SESSIONS)))
    for turn in range(TURNS):
        answers, _ = asyncio.run(run_sessions(harness, list(range(SESSIONS)), turn))
        assert answers == [f"answer {i}.{turn}" for i in range(SESSIONS)]
    for i, model in models.items():  # what each model was sent: only its own session's words
        for request in model.requests:
            users = [m["content"] for m in request.messages if m["role"] == "user" and not m.get("catalog_update")]
            assert all(text.startswith(f"question {i}.") for text in users), (i, users)
    stored = read_back(db)
    assert sorted(stored) == sorted(f"s{i}" for i in range(SESSIONS))
    for i in range(SESSIONS):
        assert_conversation(i, stored[f"s{i}"], TURNS)


LOCK_HOLDER = """
import sqlite3, sys, time
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("BEGIN IMMEDIATE")  # another worker in the middle of a long write
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
connection.execute("COMMIT")
"""


def test_a_session_waiting_for_the_database_does_not_stall_the_others(tmp_path: Path) -> None:
    """Another process holds the write lock for 1.5 s: every save waits (and succeeds), and the event
    loop goes on meanwhile: model calls and tool calls of other sessions keep moving."""
    db = tmp_path / "sessions.db"
    models = {i: PacedModel(script(i), seed=i) for i in range(SESSIONS)}
    harness = make_harness(db, models)
    start_sessions(harness, list(range(SESSIONS)))
    holder = subprocess.Popen([sys.executable, "-c", LOCK_HOLDER, str(db), "1.5"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        started = time.monotonic()
        answers, stall = asyncio.run(run_sessions(harness, list(range(SESSIONS)), 0))
        elapsed = time.monotonic() - started
    finally:
        holder.wait(timeout=60)
    assert holder.returncode == 0
    assert answers == [f"answer {i}.0" for i in range(SESSIONS)]
    assert elapsed >= 1.0  # the saves really waited for the lock
    assert stall < 0.5, f"the event loop stood still for {stall:.2f} s while a session waited for the database"
    stored = read_back(db)
    for i in range(SESSIONS):
        assert_conversation(i, stored[f"s{i}"], 1)


WORKER = """
import asyncio, sys
sys.path.insert(0, {tests!r})
from test_concurrency import PacedModel, make_harness, run_sessions, script, start_sessions
db, first, count, turns = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
ids = list(range(first, first + count))
models = {{i: PacedModel(script(i, turns), seed=i) for i in ids}}
harness = make_harness(db, models)
start_sessions(harness, ids)
for turn in range(turns):
    answers, _ = asyncio.run(run_sessions(harness, ids, turn))
    assert answers == [f"answer {{i}}.{{turn}}" for i in ids], answers
    print("turn", turn, flush=True)
"""


def worker(db: Path, first: int, count: int, turns: int) -> subprocess.Popen[str]:
    source = WORKER.format(tests=str(Path(__file__).parent))
    return subprocess.Popen(
        [sys.executable, "-c", source, str(db), str(first), str(count), str(turns)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_four_processes_of_fifty_sessions_share_one_store(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    procs = [worker(db, first, SESSIONS, TURNS) for first in range(0, 4 * SESSIONS, SESSIONS)]
    for proc in procs:
        out, err = proc.communicate(timeout=240)
        assert proc.returncode == 0, err
        assert "locked" not in err
    stored = read_back(db)
    assert len(stored) == 4 * SESSIONS
    for i in range(4 * SESSIONS):
        assert_conversation(i, stored[f"s{i}"], TURNS)


@pytest.mark.parametrize("after_turns", [1, 2])
def test_a_process_killed_among_fifty_sessions_leaves_a_store_that_opens_and_sessions_that_resume(
    tmp_path: Path, after_turns: int
) -> None:
    db = tmp_path / "sessions.db"
    proc = worker(db, 0, SESSIONS, 100)  # killed long before the 100th round
    assert proc.stdout is not None
    for _ in range(after_turns):
        assert proc.stdout.readline().startswith("turn")
    time.sleep(0.05)  # into the next round: sessions mid-turn, writes in flight
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    with sqlite3.connect(db) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    stored = read_back(db)
    done = {i: len(stored[f"s{i}"]["messages"]) // 5 for i in range(SESSIONS)}
    assert min(done.values()) >= after_turns and max(done.values()) - min(done.values()) <= 1, (
        done
    )  # rounds in lockstep
    for i, turns in done.items():
        assert_conversation(i, stored[f"s{i}"], turns)  # whole turns only: nothing half-written
    # Every session resumes in a new process and finishes its script from where it stopped.
    resume = textwrap.dedent(
        f"""
        import asyncio, json, sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from test_concurrency import PacedModel, make_harness, script
        done = {{int(k): v for k, v in json.loads(sys.argv[2]).items()}}
        models = {{i: PacedModel(script(i, done[i] + 2)[2 * done[i]:], seed=i) for i in done}}
        harness = make_harness(sys.argv[1], models)

        async def main():
            async def finish(i):
                for turn in range(done[i], done[i] + 2):
                    await harness.session(f"s{{i}}").prompt(f"question {{i}}.{{turn}}")
            await asyncio.gather(*(finish(i) for i in done))

        asyncio.run(main())
        """
    )
    resumed = subprocess.run(
        [sys.executable, "-c", resume, str(db), json.dumps(done)], capture_output=True, text=True, timeout=120
    )
    assert resumed.returncode == 0, resumed.stderr
    stored = read_back(db)
    for i in range(SESSIONS):
        assert_conversation(i, stored[f"s{i}"], done[i] + 2)


# --- one session written by two processes ---------------------------------------------------------


def test_the_last_complete_turn_wins_when_two_processes_write_one_session(tmp_path: Path) -> None:
    """Two workers resume the same session and each adds a turn: the store holds exactly the second
    worker's conversation (its turn, its state), never the first one's messages under the second one's state."""
    db = tmp_path / "sessions.db"
    first = {0: PacedModel(script(0, 2), seed=0)}
    make_harness(db, first).session("s0").set_state("n", 0)
    asyncio.run(run_sessions(make_harness(db, first), [0], 0))
    one = make_harness(db, {0: PacedModel(script(0, 2)[2:], seed=1)}).session("s0")
    two = make_harness(db, {0: PacedModel(script(0, 2)[2:], seed=2)}).session("s0")
    assert len(one.messages) == len(two.messages) == 5  # both resumed from the same stored turn
    two.set_state("late", True)
    one.prompt_sync("question 0.1")  # one's turn lands first...
    two.prompt_sync("question 0.1 (from the second worker)")  # ...then two's, written over the same history
    [stored] = read_back(db).values()
    assert stored["messages"] == two.messages
    assert stored["messages"][5]["content"] == "question 0.1 (from the second worker)"
    assert stored["state"] == {"n": 0, "late": True}


FLIPPER = """
import sys, time
from flue_runtime.agents.stores.sqlite import SQLiteStore
from flue_runtime.agents.stores import SessionRecord
store = SQLiteStore(sys.argv[1])
records = [SessionRecord("sys", [{"role": "user", "content": v}] * n, {"v": v}) for v, n in (("a", 2), ("b", 6))]
store.save("x", records[0])
print("ready", flush=True)
deadline = time.monotonic() + float(sys.argv[2])
flips = 0
while time.monotonic() < deadline:
    store.save("x", records[flips % 2])
    flips += 1
print(flips, flush=True)
"""


def test_a_load_never_mixes_two_saves(tmp_path: Path) -> None:
    """Another process replaces a session as fast as it can; every load is one whole record."""
    from flue_runtime.agents.stores.sqlite import SQLiteStore

    db = tmp_path / "sessions.db"
    store = SQLiteStore(db)
    writer = subprocess.Popen([sys.executable, "-c", FLIPPER, str(db), "2"], stdout=subprocess.PIPE, text=True)
    assert writer.stdout is not None and writer.stdout.readline() == "ready\n"
    loads, torn = 0, []
    while writer.poll() is None:
        record = store.load("x")
        assert record is not None
        loads += 1
        kinds = {m["content"] for m in record.messages}
        expected = {"a": 2, "b": 6}[record.state["v"]]
        if kinds != {record.state["v"]} or len(record.messages) != expected:
            torn.append((record.state, len(record.messages), kinds))
    assert writer.returncode == 0
    flips = int(writer.stdout.read().strip())
    assert flips > 100 and loads > 100, (flips, loads)
    assert torn == []


def test_a_lock_held_past_the_busy_timeout_is_a_clear_store_error(tmp_path: Path) -> None:
    from flue_runtime.agents.stores import SessionRecord
    from flue_runtime.agents.stores.sqlite import SQLiteStore
    from flue_runtime.errors import StoreError

    db = tmp_path / "sessions.db"
    store = SQLiteStore(db, busy_timeout=0.3)
    holder = subprocess.Popen([sys.executable, "-c", LOCK_HOLDER, str(db), "1.5"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        started = time.monotonic()
        with pytest.raises(StoreError, match=r"stayed locked by another connection for over 0.3 s"):
            store.save("s", SessionRecord("sys", [{"role": "user", "content": "hi"}]))
        assert time.monotonic() - started < 1.2  # it gave up after its timeout, not after the holder
    finally:
        holder.wait(timeout=60)
    store.save("s", SessionRecord("sys", [{"role": "user", "content": "hi"}]))  # and works once the lock is gone
    assert store.load("s") == SessionRecord("sys", [{"role": "user", "content": "hi"}])
