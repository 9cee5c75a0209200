"""Sessions in PostgreSQL, for an agent served by several workers or hosts (psycopg 3 and its pool).

The contract is the SQLite store's: a save lands whole, and only if the session still holds the
version its turn started from (`SessionConflictError` otherwise, nothing written); a load reads
one snapshot. Each is a single statement (a save's write is one statement, so one transaction,
after a read of the stored messages' digests): two round trips to save, one to load. No
connection or lock is held while the model thinks: a turn borrows a pooled connection to load,
and again to save.

A save that loses its connection is retried on a fresh one until `busy_timeout` (a server restart
is waited out); each save carries a token, so a retry after a commit whose answer was lost finds
its own write instead of reporting a conflict. Past the timeout: `StoreError`, and what was
committed before stays.
"""

from __future__ import annotations

import hashlib
import re
import time
import uuid
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import unquote

from flue_runtime.agents.provenance import Turn
from flue_runtime.agents.stores.contract import SessionRecord, check_session_id, conflict, locked_too_long
from flue_runtime.agents.stores.encoding import EncodedRecord, decode, decode_turns, kept_prefix
from flue_runtime.agents.stores.migrations import pending
from flue_runtime.errors import StoreError

try:
    import psycopg
    from psycopg.conninfo import conninfo_to_dict
    from psycopg_pool import ConnectionPool, PoolTimeout
except ImportError as exc:  # the optional extra is not installed (or libpq is missing)
    raise StoreError(
        f"the PostgreSQL session store needs psycopg 3 and psycopg-pool ({exc}): pip install 'flue-skills[postgres]'"
    ) from None

__all__ = ["PostgresStore", "SCHEMA_VERSION"]


T = TypeVar("T")

_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (  # 1: sessions and their messages
        """CREATE TABLE flue_sessions (
            id text PRIMARY KEY,
            version bigint NOT NULL,
            system_prompt text NOT NULL,
            state text NOT NULL,
            announced text NOT NULL,
            message_count integer NOT NULL,
            saved_by uuid NOT NULL,
            updated_at timestamptz NOT NULL DEFAULT now()
        )""",
        """CREATE TABLE flue_messages (
            session_id text NOT NULL REFERENCES flue_sessions (id) ON DELETE CASCADE,
            seq integer NOT NULL,
            body text NOT NULL,
            PRIMARY KEY (session_id, seq)
        )""",
    ),
    # 2: `announced` may hold an object (the catalog, the instructions, the tools offered: see
    # encoding.py); no table changes, but an older release must not read such a row
    (),
    # 3: `announced` may hold the session's skill switches (encoding.py); no table changes, but an older
    # release would drop them at its next save, turning a disabled skill back on
    (),
    (  # 4: each model turn's provenance (encoding.py), appended by the save that brings it
        """CREATE TABLE flue_turns (
            session_id text NOT NULL REFERENCES flue_sessions (id) ON DELETE CASCADE,
            seq integer NOT NULL,
            body text NOT NULL,
            PRIMARY KEY (session_id, seq)
        )""",
    ),
)
SCHEMA_VERSION = len(_MIGRATIONS)

