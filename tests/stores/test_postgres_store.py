"""What only the PostgreSQL store has: URLs, a server to reach and roles to be allowed in, and a
server that can restart or go away while workers run. Each bad input is one clear `StoreError`
naming the problem, never the password; outages are waited out or reported, and nothing
committed is lost."""

from __future__ import annotations

import pytest
from support.optional import need

need("psycopg", "postgres")

import asyncio
import contextlib
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from postgres_server import PostgresServer
from store_backends import Backend
from store_support import (
    SESSIONS,
    GatedModel,
    assert_conversation,
    assert_whole_turns,
    echo_harness,
    read_back,
    worker,
)

from flue_runtime import Harness, agent, use_model
from flue_runtime.agents.stores import open_store
from flue_runtime.agents.stores.contract import SessionRecord
from flue_runtime.agents.stores.postgres import PostgresStore
from flue_runtime.agents.stores.sqlite import SQLiteStore
from flue_runtime.errors import SessionConflictError, StoreError
from flue_runtime.models import ScriptedModel

pytestmark = pytest.mark.slow  # a PostgreSQL server of its own, stopped and restarted

# --- URLs --------------------------------------------------------------------------------------


def test_a_postgresql_url_opens_a_postgres_store_and_a_path_a_sqlite_one(pg: Backend, tmp_path: Path) -> None:
    @agent
    def support() -> str:
        use_model(ScriptedModel(["Hi."]))
        return "Answer."

    harness = Harness(support, store=pg.location)
    assert isinstance(harness.store, PostgresStore)
    harness.session("a").prompt_sync("hello")
    short = pg.location.replace("postgresql://", "postgres://", 1)
    other = open_store(short)
    assert isinstance(other, PostgresStore) and other.session_ids() == ["a"]
    other.close()
    harness.store.close()  # type: ignore[attr-defined]
    assert isinstance(open_store(str(tmp_path / "sessions.db")), SQLiteStore)
    with pytest.raises(StoreError, match=r"URL scheme 'mysql' is not supported: use a postgresql:// URL"):
        open_store("mysql://user@host/db")


def bad_inputs(server: PostgresServer) -> list[tuple[str, str, str]]:
    """(what, URL, the message it gets); every URL carries the server's real password somewhere."""
    secret = server.password
    port = server.port
    return [
        (
            "malformed",
            f"postgresql://flue:{secret}@[::1/flue",
            r"malformed PostgreSQL URL postgresql://flue@\[::1/flue: .*IPv6 host address.*; "
            r"write postgresql://user:password@host:port/database",
        ),
        (
            "bad percent-encoding",
            f"postgresql://flue:%zz{secret}@127.0.0.1:{port}/flue",
            r'malformed PostgreSQL URL postgresql://flue@127.0.0.1:\d+/flue: invalid percent-encoded token: "\*\*\*"',
        ),
        (
            "wrong password in the query",
            f"postgresql://flue@127.0.0.1:{port}/postgres?password=not-{secret}",
            rf"store postgresql://flue@127.0.0.1:{port}/postgres\?password=\*\*\*: password authentication failed",
        ),
        (
            "wrong password",
            f"postgresql://flue:not-{secret}@127.0.0.1:{port}/postgres",
            rf"cannot connect to the session store postgresql://flue@127.0.0.1:{port}/postgres: "
            r'password authentication failed for user "flue" — check the user name and password in the URL',
        ),
        (
            "unknown role",
            f"postgresql://nobody_here:{secret}@127.0.0.1:{port}/postgres",
            r'password authentication failed for user "nobody_here" — check the user name and password',
        ),
        (
            "no such database",
            f"postgresql://flue:{secret}@127.0.0.1:{port}/missing_db",
            r'database "missing_db" does not exist — create it, or fix its name in the URL',
        ),
        (
            "nothing listening",
            f"postgresql://flue:{secret}@127.0.0.1:1/flue",
            r"cannot connect to the session store postgresql://flue@127.0.0.1:1/flue: Connection refused — "
            r"is the server running, and listening on that host and port\?",
        ),
        (
            "bad libpq option",
            f"postgresql://flue:{secret}@127.0.0.1:{port}/postgres?sslmode=sometimes",
            r'invalid sslmode value: "sometimes"',
        ),
    ]


