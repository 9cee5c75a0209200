"""Issue 41.5: a request's body must arrive within a bound, or 408 (`flue_runtime.mcp.http_bodies`).

A real server process on 127.0.0.1, real sockets that send their headers and a part of the body they announce,
then nothing. Before, 32 of them held every session of 127.0.0.1 (the SDK read each body while the request held
its place among the sessions): every local client got 503 for as long as they stayed open, told that all sessions
"are answering requests". Now a body is read whole before the request takes a place, within `--body-timeout`
seconds (a request outside a session, such as the `initialize` that opens one: a small bound of its own).
"""

from __future__ import annotations

import pytest
from support.optional import need

need("mcp", "mcp")

import http.client
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from mcpclient import mcp_process, port_of
from support.projects import write_skill
from test_mcp_http_sessions import HEADERS, connection, flood, initialize, large, ping, unread

from flue_runtime.mcp.http_bodies import OPENING_TIMEOUT
from flue_runtime.mcp.http_guard import TOKEN_ENV

pytestmark = pytest.mark.slow  # server processes

__all__ = ["large"]  # (a fixture of test_mcp_http_sessions this module's tests use too)

VERSION = "2025-11-25"
#: What the issue's stalled requests announce, and what they send of it.
ANNOUNCED, SENT = 200, 10


