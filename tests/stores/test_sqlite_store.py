"""What only the SQLite store has: files written by an earlier release, brought up to date on first use."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from flue_runtime.agents.stores import SessionRecord, open_store
from flue_runtime.agents.stores.sqlite import SCHEMA_VERSION

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
