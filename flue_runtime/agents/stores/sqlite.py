"""Durable sessions in SQLite (the standard library's sqlite3).

A turn is saved in one transaction: the session row and the turn's new messages land
together or not at all, so a process killed mid-turn leaves the session as it was after
its last complete turn. WAL mode and a busy timeout let many sessions (and processes)
share one file without `database is locked` reaching the user.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from flue_runtime.agents.stores import SessionRecord
from flue_runtime.errors import StoreError

T = TypeVar("T")

SCHEMA_VERSION = 2
_SCHEMA = """
CREATE TABLE IF NOT EXISTS flue_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    system_prompt TEXT NOT NULL,
    state TEXT NOT NULL,
    announced TEXT NOT NULL,
    message_count INTEGER NOT NULL,
    updated_at REAL NOT NULL,
    instructions TEXT,
    tools TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE IF NOT EXISTS messages (
    session_id TEXT NOT NULL REFERENCES sessions(id),
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
);
"""


class SQLiteStore:
    """Sessions in a SQLite file; safe to share between threads, tasks and processes."""

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout: float = 30.0) -> None:
        self.path = Path(path)
        self.busy_timeout = busy_timeout
        self._local = threading.local()
        try:
            self._retry(self._create)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open session store {self.path}: {exc}") from exc

    def _connection(self) -> sqlite3.Connection:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = sqlite3.connect(self.path, timeout=self.busy_timeout, isolation_level=None)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            connection.execute("PRAGMA foreign_keys=ON")
            self._local.connection = connection
        return connection

    def _create(self) -> None:
        connection = self._connection()
        connection.executescript(_SCHEMA)
        found = connection.execute("SELECT value FROM flue_meta WHERE key = 'schema_version'").fetchone()
        if found is not None and found[0] == "1":  # version 2 added two columns to sessions
            connection.execute("BEGIN IMMEDIATE")
            try:
                columns = {row[1] for row in connection.execute("PRAGMA table_info(sessions)")}
                if "instructions" not in columns:
                    connection.execute("ALTER TABLE sessions ADD COLUMN instructions TEXT")
                    connection.execute("ALTER TABLE sessions ADD COLUMN tools TEXT NOT NULL DEFAULT '[]'")
                connection.execute(
                    "UPDATE flue_meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),)
                )
                connection.execute("COMMIT")
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            found = (str(SCHEMA_VERSION),)
        if found is None:
            connection.execute("INSERT OR IGNORE INTO flue_meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        elif found[0] != str(SCHEMA_VERSION):
            raise StoreError(
                f"session store {self.path} has schema version {found[0]}; this flue_runtime uses {SCHEMA_VERSION}"
            )

    def _retry(self, action: Callable[[], T]) -> T:
        """Run `action`, waiting out locks beyond sqlite's own busy timeout (e.g. WAL recovery).

        A lock held longer than `busy_timeout` raises `StoreError` saying so, never sqlite's bare
        "database is locked"."""
        deadline = time.monotonic() + self.busy_timeout
        delay = 0.01
        while True:
            try:
                return action()
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise
                if time.monotonic() > deadline:
                    raise StoreError(
                        f"session store {self.path} stayed locked by another connection for over {self.busy_timeout:g} s "
                        "(a process stuck in a write?); nothing was changed, try again, or give SQLiteStore a longer busy_timeout"
                    ) from exc
                time.sleep(delay)
                delay = min(delay * 2, 0.5)

    def load(self, session_id: str) -> SessionRecord | None:
        def read() -> SessionRecord | None:
            connection = self._connection()
            connection.execute("BEGIN")  # one snapshot for both reads: a save in between cannot tear them
            try:
                row = connection.execute(
                    "SELECT system_prompt, state, announced, message_count, instructions, tools FROM sessions WHERE id = ?",
                    (session_id,),
                ).fetchone()
                bodies = (
                    []
                    if row is None
                    else connection.execute(
                        "SELECT body FROM messages WHERE session_id = ? AND seq < ? ORDER BY seq", (session_id, row[3])
                    ).fetchall()
                )
            finally:
                connection.execute("ROLLBACK")
            if row is None:
                return None
            system_prompt, state, announced, _, instructions, tools = row
            return SessionRecord(
                system_prompt,
                [json.loads(body) for (body,) in bodies],
                json.loads(state),
                [(name, description) for name, description in json.loads(announced)],
                instructions,
                json.loads(tools),
            )

        return self._retry(read)

    def save(self, session_id: str, record: SessionRecord) -> None:
        state = json.dumps(record.state, ensure_ascii=False, sort_keys=True)
        announced = json.dumps([list(entry) for entry in record.announced], ensure_ascii=False)
        tools = json.dumps(record.tools)
        bodies = [json.dumps(message, ensure_ascii=False, sort_keys=True) for message in record.messages]

        def write() -> None:
            connection = self._connection()
            connection.execute("BEGIN IMMEDIATE")
            try:
                # Keep the stored messages this record starts with; rewrite from the first that differs
                # (usually none: a turn only appends; another process's turn in between: its messages go).
                kept = 0
                for (stored_body,) in connection.execute(
                    "SELECT body FROM messages WHERE session_id = ? AND seq < ? ORDER BY seq", (session_id, len(bodies))
                ):
                    if stored_body != bodies[kept]:
                        break
                    kept += 1
                connection.execute(
                    "INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
                    "system_prompt = excluded.system_prompt, state = excluded.state, announced = excluded.announced, "
                    "message_count = excluded.message_count, updated_at = excluded.updated_at, "
                    "instructions = excluded.instructions, tools = excluded.tools",
                    (
                        session_id,
                        record.system_prompt,
                        state,
                        announced,
                        len(bodies),
                        time.time(),
                        record.instructions,
                        tools,
                    ),
                )
                connection.execute("DELETE FROM messages WHERE session_id = ? AND seq >= ?", (session_id, kept))
                connection.executemany(
                    "INSERT INTO messages VALUES (?, ?, ?)",
                    [(session_id, seq, body) for seq, body in enumerate(bodies) if seq >= kept],
                )
                connection.execute("COMMIT")
            except BaseException:
                connection.execute("ROLLBACK")
                raise

        self._retry(write)

    def close(self) -> None:
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            connection.close()
            self._local.connection = None

    def session_ids(self) -> list[str]:
        rows: list[Any] = self._retry(
            lambda: self._connection().execute("SELECT id FROM sessions ORDER BY id").fetchall()
        )
        return [row[0] for row in rows]
