"""Issue 32.6: a remote server's replies are bounded in bytes before they are parsed (`flue_runtime.mcp.replies`).

Real servers on 127.0.0.1: a raw asyncio HTTP server answering every request with a reply far larger than any
the client may take, generated on the fly and streamed in chunks (a JSON body, an error's JSON body, one
server-sent event, a compressed body), and a stdio server printing one endless line. The client is
`remote_skills` in a child process of its own, which reports what it raised, how long it took and how far its
peak RSS grew (`resource.getrusage`), and whose address space is capped so that a client reading the whole
reply (as the SDK alone does) fails there instead of taking the machine's memory.
"""

from __future__ import annotations

import pytest
from support.optional import need

need("mcp", "mcp")

import asyncio
import json
import subprocess
import sys
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from support.loopback_server import loopback_server

from flue_runtime.format.vetting import DEFAULT_LIMITS, Limits

pytestmark = pytest.mark.slow  # servers and child processes

MiB = 1024 * 1024
#: What each hostile reply says it holds, and would send if read to the end: far past any bound.
DECLARED = 1024 * MiB
#: The client's address space: room for Python and the SDK, never for the whole reply read and parsed.
ADDRESS_SPACE = 3 * 1024 * MiB
#: A small bundle size, so most cases read little before the bound trips.
SMALL = Limits(bundle_size=2 * MiB)


