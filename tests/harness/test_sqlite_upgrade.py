"""A session store written before the session kept its told instructions and offered tools (schema
version 1) opens, upgrades in place, and its sessions resume without a spurious announcement."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from flue_runtime import Harness, agent, use_model
from flue_runtime.agents.stores.sqlite import SCHEMA_VERSION, SQLiteStore
from flue_runtime.models import ScriptedModel

VERSION_1 = """
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
"""


def test_a_version_1_store_is_upgraded_and_resumes(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    with sqlite3.connect(db) as connection:
        connection.executescript(VERSION_1)
        messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
        connection.execute("INSERT INTO sessions VALUES ('s', 'Help.\n', '{}', '[]', 2, 0)")
        connection.executemany(
            "INSERT INTO messages VALUES ('s', ?, ?)", [(i, json.dumps(m)) for i, m in enumerate(messages)]
        )
    record = SQLiteStore(db).load("s")
    assert record is not None and record.instructions is None and record.tools == [] and record.messages == messages
    model = ScriptedModel(["again"])

    @agent
    def a() -> str:
        use_model(model)
        return "Help."

    Harness(a, store=db).session("s").prompt_sync("still there?")
    assert model.requests[0].messages == [*messages, {"role": "user", "content": "still there?"}]
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT value FROM flue_meta").fetchone() == (str(SCHEMA_VERSION),)
        assert connection.execute("SELECT instructions, tools FROM sessions").fetchone() == ("Help.", "[]")