@pytest.fixture(scope="module")
def skills(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("skills")
    write_skill(folder / "greet", "Greet people. Use when they say hello.", files={"guide.md": "Say hello.\n"})
    return folder


@contextmanager
def serving(skills: Path, *args: str, said: list[str] | None = None) -> Iterator[int]:
    environ = {k: v for k, v in os.environ.items() if k != TOKEN_ENV}
    with mcp_process(str(skills), "--http", "127.0.0.1:0", *args, env=environ, said=said) as (_, url):
        yield port_of(url)


def stalled(port: int, session: str | None = None) -> socket.socket:
    """A POST to /mcp that sends its headers and `SENT` of the `ANNOUNCED` bytes of its body, then nothing."""
    held = socket.create_connection(("127.0.0.1", port), timeout=30)
    in_session = f"Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: {VERSION}\r\n" if session else ""
    held.sendall(
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\n{in_session}Content-Length: {ANNOUNCED}\r\n\r\n".encode()
        + b'{"jsonrpc"'[:SENT]
    )
    return held


def answer(held: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """The status, headers and body the server sends on `held`, read until it closes the connection."""
    data = b""
    while chunk := held.recv(65536):
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value for name, _, value in (line.partition(": ") for line in lines)}
    return int(status.split()[1]), headers, body


def test_stalled_bodies_hold_no_session_and_get_408(skills: Path) -> None:
    """The issue's attack: 32 connections from 127.0.0.1 (its share of sessions) each announce a body of 200 bytes
    and send 10. A new local client is served at once; each stalled request gets 408 once the bound for a request
    outside a session has passed, and its connection is closed."""
    with serving(skills) as port:
        started = time.monotonic()
        held = [stalled(port) for _ in range(32)]
        time.sleep(0.5)
        status, session = initialize(connection(port))
        assert (status, bool(session)) == (200, True)  # before: 503, "all 32 sessions ... are answering requests"
        for conn in held:
            code, headers, body = answer(conn)
            assert (code, headers.get("connection")) == (408, "close"), (code, headers)
            assert json.loads(body)["error"]["message"] == (
                f"Request Timeout: the request's body did not arrive within {OPENING_TIMEOUT:g} seconds"
            )
            conn.close()
        took = time.monotonic() - started
        assert OPENING_TIMEOUT <= took < OPENING_TIMEOUT + 20, took


def test_a_stalled_body_in_a_session_gets_408_after_the_body_timeout(skills: Path) -> None:
    """`--body-timeout 4`: a request in a session whose body stalls gets 408 after 4 s, not before (the bound of a
    request outside a session is smaller); the session itself serves on."""
    with serving(skills, "--body-timeout", "4") as port:
        conn = connection(port)
        status, session = initialize(conn)
        assert status == 200 and session
        started = time.monotonic()
        held = stalled(port, session)
        code, _, body = answer(held)
        took = time.monotonic() - started
        assert code == 408 and b"within 4 seconds" in body, body
        assert 4 <= took < 4 + 20, took
        assert ping(conn, session) == 200


def test_a_body_that_arrives_in_pieces_within_the_bound_is_served(skills: Path) -> None:
    """Slow is not stalled: a body sent 16 bytes at a time over half a second is read whole and answered."""
    with serving(skills) as port:
        held = socket.create_connection(("127.0.0.1", port), timeout=30)
        params = {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "slow", "version": "1"}}
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}).encode()
        held.sendall(
            f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nConnection: close\r\n"
            f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        )
        for at in range(0, len(body), 16):
            held.sendall(body[at : at + 16])
            time.sleep(0.5 / (len(body) // 16))
        code, headers, _ = answer(held)
        assert code == 200 and headers.get("mcp-session-id"), headers


def test_a_reply_nobody_reads_frees_its_session_after_the_body_timeout(large: Path) -> None:
    """The other direction: three sessions of one address (its share, `--max-sessions-per-client 3`) each asked for
    the 8 MiB file and never read the reply. Before, they stayed answering for as long as their connections stayed
    open, and the address got 503 ("3 answering a request"). Now a reply the client takes nothing of for
    `--body-timeout` seconds is cut off: its connection is closed and its session no longer answering, and the server
    does not call that an error (uvicorn's "ASGI callable returned without completing response")."""
    said: list[str] = []
    with serving(large, "--max-sessions-per-client", "3", "--body-timeout", "5", said=said) as port:
        with ExitStack() as held:
            stuck = [held.enter_context(unread(port, s, "127.0.0.6")) for s in flood(port, 3, "127.0.0.6")]
            time.sleep(0.5)
            assert opening(port, "127.0.0.6") == (503, "3 answering a request")  # within the bound: busy
            deadline = time.monotonic() + 5 + 30
            while (opened := opening(port, "127.0.0.6")) != (200, "") and time.monotonic() < deadline:
                time.sleep(0.5)
            assert opened == (200, "")  # an idle session of the address made room
            for conn in stuck:
                conn.settimeout(30)
                taken = b""
                while chunk := conn.recv(1 << 20):  # what the buffers held, then the end: the server closed it
                    taken += chunk
                assert taken.startswith(b"HTTP/1.1 200") and len(taken) < 8 << 20, len(taken)
    assert said and not [line for line in said if "ERROR" in line or "Traceback" in line], said


def opening(port: int, source: str) -> tuple[int, str]:
    """The status of an `initialize` from `source`, and the reason given when it is refused."""
    conn = connection(port, source)
    status, _ = initialize(conn)
    if status == 200:
        return status, ""
    conn.request("POST", "/mcp", "{}", HEADERS)
    refused = conn.getresponse()
    message: str = json.loads(refused.read())["error"]["message"]
    return status, message.rpartition("busy: ")[2].partition(",")[0]


def test_a_slow_reader_of_a_large_reply_gets_all_of_it(large: Path) -> None:
    """Slow is not stalled, in this direction too: a client reading the 8 MiB file at about 2 MiB a second (longer
    than `--body-timeout 2` in all, never more than a few hundredths of a second without reading) gets every
    byte."""
    with serving(large, "--body-timeout", "2") as port:
        [session] = flood(port, 1, "127.0.0.8")
        held = unread(port, session, "127.0.0.8")
        held.settimeout(30)
        response = http.client.HTTPResponse(held, method="POST")
        response.begin()
        assert response.status == 200
        taken = b""
        while not response.isclosed() and (chunk := response.read(64 << 10)):
            taken += chunk
            time.sleep(len(chunk) / (2 << 20))
        if response.getheader("content-type", "").startswith("text/event-stream"):
            taken = next(line for line in taken.splitlines() if line.startswith(b"data: "))[len(b"data: ") :]
        assert json.loads(taken)["result"]["contents"][0]["text"] == "hello\n" * (8 << 17)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--body-timeout", "0"], "'0': a positive number of seconds"),
        (["--body-timeout", "soon"], "'soon': give a number of seconds"),
        (["--body-timeout", "5"], "--body-timeout bounds how long --http reads a request: add --http HOST:PORT"),
    ],
)
def test_the_body_timeout_is_checked_before_anything_starts(skills: Path, args: list[str], words: str) -> None:
    http = [] if args[-1] == "5" else ["--http", "127.0.0.1:0"]
    done = subprocess.run(
        [sys.executable, "-m", "flue_build", "mcp", str(skills), *http, *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr and words in done.stderr, done.stderr
