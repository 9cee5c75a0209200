"""What only the SQLite store has: files written by an earlier release, brought up to date on first use."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from flue_runtime.agents.stores import open_store
from flue_runtime.agents.stores.contract import SessionRecord
from flue_runtime.agents.stores.sqlite import SCHEMA_VERSION, SQLiteStore, is_busy
from flue_runtime.errors import StoreError

#: The schema the first release wrote (version 1: no per-session version yet), and a session in it.
RELEASE_1 = """
CREATE TABLE flue_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, system_prompt TEXT NOT NULL, state TEXT NOT NULL, announced TEXT NOT NULL,
    message_count INTEGER NOT NULL, updated_at REAL NOT NULL
);
CREATE TABLE messages (
    session_id TEXT NOT NULL REFERENCES sessions(id), seq INTEGER NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
);
INSERT INTO flue_meta VALUES ('schema_version', '1');
INSERT INTO sessions VALUES ('case-42', 'sys', '{"vip": true}', '[["refunds", "Handle refunds."]]', 2, 0);
INSERT INTO messages VALUES ('case-42', 0, '{"content": "é", "role": "user"}');
INSERT INTO messages VALUES ('case-42', 1, '{"content": "ok", "role": "assistant"}');
"""


def test_a_file_from_the_first_release_is_migrated_and_its_sessions_go_on(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    with closing(sqlite3.connect(db)) as raw:
        raw.executescript(RELEASE_1)
    store = open_store(db)
    with closing(sqlite3.connect(db)) as raw:
        assert raw.execute("SELECT value FROM flue_meta").fetchall() == [(str(SCHEMA_VERSION),)]
    record = store.load("case-42")
    expected = SessionRecord(
        "sys",
        [{"role": "user", "content": "é"}, {"role": "assistant", "content": "ok"}],
        {"vip": True},
        [("refunds", "Handle refunds.")],
    )
    assert record == expected and record is not None and record.version == 1
    record.messages.append({"role": "user", "content": "next"})
    store.save("case-42", record)
    assert open_store(db).load("case-42") == record and record.version == 2


def test_a_lock_another_connection_holds_is_waited_out_by_its_result_code(tmp_path: Path) -> None:
    """Two connections to one file, one holding a write transaction: the store's save meets SQLITE_BUSY,
    waits it out for `busy_timeout`, then says the store stayed locked (sqlite's own error its cause)."""
    db = tmp_path / "sessions.db"
    store = SQLiteStore(db, busy_timeout=0.3)
    with closing(sqlite3.connect(db, isolation_level=None)) as other:
        other.execute("BEGIN IMMEDIATE")  # another worker in the middle of a write
        with pytest.raises(StoreError, match="stayed locked by another connection for over 0.3 s") as caught:
            store.save("s", SessionRecord("sys", [], {}, []))
        cause = caught.value.__cause__
        assert isinstance(cause, sqlite3.OperationalError) and cause.sqlite_errorname == "SQLITE_BUSY"
        assert is_busy(cause)
        other.execute("COMMIT")
    store.save("s", SessionRecord("sys", [], {}, []))  # and the lock gone, the same save lands
    assert store.session_ids() == ["s"]


def test_an_error_whose_words_say_locked_is_not_waited_out_as_a_lock(tmp_path: Path) -> None:
    """A store file with a trigger writing to a table since dropped, `locked_audit`: every save fails
    with sqlite's "no such table: main.locked_audit". That is no lock (SQLITE_ERROR), so it is raised
    at once as it is, not retried for `busy_timeout` and reported as a store that stayed locked."""
    db = tmp_path / "sessions.db"
    SQLiteStore(db)  # the tables
    with closing(sqlite3.connect(db, isolation_level=None)) as raw:
        raw.execute("CREATE TABLE locked_audit (id TEXT)")
        raw.execute("CREATE TRIGGER audit AFTER INSERT ON sessions BEGIN INSERT INTO locked_audit VALUES (new.id); END")
        raw.execute("DROP TABLE locked_audit")
    store = SQLiteStore(db, busy_timeout=0.3)
    with pytest.raises(sqlite3.OperationalError, match="no such table: main.locked_audit") as caught:
        store.save("s", SessionRecord("sys", [], {}, []))
    assert caught.value.sqlite_errorname == "SQLITE_ERROR" and not is_busy(caught.value)
