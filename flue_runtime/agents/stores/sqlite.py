"""Durable sessions in SQLite (the standard library's sqlite3).

A turn is saved in one transaction: the session row and the turn's new messages land
together or not at all, so a process killed mid-turn leaves the session as it was after
its last complete turn; and only if the session is still at the version the turn started
from (`SessionConflictError` otherwise). WAL mode and a busy timeout let many sessions (and
processes) share one file without `database is locked` reaching the user.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from flue_runtime.agents.provenance import Turn
from flue_runtime.agents.stores.contract import SessionRecord, check_session_id, conflict, locked_too_long
from flue_runtime.agents.stores.encoding import EncodedRecord, decode, decode_turns, kept_prefix
from flue_runtime.agents.stores.migrations import pending
from flue_runtime.errors import StoreError

__all__ = ["SCHEMA_VERSION", "SQLiteStore"]


T = TypeVar("T")

_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (  # 1: sessions and their messages
        """CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            system_prompt TEXT NOT NULL,
            state TEXT NOT NULL,
            announced TEXT NOT NULL,
            message_count INTEGER NOT NULL,
            updated_at REAL NOT NULL
        )""",
        """CREATE TABLE messages (
            session_id TEXT NOT NULL REFERENCES sessions(id),
            seq INTEGER NOT NULL,
            body TEXT NOT NULL,
            PRIMARY KEY (session_id, seq)
        )""",
    ),
    (  # 2: a version per session, so a save can tell that another worker's turn landed first
        "ALTER TABLE sessions ADD COLUMN version INTEGER NOT NULL DEFAULT 1",
    ),
    # 3: `announced` may hold an object (the catalog, the instructions, the tools offered: see
    # encoding.py); no table changes, but an older release must not read such a row
    (),
    # 4: `announced` may hold the session's skill switches (encoding.py); no table changes, but an older
    # release would drop them at its next save, turning a disabled skill back on
    (),
    (  # 5: each model turn's provenance (encoding.py), appended by the save that brings it
        """CREATE TABLE turns (
            session_id TEXT NOT NULL REFERENCES sessions(id),
            seq INTEGER NOT NULL,
            body TEXT NOT NULL,
            PRIMARY KEY (session_id, seq)
        )""",
    ),
)
SCHEMA_VERSION = len(_MIGRATIONS)

#: sqlite's primary result codes for "another connection holds the lock": SQLITE_BUSY between
#: connections, SQLITE_LOCKED (a table or the schema) within one.
_BUSY_CODES = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})


def is_busy(exc: sqlite3.OperationalError) -> bool:
    """Whether `exc` is a lock held elsewhere, worth waiting out, by sqlite's result code: its message is
    words for people (and an error about a table called `locked` would match them)."""
    # Extended codes (SQLITE_BUSY_SNAPSHOT, SQLITE_LOCKED_SHAREDCACHE, ...) keep the primary code in the low
    # byte; an error the sqlite3 module raises itself carries no code.
    code: int | None = getattr(exc, "sqlite_errorcode", None)
    return code is not None and (code & 0xFF) in _BUSY_CODES


class SQLiteStore:
    """Sessions in a SQLite file; safe to share between threads, tasks and processes."""

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout: float = 30.0) -> None:
        self.path = Path(path)
        self.busy_timeout = busy_timeout
        self._local = threading.local()
        try:
            self._retry(self._migrate)
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

    def _schema_version(self) -> int:
        found = self._connection().execute("SELECT value FROM flue_meta WHERE key = 'schema_version'").fetchone()
        return int(found[0]) if found is not None else 0

    def _migrate(self) -> None:
        """Create the tables on first use, or bring an older file up to this release's schema."""
        connection = self._connection()
        connection.execute("CREATE TABLE IF NOT EXISTS flue_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        if self._schema_version() == SCHEMA_VERSION:
            return
        connection.execute("BEGIN IMMEDIATE")  # one process migrates; the others then find it done
        try:
            for step in pending(str(self.path), self._schema_version(), _MIGRATIONS):
                for statement in step:
                    connection.execute(statement)
            connection.execute(
                "INSERT INTO flue_meta VALUES ('schema_version', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (str(SCHEMA_VERSION),),
            )
            connection.execute("COMMIT")
        except BaseException:
            connection.execute("ROLLBACK")
            raise

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
                if not is_busy(exc):
                    raise
                if time.monotonic() > deadline:
                    raise locked_too_long(str(self.path), self.busy_timeout, "SQLiteStore") from exc
                time.sleep(delay)
                delay = min(delay * 2, 0.5)

    def load(self, session_id: str) -> SessionRecord | None:
        check_session_id(session_id)

        def read() -> SessionRecord | None:
            connection = self._connection()
            connection.execute("BEGIN")  # one snapshot for both reads: a save in between cannot tear them
            try:
                row = connection.execute(
                    "SELECT system_prompt, state, announced, message_count, version FROM sessions WHERE id = ?",
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
            system_prompt, state, announced, _, version = row
            return decode(system_prompt, state, announced, (body for (body,) in bodies), version)

        return self._retry(read)

    def save(self, session_id: str, record: SessionRecord) -> None:
        check_session_id(session_id)
        encoded = EncodedRecord.of(record)
        bodies = encoded.bodies

        def write() -> int:
            connection = self._connection()
            connection.execute("BEGIN IMMEDIATE")
            try:
                row = connection.execute("SELECT version FROM sessions WHERE id = ?", (session_id,)).fetchone()
                found = row[0] if row is not None else 0
                if found != record.version:
                    raise conflict(session_id, record.version, found)
                # Keep the stored messages this record starts with (a turn only appends); rewrite the rest.
                kept = kept_prefix(
                    (
                        body
                        for (body,) in connection.execute(
                            "SELECT body FROM messages WHERE session_id = ? AND seq < ? ORDER BY seq",
                            (session_id, len(bodies)),
                        )
                    ),
                    bodies,
                )
                connection.execute(
                    "INSERT INTO sessions (id, system_prompt, state, announced, message_count, updated_at, version) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
                    "system_prompt = excluded.system_prompt, state = excluded.state, announced = excluded.announced, "
                    "message_count = excluded.message_count, updated_at = excluded.updated_at, version = excluded.version",
                    (
                        session_id,
                        encoded.system_prompt,
                        encoded.state,
                        encoded.announced,
                        len(bodies),
                        time.time(),
                        found + 1,
                    ),
                )
                connection.execute("DELETE FROM messages WHERE session_id = ? AND seq >= ?", (session_id, kept))
                connection.executemany(
                    "INSERT INTO messages VALUES (?, ?, ?)",
                    [(session_id, seq, body) for seq, body in enumerate(bodies) if seq >= kept],
                )
                if encoded.turns:
                    (first,) = connection.execute(
                        "SELECT COALESCE(MAX(seq) + 1, 0) FROM turns WHERE session_id = ?", (session_id,)
                    ).fetchone()
                    connection.executemany(
                        "INSERT INTO turns VALUES (?, ?, ?)",
                        [(session_id, first + seq, body) for seq, body in enumerate(encoded.turns)],
                    )
                connection.execute("COMMIT")
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            return int(found) + 1

        record.version = self._retry(write)
        record.turns = []

    def turns(self, session_id: str) -> list[Turn]:
        check_session_id(session_id)
        rows: list[Any] = self._retry(
            lambda: (
                self._connection()
                .execute("SELECT body FROM turns WHERE session_id = ? ORDER BY seq", (session_id,))
                .fetchall()
            )
        )
        return decode_turns(body for (body,) in rows)

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
