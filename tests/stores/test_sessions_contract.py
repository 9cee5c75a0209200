"""Sessions through the harness, one contract for every store: resumed in a new process, intact after
a worker is killed mid-turn, fifty at once and four processes of fifty without cross-talk, and two
workers on one session losing neither turn. Every check reads the store back in a new process."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from store_backends import Backend
from store_support import (
    HERE,
    SESSIONS,
    TURNS,
    EchoModel,
    GatedModel,
    PacedModel,
    assert_conversation,
    assert_whole_turns,
    echo_harness,
    make_harness,
    read_back,
    run_sessions,
    script,
    start_sessions,
    worker,
)

from flue_runtime import Harness, agent, use_model, use_tool
from flue_runtime.errors import SessionConflictError
from flue_runtime.models import ScriptedModel

pytestmark = pytest.mark.slow  # worker processes, and a PostgreSQL server

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

def run(store, session_id, turns, prompt, set_vip=None):
    model = ScriptedModel(turns)

    @agent
    def support():
        use_model(model)
        use_skill(REFUNDS)
        use_tool(hang)
        if use_state("vip", False):
            use_skill(VIP)
        return "Answer support questions."

    session = Harness(support, store=store).session(session_id)
    if set_vip is not None:
        session.set_state("vip", set_vip)
    result = session.prompt_sync(prompt)
    return model, session, result
"""


