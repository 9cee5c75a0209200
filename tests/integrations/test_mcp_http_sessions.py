"""Issue 32.7: one client cannot take `flue-skills mcp --http` from the others (`flue_runtime.mcp.http_sessions`).

A real server process on 127.0.0.1; clients on loopback addresses of their own (127.0.0.2, ...: a socket bound
to that source address), raw HTTP for the floods and the probes, the MCP SDK's own client (the initialize
handshake, which opens a session) for the clients that must be served. Every flood is bounded in count and in
time. A session answers a `ping` while the server keeps it, and 404 once it was ended.
"""

from __future__ import annotations

import pytest
from support.optional import need

need("mcp", "mcp")

import http.client
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcpclient import mcp_process, port_of, verified_skills
from support.projects import write_skill

from flue_runtime.mcp.http_guard import TOKEN_ENV

pytestmark = pytest.mark.slow  # server processes

HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
VERSION = "2025-11-25"
#: A flood is this many sessions at most, and stops after FLOOD_S seconds whatever it reached.
FLOOD = 500
FLOOD_S = 60.0
#: The documented default of `--max-sessions-per-client`.
PER_CLIENT = 32


@pytest.fixture(scope="module")
def skills(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("skills")
    write_skill(folder / "greet", "Greet people. Use when they say hello.", files={"guide.md": "Say hello.\n"})
    return folder


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A skill with a file of 8 MiB: a reply that does not fit the sockets' buffers, so a client that never reads
    it keeps its request answering."""
    folder = tmp_path_factory.mktemp("large")
    write_skill(folder / "greet", "Greet people. Use when they say hello.", files={"big.txt": "hello\n" * (8 << 17)})
    return folder


@contextmanager
def serving(skills: Path, *args: str) -> Iterator[tuple[subprocess.Popen[str], int]]:
    environ = {k: v for k, v in os.environ.items() if k != TOKEN_ENV}
    with mcp_process(str(skills), "--http", "127.0.0.1:0", *args, env=environ) as (process, url):
        yield process, port_of(url)


def connection(port: int, source: str = "127.0.0.1") -> http.client.HTTPConnection:
    """A kept-alive connection to the server from the loopback address `source`."""
    return http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))


def initialize(conn: http.client.HTTPConnection) -> tuple[int, str | None]:
    """Open a session (the initialize handshake): the status, and the session id when one was given."""
    params = {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}
    conn.request(
        "POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}), HEADERS
    )
    response = conn.getresponse()
    response.read()
    return response.status, response.getheader("mcp-session-id")


def ping(conn: http.client.HTTPConnection, session: str) -> int:
    """The status of a `ping` in `session`: 200 while the server keeps it, 404 once it was ended."""
    headers = {**HEADERS, "Mcp-Session-Id": session, "MCP-Protocol-Version": VERSION}
    conn.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"}), headers)
    response = conn.getresponse()
    response.read()
    return response.status


def flood(port: int, count: int = FLOOD, source: str = "127.0.0.1") -> list[str]:
    """Open `count` sessions from `source` one after another (within FLOOD_S), never ending one: their ids."""
    conn = connection(port, source)
    opened: list[str] = []
    deadline = time.monotonic() + FLOOD_S
    while len(opened) < count and time.monotonic() < deadline:
        status, session = initialize(conn)
        assert status == 200 and session, status
        opened.append(session)
    conn.close()
    return opened


def alive(port: int, sessions: list[str], source: str = "127.0.0.1") -> list[str]:
    conn = connection(port, source)
    try:
        return [session for session in sessions if ping(conn, session) == 200]
    finally:
        conn.close()


def rss(pid: int) -> int:
    """The process's resident memory, in bytes."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) * 1024  # type: ignore[union-attr]


def sdk_client_serves(port: int, source: str) -> dict[str, dict[str, bytes]]:
    """Every skill, verified as a host loads it, through the SDK's client with a session of its own (the initialize
    handshake) from the loopback address `source`."""

    async def run() -> dict[str, dict[str, bytes]]:
        transport = httpx2.AsyncHTTPTransport(local_address=source)
        async with httpx2.AsyncClient(transport=transport, timeout=30) as http:
            streams = streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)
            async with Client(streams, mode="legacy") as client:
                return await verified_skills(client)

    return anyio.run(run)


def test_one_clients_flood_leaves_the_others_served(skills: Path) -> None:
    """The issue's attack, bounded: one local process opens 500 sessions and never ends one. Before, the server kept
    them all (10,000 fit, for 30 minutes each: every new client 503 once they were in), growing by ~37 KiB
    each. Now it keeps 32 per client address and makes room for a new one by ending that address's least recently
    used idle session: a new client on the same address and one on another are served, the flood's sessions but
    the last 32 are gone, and the server grew by a few MiB."""
    with serving(skills) as (process, port):
        assert len(sdk_client_serves(port, "127.0.0.1")) == 1  # (warm: what grows below is the flood's)
        before = rss(process.pid)
        started = time.monotonic()
        opened = flood(port)
        took = time.monotonic() - started
        grew = rss(process.pid) - before
        assert len(opened) == FLOOD, f"{len(opened)} sessions in {took:.1f} s"
        assert len(sdk_client_serves(port, "127.0.0.1")) == 1  # a new local client: served
        assert len(sdk_client_serves(port, "127.0.0.2")) == 1  # a client on another address: served
        kept = alive(port, opened)
        assert 0 < len(kept) <= PER_CLIENT and kept == opened[-len(kept) :], len(kept)  # the newest only
        assert grew < 12 * 1024 * 1024, f"the server grew by {grew / 2**20:.1f} MiB for {FLOOD} sessions"