def reply_limit(limits: Limits) -> int:
    """What the documentation says one reply may hold: the bundle size in base64, plus 1 MiB."""
    return 4 * -(-limits.bundle_size // 3) + MiB


CLIENT = """
import json, os, resource, sys, time, warnings
args = json.loads(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (args["space"], args["space"]))
from flue_runtime.format.vetting import DEFAULT_LIMITS, Limits
from flue_runtime.mcp import remote_skills
warnings.simplefilter("ignore")
limits = Limits(bundle_size=args["bundle_size"]) if args["bundle_size"] else DEFAULT_LIMITS
try:  # the same imports, thread and client made once, so that what grows below is the reply's
    remote_skills(args["warm"], timeout=10)
except Exception:
    pass
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
started = time.monotonic()
try:
    remote_skills(args["target"], timeout=120, limits=limits)
    raised = None
except BaseException as exc:
    raised = exc
took = time.monotonic() - started
grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
pidfile = args.get("pidfile")
alive = pidfile is not None and os.path.exists(f"/proc/{open(pidfile).read()}")  # (after the call, its child)
said = {"error": type(raised).__name__, "message": str(raised), "seconds": took, "grew": grew, "alive": alive}
print(json.dumps(said))
"""


def client(target: object, limits: Limits, warm: str, pidfile: Path | None = None) -> dict[str, object]:
    """`remote_skills(target, limits=limits)` in a child process: what it raised, its time, its peak RSS growth,
    and whether the process whose pid is in `pidfile` (a stdio server) was still there when the call returned."""
    args = {
        "pidfile": str(pidfile) if pidfile else None,
        "target": target,
        "bundle_size": 0 if limits == DEFAULT_LIMITS else limits.bundle_size,
        "space": ADDRESS_SPACE,
        "warm": warm,
    }
    done = subprocess.run(
        [sys.executable, "-c", CLIENT, json.dumps(args)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=180,
    )
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0 and lines, done.stderr[-3000:]
    result: dict[str, object] = json.loads(lines[-1])
    return result


def closed_port() -> str:
    """A loopback URL nothing listens on (the client's warm-up connects there and fails at once)."""
    import socket

    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{free.getsockname()[1]}/mcp"


# --- the hostile HTTP server ---------------------------------------------------------------------


def _json_body(chunk: int) -> Iterator[bytes]:
    yield b'{"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25", "padding": "'
    while True:
        yield b"a" * chunk


def _event_body(chunk: int) -> Iterator[bytes]:
    yield b'event: message\ndata: {"jsonrpc": "2.0", "id": 0, "result": {"padding": "'
    while True:
        yield b"a" * chunk


def _gzip_body(chunk: int) -> Iterator[bytes]:
    """The JSON body, gzip-compressed: a few hundred KiB that inflate to DECLARED bytes."""
    packer = zlib.compressobj(1, zlib.DEFLATED, 31)
    sent = 0
    for part in _json_body(chunk):
        yield packer.compress(part)
        sent += len(part)
        if sent >= DECLARED:
            yield packer.flush()
            return


REPLIES = {
    "json": ("200 OK", "application/json", "", _json_body),
    "json-error": ("400 Bad Request", "application/json", "", _json_body),
    "event": ("200 OK", "text/event-stream", "", _event_body),
    "gzip": ("200 OK", "application/json", "gzip", _gzip_body),
}


@contextmanager
def hostile_http(kind: str) -> Iterator[tuple[str, list[int]]]:
    """A server on 127.0.0.1 answering every request with the reply `kind`, streamed in 1 MiB chunks until
    DECLARED bytes are sent or the client goes away: its URL, and how many bytes each answer sent."""
    status, content_type, encoding, body = REPLIES[kind]
    sent: list[int] = []

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        count = 0
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").lower()
            length = next((int(line[15:]) for line in head.split("\r\n") if line.startswith("content-length:")), 0)
            await reader.readexactly(length)
            extra = f"Content-Encoding: {encoding}\r\n" if encoding else f"Content-Length: {DECLARED}\r\n"
            writer.write(f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\n{extra}\r\n".encode())
            for part in body(MiB):
                writer.write(part)
                await writer.drain()
                count += len(part)
                if count >= DECLARED:
                    break
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            sent.append(count)
            writer.close()

    with loopback_server(answer) as port:
        yield f"http://127.0.0.1:{port}/mcp", sent


# --- the tests -----------------------------------------------------------------------------------


def test_a_json_reply_past_the_limit_fails_fast_and_the_client_stays_bounded() -> None:
    """The issue's case at the default limits: `initialize` answered by a 1 GiB `application/json` body. The
    client reads no more than the limit (134 MiB: 100 MiB in base64, plus 1 MiB) and grows by about that, where
    the SDK alone read it all and grew by about six times the body."""
    limit = reply_limit(DEFAULT_LIMITS)
    with hostile_http("json") as (url, sent):
        said = client(url, DEFAULT_LIMITS, closed_port())
    assert said["error"] == "RemoteSkillsError", said
    assert said["message"] == (
        f"MCP server {url}: initialize: the server sent a reply of more than {limit:,} bytes (134.3 MiB), the most "
        "one reply may hold (a file as large as a skill may be, base64-encoded, plus 1 MiB); refused before it was "
        "parsed. A larger limits.bundle_size raises the limit"
    )
    assert float(said["seconds"]) < 30  # type: ignore[arg-type]
    assert int(said["grew"]) < limit + 96 * MiB < DECLARED // 4, said  # type: ignore[call-overload]
    assert max(sent) < limit + 32 * MiB  # it stopped reading there: the rest was never sent


@pytest.mark.parametrize("kind", ["json", "json-error", "event"])
def test_every_kind_of_reply_is_bounded_by_the_limits_given(kind: str) -> None:
    """A JSON result, a JSON error at an HTTP error status, one server-sent event: each refused at the limit the
    call's `limits` set, before it is parsed."""
    limit = reply_limit(SMALL)
    with hostile_http(kind) as (url, sent):
        said = client(url, SMALL, closed_port())
    assert said["error"] == "RemoteSkillsError", said
    assert f"MCP server {url}: initialize: the server sent a reply of more than {limit:,} bytes" in str(said["message"])
    assert float(said["seconds"]) < 30  # type: ignore[arg-type]
    assert int(said["grew"]) < 64 * MiB, said  # type: ignore[call-overload]
    assert max(sent) < limit + 32 * MiB


def test_a_compressed_reply_is_refused_unread() -> None:
    """Asked for `identity`, a server that compresses anyway is refused before a byte is inflated: a gzip body of a
    few MiB inflates to a GiB."""
    with hostile_http("gzip") as (url, _):
        said = client(url, SMALL, closed_port())
    assert said["error"] == "RemoteSkillsError", said
    assert str(said["message"]).startswith(
        f"MCP server {url}: initialize: the server compressed its reply (Content-Encoding: gzip) though asked for "
        "none (Accept-Encoding: identity); refused unread"
    ), said
    assert int(said["grew"]) < 64 * MiB, said  # type: ignore[call-overload]


ENDLESS = """
import os, sys
open(sys.argv[1], "w").write(str(os.getpid()))
sys.stdin.buffer.readline()
out = sys.stdout.buffer
part = b"a" * (1 << 20)
for _ in range(1024):
    out.write(part)
out.flush()
"""


def test_a_stdio_server_printing_one_endless_line_is_refused_and_stopped(tmp_path: Path) -> None:
    """Over stdio a message is a line: one of 1 GiB is refused once it passes the limit, and the server, still
    writing, is stopped and reaped."""
    pidfile = tmp_path / "pid"
    command = [sys.executable, "-c", ENDLESS, str(pidfile)]
    said = client(command, SMALL, closed_port(), pidfile)
    assert said["error"] == "RemoteSkillsError", said
    shown = f"MCP server `{sys.executable} -c"
    assert str(said["message"]).startswith(shown), said
    assert f"initialize: the server sent a reply of more than {reply_limit(SMALL):,} bytes" in str(said["message"])
    assert float(said["seconds"]) < 30  # type: ignore[arg-type]
    assert int(said["grew"]) < 64 * MiB, said  # type: ignore[call-overload]
    assert said["alive"] is False, "the server outlived the call"