def run_python(tmp_path: Path, body: str, *, wait: bool = True) -> Any:
    script_file = tmp_path / f"step_{time.monotonic_ns()}.py"
    script_file.write_text(AGENT + textwrap.dedent(body))
    if wait:
        proc = subprocess.run([sys.executable, str(script_file)], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        return proc
    return subprocess.Popen(
        [sys.executable, str(script_file)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def stored_sessions(backend: Backend) -> dict[str, dict[str, Any]]:
    """Every session as a new process finds it (as this process does, for the memory store)."""
    if backend.name == "memory":
        store = backend.location
        found: dict[str, dict[str, Any]] = json.loads(
            json.dumps({i: store.load(i).__dict__ for i in store.session_ids()})  # as the JSON a process prints
        )
        return found
    return read_back(backend.location)


# --- resuming, and a worker killed -----------------------------------------------------------


def test_session_resumes_in_a_new_process(durable: Backend, tmp_path: Path) -> None:
    where = durable.location
    run_python(
        tmp_path,
        f"""
        model, session, result = run({where!r}, "case-42", [[ToolCall("activate_skill", {{"name": "refunds"}})], "First answer."], "I want a refund")
        Path({str(tmp_path / "system1.txt")!r}).write_bytes(session.system_prompt.encode())
        """,
    )
    second = run_python(
        tmp_path,
        f"""
        model, session, result = run({where!r}, "case-42", ["Second answer."], "And VIP?", set_vip=True)
        req = model.requests[0]
        Path({str(tmp_path / "system2.txt")!r}).write_bytes(req.system.encode())
        print(result.text)
        print([m["role"] for m in req.messages])
        print(req.messages[-2]["content"].splitlines()[-1])
        print(session.state)
        """,
    )
    assert (tmp_path / "system1.txt").read_bytes() == (tmp_path / "system2.txt").read_bytes()
    lines = second.stdout.splitlines()
    assert lines[0] == "Second answer."
    # the first turn (user, tool call, tool result, answer), the announcement, the new prompt
    assert lines[1] == "['user', 'assistant', 'tool', 'assistant', 'user', 'user']"
    assert lines[2] == "Available skills now: refunds, vip"
    assert lines[3] == "{'vip': True}"


def test_killed_mid_turn_leaves_a_store_that_opens_and_a_session_that_resumes(durable: Backend, tmp_path: Path) -> None:
    where = durable.location
    run_python(tmp_path, f'run({where!r}, "s", ["Hello."], "first prompt")')
    marker = tmp_path / "marker"
    proc = run_python(
        tmp_path,
        f'run({where!r}, "s", [[ToolCall("hang", {{"marker": {str(marker)!r}}})], "never"], "second prompt")',
        wait=False,
    )
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    record = durable.open().load("s")
    assert record is not None
    assert [m["content"] for m in record.messages] == ["first prompt", "Hello."]
    resumed = run_python(
        tmp_path,
        f"""
        model, session, result = run({where!r}, "s", ["Third."], "third prompt")
        print([m["content"] for m in model.requests[0].messages])
        """,
    )
    assert resumed.stdout.strip() == "['first prompt', 'Hello.', 'third prompt']"


# --- many sessions at once -------------------------------------------------------------------


def test_fifty_sessions_in_parallel_keep_their_own_conversations(backend: Backend) -> None:
    models = {i: PacedModel(script(i), seed=i) for i in range(SESSIONS)}
    harness = make_harness(backend.open(), models)
    start_sessions(harness, list(range(SESSIONS)))
    for turn in range(TURNS):
        answers = asyncio.run(run_sessions(harness, list(range(SESSIONS)), turn))
        assert answers == [f"answer {i}.{turn}" for i in range(SESSIONS)]
    for i, model in models.items():  # what each model was sent: only its own session's words
        for request in model.requests:
            users = [m["content"] for m in request.messages if m["role"] == "user" and not m.get("catalog_update")]
            assert all(text.startswith(f"question {i}.") for text in users), (i, users)
    stored = stored_sessions(backend)
    assert sorted(stored) == sorted(f"s{i}" for i in range(SESSIONS))
    for i in range(SESSIONS):
        assert_conversation(i, stored[f"s{i}"], TURNS)


def test_a_session_waiting_for_the_database_does_not_stall_the_others(durable: Backend) -> None:
    """Another process holds the write lock for 2.5 s: every save waits (and succeeds) on a worker thread,
    and the event loop goes on meanwhile: other sessions reach their own saves while the first one waits.
    A save made on the loop would hold every session until the lock was released: one save at a time.
    (What is counted is saves in progress together, not the loop's pauses: a loaded machine stretches
    the sessions' own work on the loop by seconds.)"""
    store = durable.open()
    entered: list[tuple[float, int]] = []  # (when, on which thread) each save began
    save = store.save

    def recording_save(session_id: str, record: Any) -> None:
        entered.append((time.monotonic(), threading.get_ident()))
        save(session_id, record)

    store.save = recording_save
    models = {i: PacedModel(script(i), seed=i) for i in range(SESSIONS)}
    harness = make_harness(store, models)
    start_sessions(harness, list(range(SESSIONS)))
    entered.clear()  # the state set before the first prompt is saved here, on this thread
    holder = durable.hold_write_lock(2.5)
    try:
        answers = asyncio.run(run_sessions(harness, list(range(SESSIONS)), 0))
        assert holder.stdout is not None
        said = holder.stdout.readline()
        assert said.startswith("released "), f"the lock holder said {said!r}"
        released = float(said.split()[1])
    finally:
        holder.communicate(timeout=60)
    assert holder.returncode == 0
    assert answers == [f"answer {i}.0" for i in range(SESSIONS)]
    assert len(entered) == SESSIONS
    assert threading.get_ident() not in {thread for _, thread in entered}, "a save ran on the event loop's thread"
    waiting = [when for when, _ in entered if when < released]
    assert len(waiting) >= 2, f"{len(waiting)} save(s) began while the lock was held: the loop stood still"
    stored = stored_sessions(durable)
    for i in range(SESSIONS):
        assert_conversation(i, stored[f"s{i}"], 1)


def test_four_processes_of_fifty_sessions_share_one_store(durable: Backend) -> None:
    """Each worker has fifty sessions of its own, and every round also prompts one session all four
    share, prompting again on a conflict: the shared session ends with every worker's every turn."""
    procs = [worker(durable.location, f"w{n}", n * SESSIONS, SESSIONS, TURNS) for n in range(4)]
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        assert "locked" not in err
    stored = stored_sessions(durable)
    assert len(stored) == 4 * SESSIONS + 1
    for i in range(4 * SESSIONS):
        assert_conversation(i, stored[f"s{i}"], TURNS)
    landed = assert_whole_turns(stored["shared"]["messages"])
    assert sorted(landed) == sorted(f"w{n}.{turn}" for n in range(4) for turn in range(TURNS))


@pytest.mark.parametrize("after_turns", [1, 2])
def test_a_process_killed_among_fifty_sessions_leaves_a_store_that_opens_and_sessions_that_resume(
    durable: Backend, after_turns: int
) -> None:
    proc = worker(durable.location, "w0", 0, SESSIONS, 100)  # killed long before the 100th round
    assert proc.stdout is not None
    for _ in range(after_turns):
        assert proc.stdout.readline().startswith("turn")
    time.sleep(0.05)  # into the next round: sessions mid-turn, writes in flight
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    if durable.name == "sqlite":
        assert durable.sql("PRAGMA integrity_check") == [("ok",)]
    stored = stored_sessions(durable)
    done = {i: len(stored[f"s{i}"]["messages"]) // 5 for i in range(SESSIONS)}
    assert min(done.values()) >= after_turns and max(done.values()) - min(done.values()) <= 1, done  # in lockstep
    for i, turns in done.items():
        assert_conversation(i, stored[f"s{i}"], turns)  # whole turns only: nothing half-written
    assert_whole_turns(stored["shared"]["messages"])
    # Every session resumes in a new process and finishes its script from where it stopped.
    resume = textwrap.dedent(
        f"""
        import asyncio, json, sys
        sys.path.insert(0, {str(HERE)!r})
        from store_support import PacedModel, make_harness, script
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
        [sys.executable, "-c", resume, durable.location, json.dumps(done)], capture_output=True, text=True, timeout=300
    )
    assert resumed.returncode == 0, resumed.stderr
    stored = stored_sessions(durable)
    for i in range(SESSIONS):
        assert_conversation(i, stored[f"s{i}"], done[i] + 2)


# --- one session, two workers ----------------------------------------------------------------


def test_two_workers_prompting_one_session_at_once_lose_neither_turn(backend: Backend) -> None:
    """Both start from the same stored turn; the first to finish is saved; the second's save finds a
    newer version, writes nothing and says so; prompted again, it runs on the fresh state."""
    first = echo_harness(backend.open(), EchoModel(seed=0))
    first.session("case").prompt_sync("hello")
    slow_model = GatedModel()
    slow, fast = echo_harness(backend.open(), slow_model), echo_harness(backend.open(), EchoModel(seed=1))

    async def race() -> BaseException | None:
        running = asyncio.create_task(slow.session("case").prompt("from the slow worker"))
        await slow_model.asked.wait()  # the slow worker loaded the session and is waiting for its model
        await fast.session("case").prompt("from the fast worker")
        slow_model.gate.set()
        try:
            await running
        except SessionConflictError as exc:
            return exc
        return None

    error = asyncio.run(race())
    assert isinstance(error, SessionConflictError)
    assert "'case' was saved by another worker while this turn ran" in str(error)
    assert "the store holds version 2, this turn started from version 1" in str(error)
    assert "this turn was not saved. Prompt again" in str(error)
    assert assert_whole_turns(stored_sessions(backend)["case"]["messages"]) == ["hello", "from the fast worker"]

    slow_model.gate.set()
    again = slow.session("case")
    again.prompt_sync("from the slow worker")  # prompted again: on the fresh state
    assert assert_whole_turns(stored_sessions(backend)["case"]["messages"]) == [
        "hello",
        "from the fast worker",
        "from the slow worker",
    ]


def test_a_session_object_sees_turns_another_worker_added_since(backend: Backend) -> None:
    """A worker keeps a Session object across prompts; another worker prompts that session in
    between. The next prompt starts from the stored conversation, the other turn included."""
    one = echo_harness(backend.open(), EchoModel(seed=0)).session("case")
    two = echo_harness(backend.open(), EchoModel(seed=1)).session("case")
    one.prompt_sync("first, on one")
    two.prompt_sync("second, on two")
    one.prompt_sync("third, on one")
    assert [m["content"] for m in one.messages[::2]] == ["first, on one", "second, on two", "third, on one"]
    assert assert_whole_turns(stored_sessions(backend)["case"]["messages"]) == [
        "first, on one",
        "second, on two",
        "third, on one",
    ]


def test_set_state_lands_on_the_stored_session_and_keeps_the_other_workers_turn(backend: Backend) -> None:
    one = echo_harness(backend.open(), EchoModel(seed=0)).session("case")
    two = echo_harness(backend.open(), EchoModel(seed=1)).session("case")
    one.set_state("tier", "gold")
    assert two.state == {"tier": "gold"}
    one.prompt_sync("a turn on one")
    two.set_state("vip", True)  # two's copy predates one's turn: the state is set on the stored session
    [stored] = stored_sessions(backend).values()
    assert stored["state"] == {"tier": "gold", "vip": True}
    assert assert_whole_turns(stored["messages"]) == ["a turn on one"]


def test_state_set_by_a_tool_mid_prompt_is_saved_with_the_turn(backend: Backend) -> None:
    store = backend.open()
    holder: list[Any] = []

    def upgrade(tier: str) -> str:
        """Upgrade the customer to a tier."""
        holder[0].set_state("tier", tier)
        return f"now {tier}"

    from flue_runtime.models import ToolCall

    model = ScriptedModel([[ToolCall("upgrade", {"tier": "gold"})], "Upgraded."])

    @agent
    def support() -> str:
        use_model(model)
        use_tool(upgrade)
        return "Answer support questions."

    session = Harness(support, store=store).session("case")
    holder.append(session)
    assert session.prompt_sync("upgrade me").text == "Upgraded."
    [stored] = stored_sessions(backend).values()
    assert stored["state"] == {"tier": "gold"}
    assert [m["role"] for m in stored["messages"]] == ["user", "assistant", "tool", "assistant"]
