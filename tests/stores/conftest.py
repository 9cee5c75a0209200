"""The stores under one contract: each test body runs over every store it applies to.

`backend` is the memory, SQLite and PostgreSQL stores (for tests inside one process);
`durable` only SQLite and PostgreSQL (for tests across processes). PostgreSQL is a real
server the session starts on first need (`postgres`) and stops at the end; each test gets
a new database of its own.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from store_backends import Backend
from support import slow
from support.optional import need

from flue_runtime.agents.stores.contract import MemoryStore

if TYPE_CHECKING:
    from postgres_server import PostgresServer

_databases = itertools.count()


@pytest.fixture(scope="session")
@slow.builds
def postgres() -> Iterator[PostgresServer]:
    need("psycopg", "postgres")  # the SQLite and memory stores' tests run without it
    from postgres_server import PostgresServer

    server = PostgresServer()
    try:
        server.start()
        server.create_role()
        yield server
    finally:
        server.remove()


def make_backend(name: str, request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    if name == "memory":
        return Backend(name, MemoryStore())
    if name == "sqlite":
        return Backend(name, str(tmp_path / "sessions.db"))
    server: PostgresServer = request.getfixturevalue("postgres")
    return Backend(name, server.create_database(f"test_{next(_databases)}"), server)


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    made = make_backend(request.param, request, tmp_path)
    yield made
    made.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def durable(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    made = make_backend(request.param, request, tmp_path)
    yield made
    made.close()


@pytest.fixture
def pg(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    """The PostgreSQL store alone, for what only it has."""
    made = make_backend("postgresql", request, tmp_path)
    yield made
    made.close()
