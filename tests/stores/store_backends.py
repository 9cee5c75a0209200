"""The kinds of store a contract test runs over, each opened as a worker would open it."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from contextlib import closing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from flue_runtime.agents.stores.contract import Store
from flue_runtime.agents.stores.sqlite import SQLiteStore

if TYPE_CHECKING:
    from postgres_server import PostgresServer

SQLITE_LOCK_HOLDER = """
import sqlite3, sys, time
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("BEGIN IMMEDIATE")  # another worker in the middle of a long write
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
connection.execute("COMMIT")
print("released", time.monotonic(), flush=True)
"""

POSTGRES_LOCK_HOLDER = """
import psycopg, sys, time
with psycopg.connect(sys.argv[1]) as connection:
    # Another worker in the middle of a long write: every save waits, loads go on.
    connection.execute("LOCK TABLE flue_sessions IN EXCLUSIVE MODE")
    print("locked", flush=True)
    time.sleep(float(sys.argv[2]))
print("released", time.monotonic(), flush=True)  # the transaction ended with the block
"""


@dataclass
class Backend:
    """One kind of store for a test: where it is, and how to open it as a worker would."""

    name: str
    #: What `Harness(store=...)` and `open_store` take: a path, a URL, or (memory) the shared store.
    location: Any
    server: PostgresServer | None = None
    opened: list[Store] = field(default_factory=list)

    def open(self, **options: Any) -> Any:
        """A store object of this kind (a new connection or pool: another worker's view)."""
        store: Any
        if self.name == "memory":
            store = self.location
        elif self.name == "sqlite":
            store = SQLiteStore(self.location, **options)
        else:
            from flue_runtime.agents.stores.postgres import PostgresStore  # needs psycopg: only here

            store = PostgresStore(self.location, **options)
        self.opened.append(store)
        return store

    def hold_write_lock(self, seconds: float) -> subprocess.Popen[str]:
        """Another process holding the store's write lock for `seconds`; returns once it holds it. Its next line
        of output, `released <time.monotonic()>`, says when it let go (the clock is the system's, shared)."""
        self.open()  # the tables exist before anyone locks them
        source = SQLITE_LOCK_HOLDER if self.name == "sqlite" else POSTGRES_LOCK_HOLDER
        holder = subprocess.Popen(
            [sys.executable, "-c", source, str(self.location), str(seconds)], stdout=subprocess.PIPE, text=True
        )
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        return holder

    def sql(self, statement: str) -> list[tuple[Any, ...]]:
        """Run one statement on the store's database directly, as its owner; the rows it returned."""
        if self.name == "sqlite":
            with closing(sqlite3.connect(self.location, isolation_level=None)) as raw:
                return list(raw.execute(statement).fetchall())
        import psycopg

        with psycopg.connect(self.location, autocommit=True) as connection:
            cursor = connection.execute(statement.encode())
            return list(cursor.fetchall()) if cursor.description else []

    def close(self) -> None:
        for store in self.opened:
            store.close()  # type: ignore[attr-defined]