@pytest.mark.parametrize(
    "what",
    [
        "malformed",
        "bad percent-encoding",
        "wrong password in the query",
        "wrong password",
        "unknown role",
        "no such database",
        "nothing listening",
        "bad libpq option",
    ],
)
def test_bad_input_is_one_clear_store_error_without_the_password(postgres: PostgresServer, what: str) -> None:
    [(_, url, message)] = [case for case in bad_inputs(postgres) if case[0] == what]
    with pytest.raises(StoreError, match=message) as caught:
        open_store(url)
    assert postgres.password not in str(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__  # no driver traceback chained on


SOUP = """
import sys
from flue_runtime import Harness, agent
@agent
def support():
    return "Answer."
Harness(support, store=sys.argv[1])
"""


def test_a_worker_started_with_a_wrong_password_prints_one_short_traceback(postgres: PostgresServer) -> None:
    url = postgres.url("postgres", password="wrong-password")
    proc = subprocess.run([sys.executable, "-c", SOUP, url], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.count("Traceback") == 1
    assert "During handling" not in proc.stderr and "direct cause" not in proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        f"flue_runtime.errors.StoreError: cannot connect to the session store postgresql://flue@127.0.0.1:{postgres.port}"
        '/postgres: password authentication failed for user "flue" — check the user name and password in the URL'
    )
    assert "wrong-password" not in proc.stderr


def test_without_the_extra_the_error_says_what_to_install(pg: Backend) -> None:
    hide = "import sys; sys.modules['psycopg'] = None\nfrom flue_runtime.agents.stores import open_store\n"
    proc = subprocess.run(
        [sys.executable, "-c", hide + f"open_store({pg.location!r})"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[-1].startswith("flue_runtime.errors.StoreError: the PostgreSQL session store needs")
    assert "pip install 'flue-skills[postgres]'" in proc.stderr


# --- roles and privileges ------------------------------------------------------------------------


def test_a_database_the_role_may_not_create_tables_in_is_a_clear_error(postgres: PostgresServer) -> None:
    postgres.create_role("reader")
    postgres.admin("CREATE DATABASE owned_by_admin")
    with pytest.raises(StoreError) as caught:
        open_store(postgres.url("owned_by_admin", "reader"))
    assert str(caught.value) == (
        f"cannot create the session tables in postgresql://reader@127.0.0.1:{postgres.port}/owned_by_admin: "
        "permission denied for schema public; grant the role 'reader' CREATE on the schema "
        "(GRANT CREATE ON SCHEMA public TO reader), or open the store once as a role that may create tables"
    )
    postgres.admin("REVOKE CONNECT ON DATABASE owned_by_admin FROM PUBLIC")
    with pytest.raises(StoreError, match=r'permission denied for database "owned_by_admin" — grant the role CONNECT'):
        open_store(postgres.url("owned_by_admin", "reader"))


def test_once_an_owner_created_the_tables_a_role_that_only_reads_and_writes_rows_is_enough(
    postgres: PostgresServer, pg: Backend
) -> None:
    pg.open().save("s", SessionRecord("sys", [{"role": "user", "content": "by the owner"}]))
    database = pg.location.rsplit("/", 1)[1]
    postgres.create_role("worker")
    worker_url = postgres.url(database, "worker")
    with pytest.raises(StoreError, match=r"cannot read the session store .*: permission denied for table flue_meta"):
        open_store(worker_url)
    postgres.admin("GRANT SELECT ON flue_meta TO worker", database=database)
    store = open_store(worker_url)
    with pytest.raises(StoreError, match=r"cannot load a session in .*: permission denied for table flue_sessions"):
        store.load("s")
    postgres.admin(
        "GRANT SELECT, INSERT, UPDATE, DELETE ON flue_sessions, flue_messages, flue_turns TO worker", database=database
    )
    record = store.load("s")
    assert record is not None
    record.messages.append({"role": "assistant", "content": "by a worker"})
    store.save("s", record)
    assert pg.open().load("s") == record
    store.close()  # type: ignore[attr-defined]


def test_the_tables_go_to_the_schema_the_url_names(postgres: PostgresServer, pg: Backend) -> None:
    pg.sql("CREATE SCHEMA agents")
    url = pg.location + "?options=-csearch_path%3Dagents"
    store = open_store(url)
    store.save("s", SessionRecord("sys"))
    assert pg.sql(
        "SELECT table_schema, table_name FROM information_schema.tables WHERE table_name LIKE 'flue%' ORDER BY 2"
    ) == [
        ("agents", "flue_messages"),
        ("agents", "flue_meta"),
        ("agents", "flue_sessions"),
        ("agents", "flue_turns"),
    ]
    store.close()  # type: ignore[attr-defined]


# --- a server that restarts or goes away -------------------------------------------------------


@pytest.fixture(scope="module")
def own_server() -> Iterator[PostgresServer]:
    """A server of these tests' own: they stop and restart it."""
    server = PostgresServer()
    try:
        server.start()
        server.create_role()
        yield server
    finally:
        server.remove()


@pytest.mark.parametrize("mode", ["fast", "immediate"])
def test_the_server_restarted_mid_run_is_waited_out_and_loses_nothing(own_server: PostgresServer, mode: str) -> None:
    """`fast`: the server disconnects everyone and rolls back what is open; `immediate`: it dies and
    recovers from its log. Workers' saves in flight are retried on new connections: every turn lands."""
    url = own_server.create_database(f"restart_{mode}")
    turns = 4
    procs = [worker(url, f"w{n}", n * SESSIONS, SESSIONS, turns) for n in range(2)]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline().startswith("turn 0")
    own_server.restart(mode)
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
    stored = read_back(url)
    for i in range(2 * SESSIONS):
        assert_conversation(i, stored[f"s{i}"], turns)
    assert sorted(assert_whole_turns(stored["shared"]["messages"])) == sorted(
        f"w{n}.{turn}" for n in range(2) for turn in range(turns)
    )


def test_the_server_gone_mid_turn_is_a_clear_store_error_and_what_was_committed_stays(
    own_server: PostgresServer,
) -> None:
    url = own_server.create_database("gone")
    model = GatedModel()
    model.gate.set()
    store = PostgresStore(url, busy_timeout=1.0)
    harness = echo_harness(store, model)
    harness.session("case").prompt_sync("committed before")
    model.gate.clear()

    async def turn_while_the_server_stops() -> None:
        running = asyncio.create_task(harness.session("case").prompt("in flight"))
        await model.asked.wait()
        await asyncio.to_thread(own_server.stop, "fast")
        model.gate.set()
        await running

    model.asked.clear()
    try:
        with pytest.raises(StoreError) as caught:
            asyncio.run(turn_while_the_server_stops())
    finally:
        own_server.start()
    message = str(caught.value)
    assert message.startswith(
        f"cannot save a session: cannot connect to the session store postgresql://flue@127.0.0.1:{own_server.port}/gone"
    )
    assert "is the server running" in message
    assert message.endswith("(waited 1 s); nothing was changed by this call, and everything saved before is kept")
    assert own_server.password not in message
    # The server is back: the session holds the committed turn, and the same harness goes on.
    assert [m["content"] for m in PostgresStore(url).load("case").messages] == [
        "committed before",
        "ack: committed before",
    ]  # type: ignore[union-attr]
    harness.session("case").prompt_sync("after the outage")
    assert assert_whole_turns(read_back(url)["case"]["messages"]) == ["committed before", "after the outage"]
    store.close()


class Relay:
    """A TCP relay to the server that steps in once, when armed, at the statement that writes a save:
    it first runs `before` (another worker's save, say), then forwards the statement; with `drop`, it
    cuts the connection without passing the server's answer on: the save landed (a statement outside a
    transaction block commits as it ends), the client cannot know it; with `refuse` too, no connection
    gets through afterwards, old or new."""

    TRIGGER = b"UPDATE flue_sessions SET version"

    def __init__(self, port: int) -> None:
        self.target = port
        self.sockets: list[socket.socket] = []
        self.armed = threading.Event()
        self.before: Callable[[], object] = lambda: None
        self.drop = self.refuse = False
        self.dropped = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def arm(self, *, before: Callable[[], object] = lambda: None, drop: bool = False, refuse: bool = False) -> None:
        self.before, self.drop, self.refuse = before, drop, refuse
        self.armed.set()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.target))
            self.sockets += [client, server]
            cut = threading.Event()  # this connection's answers are no longer passed on
            threading.Thread(target=self._upstream, args=(client, server, cut), daemon=True).start()
            threading.Thread(target=self._downstream, args=(server, client, cut), daemon=True).start()

    def _upstream(self, client: socket.socket, server: socket.socket, cut: threading.Event) -> None:
        with client, server:
            try:
                while data := client.recv(65536):
                    if self.TRIGGER not in data or not self.armed.is_set():
                        server.sendall(data)
                        continue
                    self.armed.clear()
                    self.before()
                    if not self.drop:
                        server.sendall(data)
                        continue
                    cut.set()  # before the statement leaves: its answer must not come back
                    server.sendall(data)
                    time.sleep(0.3)  # the server runs and commits it meanwhile
                    if self.refuse:
                        self.close()
                        for end in self.sockets:
                            with contextlib.suppress(OSError):  # some are closed already
                                end.shutdown(socket.SHUT_RDWR)
                    self.dropped.set()
                    client.shutdown(socket.SHUT_RDWR)
                    return
            except OSError:
                pass

    def _downstream(self, server: socket.socket, client: socket.socket, cut: threading.Event) -> None:
        try:
            while (data := server.recv(65536)) and not cut.is_set():
                client.sendall(data)
        except OSError:
            pass

    def close(self) -> None:
        """Stop listening (shutdown first: a plain close leaves a socket blocked in accept() listening)."""
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()


def test_a_save_whose_answer_was_lost_is_found_not_reported_as_a_conflict(
    pg: Backend, postgres: PostgresServer
) -> None:
    relay = Relay(postgres.port)
    try:
        url = pg.location.replace(f":{postgres.port}/", f":{relay.port}/")
        store = PostgresStore(url)
        record = SessionRecord("sys", [{"role": "user", "content": "one"}])
        store.save("s", record)
        record.messages.append({"role": "assistant", "content": "two"})
        relay.arm(drop=True)
        store.save("s", record)  # the connection dies after the write; the retry finds its own write
        assert relay.dropped.is_set()
        assert record.version == 2
        assert pg.open().load("s") == record
        assert pg.sql("SELECT version FROM flue_sessions") == [(2,)]
        store.close()
    finally:
        relay.close()


def test_a_save_whose_answer_was_lost_with_no_way_back_says_it_may_have_landed(
    pg: Backend, postgres: PostgresServer
) -> None:
    relay = Relay(postgres.port)
    try:
        store = PostgresStore(pg.location.replace(f":{postgres.port}/", f":{relay.port}/"), busy_timeout=1.0)
        record = SessionRecord("sys", [{"role": "user", "content": "one"}])
        store.save("s", record)
        record.messages.append({"role": "assistant", "content": "two"})
        relay.arm(drop=True, refuse=True)
        with pytest.raises(StoreError) as caught:
            store.save("s", record)
        assert str(caught.value) == (
            f"lost the connection to the session store postgresql://flue@127.0.0.1:{relay.port}/{pg.location.rsplit('/', 1)[1]} "
            "while writing a save of session 's', and could not reconnect within 1 s to see whether it landed; "
            "load the session to find out (everything saved before is kept)"
        )
        assert pg.open().load("s") == record  # here it did land
        store.close()
    finally:
        relay.close()


def test_a_save_that_loses_the_race_between_its_read_and_its_write_writes_nothing(
    pg: Backend, postgres: PostgresServer
) -> None:
    """Another worker's save lands after this save read the session and before its write reaches the
    server: the write matches no row of the version it expects, and no message of it is stored."""
    relay = Relay(postgres.port)
    try:
        slow, fast = PostgresStore(pg.location.replace(f":{postgres.port}/", f":{relay.port}/")), pg.open()
        mine = SessionRecord("sys", [{"role": "user", "content": "hello"}])
        slow.save("s", mine)
        theirs = fast.load("s")
        assert theirs is not None
        theirs.messages.append({"role": "assistant", "content": "their turn"})
        relay.arm(before=lambda: fast.save("s", theirs))
        mine.messages.append({"role": "assistant", "content": "my turn"})
        with pytest.raises(
            SessionConflictError, match=r"the store holds a newer version, this turn started from version 1"
        ):
            slow.save("s", mine)
        assert theirs.version == 2 and mine.version == 1
        assert fast.load("s") == theirs
        slow.close()
    finally:
        relay.close()