#: One statement, one snapshot: the row and its messages from the same save.
_LOAD = (
    "SELECT s.system_prompt, s.state, s.announced, s.version, ARRAY("
    "  SELECT m.body FROM flue_messages m WHERE m.session_id = s.id AND m.seq < s.message_count ORDER BY m.seq"
    ") FROM flue_sessions s WHERE s.id = %s"
)
#: What a save needs to know first: the version, who wrote it, and the stored messages as digests
#: (a long conversation is not sent back at every save).
_READ_FOR_SAVE = (
    "SELECT s.version, s.saved_by, ARRAY("
    "  SELECT sha256(convert_to(m.body, 'UTF8')) FROM flue_messages m"
    "  WHERE m.session_id = s.id AND m.seq < %s ORDER BY m.seq"
    ") FROM flue_sessions s WHERE s.id = %s"
)
#: A save is one statement, so one transaction, and lands only on the version it expects: with
#: another worker's save in between, the UPDATE matches nothing and no message is touched.
_UPDATE = """
WITH moved AS (
    UPDATE flue_sessions SET version = version + 1, system_prompt = %(system_prompt)s, state = %(state)s,
        announced = %(announced)s, message_count = %(count)s, saved_by = %(token)s, updated_at = now()
    WHERE id = %(id)s AND version = %(expected)s
    RETURNING id
), trimmed AS (
    DELETE FROM flue_messages WHERE session_id = (SELECT id FROM moved) AND seq >= %(count)s
), written AS (
    INSERT INTO flue_messages (session_id, seq, body)
    SELECT moved.id, %(kept)s + t.ord - 1, t.body FROM moved, unnest(%(bodies)s::text[]) WITH ORDINALITY AS t(body, ord)
    ON CONFLICT (session_id, seq) DO UPDATE SET body = excluded.body
), turns AS (
    INSERT INTO flue_turns (session_id, seq, body)
    SELECT moved.id, (SELECT COALESCE(max(seq) + 1, 0) FROM flue_turns WHERE session_id = moved.id) + t.ord - 1, t.body
    FROM moved, unnest(%(turns)s::text[]) WITH ORDINALITY AS t(body, ord)
)
SELECT count(*) FROM moved
"""
#: A new session: created only if no other worker created it first.
_CREATE = """
WITH created AS (
    INSERT INTO flue_sessions (id, version, system_prompt, state, announced, message_count, saved_by)
    VALUES (%(id)s, 1, %(system_prompt)s, %(state)s, %(announced)s, %(count)s, %(token)s)
    ON CONFLICT (id) DO NOTHING
    RETURNING id
), written AS (
    INSERT INTO flue_messages (session_id, seq, body)
    SELECT created.id, t.ord - 1, t.body FROM created, unnest(%(bodies)s::text[]) WITH ORDINALITY AS t(body, ord)
), turns AS (
    INSERT INTO flue_turns (session_id, seq, body)
    SELECT created.id, t.ord - 1, t.body FROM created, unnest(%(turns)s::text[]) WITH ORDINALITY AS t(body, ord)
)
SELECT count(*) FROM created
"""

#: Errors after which the same statements may succeed on a fresh connection: the connection was
#: lost (class 08, or no state at all), the server is shutting down or starting (57P0x), too many
#: connections, a serialization failure or deadlock.
_TRANSIENT = {"57P01", "57P02", "57P03", "53300", "40001", "40P01"}
_LOCK_TIMEOUT = "55P03"
_KEPT = "nothing was changed by this call, and everything saved before is kept"
_NO_PRIVILEGE = "42501"

#: What to check, for the usual ways of failing to connect (libpq's and the server's wording).
_HINTS = (
    ("password authentication failed", "check the user name and password in the URL"),
    ("no password supplied", "put the password in the URL (postgresql://user:password@host/database)"),
    ("permission denied for database", "grant the role CONNECT on the database"),
    ("does not exist", "create it, or fix its name in the URL"),
    ("too many connections", "give each worker's PostgresStore a smaller max_connections, or raise the server's"),
    ("refused", "is the server running, and listening on that host and port?"),
    ("resolve host", "check the host name in the URL"),
    ("translate host", "check the host name in the URL"),
    ("timeout expired", "is the server reachable from this host (firewall, host, port)?"),
)


