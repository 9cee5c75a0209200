"""The store contract itself, one body per rule, over every store: records round-trip exactly, a save
lands whole and only on the version it was loaded at, a load is one snapshot, a writer killed
mid-save leaves the last whole save, a lock held too long is a clear `StoreError`, and the
schema is created on first use and carries its version."""

from __future__ import annotations

import importlib
import os
import signal
import subprocess
import sys
import time

import pytest
from store_backends import Backend

from flue_runtime.agents.stores.contract import SessionRecord
from flue_runtime.errors import SessionConflictError, StoreError

pytestmark = pytest.mark.slow  # a PostgreSQL server, and processes killed mid-write

AWKWARD = [
    {"role": "user", "content": "é ✓ 😀 \x00 nul, \ud800 a lone surrogate, \r\n and 'quotes' \"too\""},
    {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "t", "arguments": {"n": 1.5}}]},
    {"role": "tool", "tool_call_id": "c1", "name": "t", "content": "x" * 70_000, "is_error": False},
]


def test_a_record_round_trips_exactly_and_each_save_moves_its_version_on(backend: Backend) -> None:
    store = backend.open()
    assert store.load("nope") is None
    record = SessionRecord("sys ✓", list(AWKWARD[:1]), {"k": [1, {"deep": None}], "é": True}, [("a", "b")])
    store.save("x", record)
    assert record.version == 1
    record.messages += AWKWARD[1:]
    record.state = {"k": 3}
    record.announced = []
    store.save("x", record)
    assert record.version == 2
    again = backend.open().load("x")
    assert again == SessionRecord("sys ✓", AWKWARD, {"k": 3}, [])
    assert again is not None and again.version == 2
    assert store.session_ids() == ["x"]


def test_what_the_model_was_told_round_trips(backend: Backend) -> None:
    """The harness's record of what it told the model: the catalog, the instructions, the tools offered; and the
    session's own skill switches."""
    record = SessionRecord(
        "sys",
        [],
        {},
        [("a", "b")],
        instructions="Be brief ✓ \ud800",
        tools=["activate_skill", "ls"],
        skill_switches={"vip": False, "beta": True},
    )
    backend.open().save("x", record)
    again = backend.open().load("x")
    assert again == record and again is not None
    assert (again.instructions, again.tools, again.announced, again.skill_switches) == (
        "Be brief ✓ \ud800",
        ["activate_skill", "ls"],
        [("a", "b")],
        {"vip": False, "beta": True},
    )


def test_a_save_from_an_old_version_is_refused_and_writes_nothing(backend: Backend) -> None:
    store, other = backend.open(), backend.open()
    store.save("x", SessionRecord("sys", [{"role": "user", "content": "hello"}]))
    mine, theirs = store.load("x"), other.load("x")
    assert mine is not None and theirs is not None and mine.version == theirs.version == 1
    theirs.messages.append({"role": "assistant", "content": "their turn"})
    other.save("x", theirs)
    mine.messages.append({"role": "assistant", "content": "my turn"})
    mine.state["mine"] = True
    with pytest.raises(SessionConflictError, match=r"the store holds version 2, this turn started from version 1"):
        store.save("x", mine)
    assert mine.version == 1  # not moved on: nothing was saved
    assert store.load("x") == SessionRecord("sys", [{"role": "user", "content": "hello"}, theirs.messages[1]])


def test_two_workers_creating_one_session_the_second_is_refused(backend: Backend) -> None:
    one, two = backend.open(), backend.open()
    one.save("new", SessionRecord("sys", [{"role": "user", "content": "one"}]))
    with pytest.raises(SessionConflictError, match=r"'new' was saved by another worker"):
        two.save("new", SessionRecord("sys", [{"role": "user", "content": "two"}]))
    assert two.load("new") == SessionRecord("sys", [{"role": "user", "content": "one"}])


def test_a_save_that_changes_earlier_messages_replaces_them(backend: Backend) -> None:
    """A turn only appends, but the contract is a whole replacement: a shorter or edited history too."""
    store = backend.open()
    record = SessionRecord("sys", [{"role": "user", "content": c} for c in "abcd"])
    store.save("x", record)
    record.messages = [{"role": "user", "content": c} for c in "aXc"]
    store.save("x", record)
    assert store.load("x") == SessionRecord("sys", [{"role": "user", "content": c} for c in "aXc"])
    record.messages = []
    store.save("x", record)
    assert store.load("x") == SessionRecord("sys", [])