def test_a_flood_on_one_address_never_reaches_a_client_on_another_while_it_works(skills: Path) -> None:
    """While a flood runs on 127.0.0.1, a client on 127.0.0.2 verifies every skill over and over in one session,
    and every new session on the flooding address itself is admitted (never 503)."""
    with serving(skills) as (_, port):
        done = threading.Event()
        flooded: list[list[str]] = []

        def flooding() -> None:
            try:
                flooded.append(flood(port, 400))
            finally:
                done.set()

        thread = threading.Thread(target=flooding, daemon=True)
        thread.start()
        rounds, admitted = 0, []
        conn = connection(port, "127.0.0.1")
        while not done.is_set() and rounds < 200:
            assert len(sdk_client_serves(port, "127.0.0.2")) == 1
            admitted.append(initialize(conn)[0])
            rounds += 1
        thread.join(FLOOD_S + 30)
        assert flooded and len(flooded[0]) == 400 and rounds >= 2, (rounds, flooded)
        assert set(admitted) == {200}, admitted


def unread(port: int, session: str, source: str) -> socket.socket:
    """A request in `session` for the 8 MiB file whose reply the client never reads: it stays answering."""
    held = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    held.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # (before connecting: the window stays small)
    held.bind((source, 0))
    held.connect(("127.0.0.1", port))
    body = json.dumps(
        {"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "skill://greet/big.txt"}}
    )
    held.sendall(
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nMcp-Session-Id: {session}\r\n"
        f"MCP-Protocol-Version: {VERSION}\r\nContent-Length: {len(body)}\r\n\r\n{body}".encode()
    )
    return held


def test_the_limits_are_flags_and_a_session_answering_a_request_is_never_ended(large: Path) -> None:
    """`--max-sessions 6 --max-sessions-per-client 3 --session-idle-timeout 3`: an address's fourth session ends its
    least recently used; past six in all, the address holding the most gives one up; a session idle for longer
    than the timeout is ended; sessions busy answering are never ended, so a new one is refused (503, saying what
    each is doing) only while every session that could make room is busy."""
    with serving(large, "--max-sessions", "6", "--max-sessions-per-client", "3", "--session-idle-timeout", "3") as (
        _,
        port,
    ):
        a, b, c = flood(port, 3, "127.0.0.2")
        assert alive(port, [a, b, c]) == [a, b, c] and alive(port, [a]) == [a]  # used last: a, after c, after b
        [d] = flood(port, 1, "127.0.0.2")  # the address's fourth: its least recently used, b, is ended
        assert alive(port, [a, b, c, d]) == [a, c, d]
        e, f, g = flood(port, 3, "127.0.0.3")  # six in all, three from each address
        assert alive(port, [e, f, g]) == [e, f, g]
        [h] = flood(port, 1, "127.0.0.4")  # a seventh: the biggest holders (three each) give up one, the oldest
        assert alive(port, [h]) == [h]
        assert alive(port, [a, c, d, e, f, g]) == [c, d, e, f, g]

        time.sleep(3.5)  # every session idle past the timeout: the next one to open ends them all
        [i] = flood(port, 1, "127.0.0.5")
        assert alive(port, [a, c, d, e, f, g, h, i]) == [i]

        # Three sessions of 127.0.0.6, each answering a request whose reply is never read: none can be ended.
        six = flood(port, 3, "127.0.0.6")
        stuck = [unread(port, session, "127.0.0.6") for session in six]
        time.sleep(1)
        conn = connection(port, "127.0.0.6")
        conn.request("POST", "/mcp", "{}", HEADERS)
        refused = conn.getresponse()
        body = json.loads(refused.read())
        assert refused.status == 503 and refused.getheader("Retry-After") == "1"
        assert body["error"]["message"] == (
            "Too many open sessions: all 3 sessions of this client address are busy: 3 answering a request, "
            "0 being opened"
        )
        assert initialize(connection(port, "127.0.0.7"))[0] == 200  # another address: served
        for held in stuck:
            held.close()  # the requests end
        time.sleep(0.5)
        assert initialize(connection(port, "127.0.0.6"))[0] == 200


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--max-sessions", "0"], "'0': at least 1 session"),
        (["--max-sessions-per-client", "many"], "'many': give a number of sessions"),
        (["--session-idle-timeout", "0"], "'0': a positive number of seconds"),
        (["--session-idle-timeout", "inf"], "'inf': a positive number of seconds"),
        (
            ["--max-sessions", "4", "--max-sessions-per-client", "5"],
            "--max-sessions-per-client: 5 sessions per client is more than the 4 sessions in all",
        ),
        (["--stateless", "--max-sessions", "4"], "--max-sessions bounds sessions, which --stateless and --workers"),
    ],
)
def test_session_limits_are_checked_before_anything_starts(skills: Path, args: list[str], words: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "flue_build", "mcp", str(skills), "--http", "127.0.0.1:0", *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr and words in done.stderr, done.stderr