class PostgresStore:
    """Sessions in a PostgreSQL database that every worker of an agent connects to.

    `url`: `postgresql://user:password@host:port/database` (libpq's parameters, e.g.
    `?sslmode=require`, go in the query). `busy_timeout`: how long a load or save waits, for a
    row another worker is writing or for the server to come back, before `StoreError`.
    `max_connections`: the pool's size in this process. The tables (`flue_sessions`,
    `flue_messages`, `flue_turns`, `flue_meta`) are created on first use in the connection's first schema.
    """

    def __init__(
        self,
        url: str,
        *,
        busy_timeout: float = 30.0,
        connect_timeout: float = 10.0,
        min_connections: int = 1,
        max_connections: int = 10,
    ) -> None:
        self.where = _display(url)
        self.busy_timeout = busy_timeout
        try:
            options = conninfo_to_dict(url)
        except psycopg.ProgrammingError as exc:
            raise StoreError(
                f"malformed PostgreSQL URL {self.where}: {_without(str(exc).strip(), url)}; "
                "write postgresql://user:password@host:port/database"
            ) from None
        self._url = url
        # What the URL leaves out; what it says wins.
        defaults = {"application_name": "flue-skills", "connect_timeout": max(1, round(connect_timeout))}
        self._connect_options: dict[str, Any] = {"autocommit": True}
        self._connect_options.update((key, value) for key, value in defaults.items() if key not in options)
        with self._connect() as connection:
            self._migrate(connection)
        self._pool = ConnectionPool(
            url,
            kwargs=self._connect_options,
            min_size=min_connections,
            max_size=max_connections,
            configure=self._configure,
            # No check when a connection is handed out (a round trip per call): a broken one fails
            # its first statement, and `_run` tries again on another.
            timeout=busy_timeout,
            name="flue-sessions",
            open=True,
        )

    def __repr__(self) -> str:
        return f"PostgresStore({self.where!r})"

    # --- connections ------------------------------------------------------------------------

    def _connect(self, doing: str = "") -> psycopg.Connection[Any]:
        """A connection of its own, outside the pool: its failure says why (the pool's only says 'timeout').

        `doing`: what waited `busy_timeout` for the pool first, which the error says."""
        try:
            return psycopg.connect(self._url, **self._connect_options)
        except psycopg.Error as exc:
            reason = f"cannot connect to the session store {self.where}: {_reason(exc, self._url)}"
            if doing:
                reason = f"cannot {doing}: {reason} (waited {self.busy_timeout:g} s); {_KEPT}"
            raise StoreError(reason) from None

    def _configure(self, connection: psycopg.Connection[Any]) -> None:
        """Each pooled connection waits at most `busy_timeout` for a row lock another worker holds."""
        connection.execute("SELECT set_config('lock_timeout', %s, false)", (f"{round(self.busy_timeout * 1000)}ms",))

    def _migrate(self, connection: psycopg.Connection[Any]) -> None:
        """Create the tables on first use, or bring an older schema up to this release's.

        An up-to-date schema needs no privilege beyond reading `flue_meta`, so workers may run as
        a role that can only read and write rows once an owner has created the tables."""
        if self._schema_version(connection) == SCHEMA_VERSION:
            return
        try:
            with connection.transaction():
                # One worker migrates at a time; the others then find the work done.
                connection.execute("SELECT pg_advisory_xact_lock(hashtext('flue_runtime.stores.postgres'))")
                connection.execute("CREATE TABLE IF NOT EXISTS flue_meta (key text PRIMARY KEY, value text NOT NULL)")
                for step in pending(self.where, self._schema_version(connection), _MIGRATIONS):
                    for statement in step:
                        connection.execute(statement.encode())
                connection.execute(
                    "INSERT INTO flue_meta VALUES ('schema_version', %s) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (str(SCHEMA_VERSION),),
                )
        except psycopg.Error as exc:
            user = connection.info.user
            hint = (
                f"; grant the role {user!r} CREATE on the schema (GRANT CREATE ON SCHEMA public TO {user}), "
                "or open the store once as a role that may create tables"
                if exc.sqlstate == _NO_PRIVILEGE
                else ""
            )
            raise StoreError(
                f"cannot create the session tables in {self.where}: {_reason(exc, self._url)}{hint}"
            ) from None

    def _schema_version(self, connection: psycopg.Connection[Any]) -> int:
        try:
            if connection.execute("SELECT to_regclass('flue_meta')").fetchone() == (None,):
                return 0
            row = connection.execute("SELECT value FROM flue_meta WHERE key = 'schema_version'").fetchone()
        except psycopg.Error as exc:
            raise StoreError(f"cannot read the session store {self.where}: {_reason(exc, self._url)}") from None
        return int(row[0]) if row is not None else 0

    def _run(self, doing: str, action: Callable[[psycopg.Connection[Any]], T]) -> T:
        """`action` on a pooled connection; on a fresh one again if the connection or server was lost,
        until `busy_timeout`. Every other database error is a `StoreError` saying what and where."""
        deadline = time.monotonic() + self.busy_timeout
        delay = 0.05
        while True:
            try:
                try:
                    with self._pool.connection(timeout=max(deadline - time.monotonic(), 0.01)) as connection:
                        return action(connection)
                except PoolTimeout:
                    # No pooled connection in time: every one is busy, or the pool is still backing off
                    # after an outage. A connection of our own says whether the server is there, and
                    # if it is, does the work.
                    with self._connect(doing) as connection:
                        self._configure(connection)
                        return action(connection)
            except psycopg.Error as exc:
                if exc.sqlstate == _LOCK_TIMEOUT:
                    raise locked_too_long(self.where, self.busy_timeout, "PostgresStore") from None
                transient = isinstance(exc, psycopg.OperationalError) and (
                    exc.sqlstate is None or exc.sqlstate.startswith("08") or exc.sqlstate in _TRANSIENT
                )
                if not transient:
                    raise StoreError(f"cannot {doing} in {self.where}: {_reason(exc, self._url)}") from None
                if time.monotonic() + delay > deadline:
                    raise StoreError(
                        f"cannot {doing}: lost the connection to the session store {self.where} and could not get "
                        f"it back within {self.busy_timeout:g} s ({_reason(exc, self._url)}); {_KEPT}"
                    ) from None
                time.sleep(delay)
                delay = min(delay * 2, 1.0)

    # --- the store --------------------------------------------------------------------------

    def load(self, session_id: str) -> SessionRecord | None:
        check_session_id(session_id)

        def read(connection: psycopg.Connection[Any]) -> SessionRecord | None:
            row = connection.execute(_LOAD, (session_id,)).fetchone()
            if row is None:
                return None
            system_prompt, state, announced, version, bodies = row
            return decode(system_prompt, state, announced, bodies, version)

        return self._run("load a session", read)

    def save(self, session_id: str, record: SessionRecord) -> None:
        check_session_id(session_id)
        encoded = EncodedRecord.of(record)
        bodies = encoded.bodies
        token = uuid.uuid4()
        uncertain = False  # a try's write went out and its answer never came back

        def write(connection: psycopg.Connection[Any]) -> int:
            nonlocal uncertain
            row = connection.execute(_READ_FOR_SAVE, (len(bodies), session_id)).fetchone()
            uncertain = False  # this read shows whether an earlier try landed
            if row is not None and row[1] == token:
                return int(row[0])  # an earlier try landed, and its answer was lost with the connection
            found = int(row[0]) if row is not None else 0
            if found != record.version:
                raise conflict(session_id, record.version, found)
            # Keep the stored messages this record starts with (a turn only appends); write the rest.
            kept = kept_prefix(row[2], [_sha256(body) for body in bodies]) if row is not None else 0
            values = {
                "id": session_id,
                "expected": record.version,
                "system_prompt": encoded.system_prompt,
                "state": encoded.state,
                "announced": encoded.announced,
                "count": len(bodies),
                "token": token,
                "kept": kept,
                "bodies": bodies[kept:],
                "turns": encoded.turns,
            }
            try:
                (saved,) = connection.execute(_UPDATE if row is not None else _CREATE, values).fetchone() or (0,)
            except psycopg.Error:
                uncertain = connection.broken  # the connection died with the statement out: it may have run
                raise
            if not saved:  # another worker's save landed between the read and the write
                raise conflict(session_id, record.version)
            return found + 1

        try:
            record.version = self._run("save a session", write)
        except StoreError:
            if not uncertain:
                raise
            raise StoreError(
                f"lost the connection to the session store {self.where} while writing a save of session "
                f"{session_id!r}, and could not reconnect within {self.busy_timeout:g} s to see whether it landed; "
                "load the session to find out (everything saved before is kept)"
            ) from None
        record.turns = []

    def turns(self, session_id: str) -> list[Turn]:
        check_session_id(session_id)

        def read(connection: psycopg.Connection[Any]) -> list[Turn]:
            rows = connection.execute(
                "SELECT body FROM flue_turns WHERE session_id = %s ORDER BY seq", (session_id,)
            ).fetchall()
            return decode_turns(body for (body,) in rows)

        return self._run("read a session's turns", read)

    def session_ids(self) -> list[str]:
        return self._run(
            "list sessions",
            lambda connection: [row[0] for row in connection.execute("SELECT id FROM flue_sessions ORDER BY id")],
        )

    def close(self) -> None:
        self._pool.close()