FLIPPER = """
import sys, time
from flue_runtime.agents.stores import open_store
from flue_runtime.agents.stores.contract import SessionRecord
store = open_store(sys.argv[1])
records = [SessionRecord("sys", [{"role": "user", "content": v}] * n, {"v": v}) for v, n in (("a", 2), ("b", 6))]
store.save("x", records[0])
version = records[0].version
print("ready", flush=True)
deadline = time.monotonic() + float(sys.argv[2])
flips = 0
while time.monotonic() < deadline:
    record = records[flips % 2]
    record.version = version
    store.save("x", record)
    version = record.version
    flips += 1
print(flips, flush=True)
"""


def test_a_load_never_mixes_two_saves(durable: Backend) -> None:
    """Another process replaces a session as fast as it can; every load is one whole record."""
    store = durable.open()
    writer = subprocess.Popen([sys.executable, "-c", FLIPPER, durable.location, "2"], stdout=subprocess.PIPE, text=True)
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
    flips = int(writer.communicate(timeout=60)[0].strip())
    assert flips > 100 and loads > 100, (flips, loads)
    assert torn == []


WRITER = """
import sys
from flue_runtime.agents.stores import open_store
from flue_runtime.agents.stores.contract import SessionRecord
store = open_store(sys.argv[1])
record = SessionRecord("system", [], {}, [("refunds", "d")])
for turn in range(100000):
    record.messages += [{"role": "user", "content": f"q{turn} " + "x" * 2000}, {"role": "assistant", "content": f"a{turn}"}]
    record.state = {"turn": turn}
    store.save("s", record)
    print(turn, flush=True)
"""


@pytest.mark.parametrize("delay", [0.05, 0.2, 0.5])
def test_killed_mid_write_leaves_the_last_whole_save(durable: Backend, delay: float) -> None:
    proc = subprocess.Popen([sys.executable, "-c", WRITER, durable.location], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    proc.stdout.readline()  # at least one turn committed
    time.sleep(delay)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    if durable.name == "sqlite":
        assert durable.sql("PRAGMA integrity_check") == [("ok",)]
    record = durable.open().load("s")
    assert record is not None
    turn = record.state["turn"]
    assert len(record.messages) == 2 * (turn + 1)
    assert record.messages[-1] == {"role": "assistant", "content": f"a{turn}"}
    assert record.version == turn + 1


def test_a_lock_held_past_the_busy_timeout_is_a_clear_store_error(durable: Backend) -> None:
    store = durable.open(busy_timeout=0.3)
    holder = durable.hold_write_lock(1.5)
    try:
        started = time.monotonic()
        with pytest.raises(StoreError, match=r"stayed locked by another connection for over 0.3 s"):
            store.save("s", SessionRecord("sys", [{"role": "user", "content": "hi"}]))
        assert time.monotonic() - started < 1.2  # it gave up after its timeout, not after the holder
    finally:
        holder.communicate(timeout=60)
    record = SessionRecord("sys", [{"role": "user", "content": "hi"}])
    store.save("s", record)  # and works once the lock is gone
    assert store.load("s") == record


def test_the_schema_is_created_on_first_use_and_a_newer_one_is_refused(durable: Backend) -> None:
    durable.open()
    module = "sqlite" if durable.name == "sqlite" else "postgres"  # postgres imports only with psycopg
    current = importlib.import_module(f"flue_runtime.agents.stores.{module}").SCHEMA_VERSION
    assert durable.sql("SELECT value FROM flue_meta WHERE key = 'schema_version'") == [(str(current),)]
    durable.open()  # opening again changes nothing
    assert durable.sql("SELECT value FROM flue_meta WHERE key = 'schema_version'") == [(str(current),)]
    durable.sql(f"UPDATE flue_meta SET value = '{current + 1}' WHERE key = 'schema_version'")
    with pytest.raises(
        StoreError,
        match=rf"has schema version {current + 1}, newer than this flue_runtime knows \({current}\); upgrade flue-skills",
    ):
        durable.open()