def _sha256(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


#: The password in a URL's user part (up to the last "@" of the authority: a password may hold
#: an unencoded "@") or in a `password=` parameter.
_PASSWORD = re.compile(r"(?<=://)[^:/?#]*:([^/?#]*)@|(?<=password=)[^&\s]*")


def _display(url: str) -> str:
    """The URL as errors show it: never with its password."""
    return _PASSWORD.sub(
        lambda found: found.group(0).split(":", 1)[0] + "@" if found.group(1) is not None else "***", url
    )


def _without(message: str, url: str) -> str:
    """A driver message with the URL shown as `_display` shows it, and no piece of the password
    (libpq quotes fragments of a URL it cannot parse)."""
    message = message.replace(url, _display(url))
    for found in _PASSWORD.finditer(url):
        secret = found.group(1) if found.group(1) is not None else found.group(0)
        for piece in {secret, unquote(secret), *secret.split("@")}:
            if len(piece) >= 3:
                message = message.replace(piece, "***")
    return message


def _reason(exc: psycopg.Error, url: str) -> str:
    """The driver's message reduced to its cause, plus what to check when the cause is a usual one."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    first = re.sub(
        r"^(connection failed: )?(connection to server .*? failed: )?((FATAL|ERROR): +)?", "", lines[0] if lines else ""
    )
    reason = _without(first or type(exc).__name__, url)
    for needle, hint in _HINTS:
        if needle in reason.lower():
            return f"{reason} — {hint}"
    return reason
