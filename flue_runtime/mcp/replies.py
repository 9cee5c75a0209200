"""A remote server's replies, bounded in bytes as they arrive, before anything parses them.

The MCP SDK's client reads a JSON reply whole (`response.aread()`), a stdio line whole, and bounds only a
server-sent event (`max_sse_event_size`); `timeout` bounds time, not bytes, and loopback delivers hundreds of
megabytes in well under a second. So every reply of a remote server is counted here as its bytes arrive:

- over streamable HTTP, through the SDK's own `httpx2` client and its public extension point, a response
  hook: each response's body stream is wrapped by a counter (`_Counted`) before anything reads it, whatever
  its content type and whichever transport or proxy mount carried it. A JSON body (or any other body) is
  counted whole; a server-sent event stream per event (the bytes since the last blank line), since the
  stream stays open for many messages. A reply is asked for uncompressed (`Accept-Encoding: identity`) and a
  compressed one is refused unread: its bytes could inflate past any bound before a counter saw them;
- over stdio, by a transport of our own (`stdio_transport`, the SDK's `Transport` protocol: the SDK's stdio
  client has no hook between the pipe and its parser): each line counted as it is assembled, the server run
  as the SDK runs it (its default environment, a session of its own) and stopped as the SDK stops it (stdin
  closed, then its process group terminated, every wait bounded).

Bytes are not all: parsed, a reply of small JSON values costs many times its bytes in memory (`[0,0,...]` most of
all, in the SDK's pydantic parser). So each reply's JSON values are counted too as it arrives (`Values`: the
`,` `:` `[` `{` outside strings, strings skipped whole), and one holding more than `MAX_VALUES` plus one per
`BYTES_PER_VALUE` bytes is refused the same way; and every message is parsed by the standard library's `json`, whose
objects cost a few times the bytes, then checked by the SDK's models (`parsed_message`: a stdio line here, an HTTP
reply in `mcp.http_replies`; BENCHMARKS.md, "A reply's memory").

Past the limit, `Bound.exceed` ends the session at once: the cancel scopes of the session and of every call
waiting on it are cancelled, so the SDK's tasks stop reading where they are and the call raises
`RemoteSkillsError` naming the server, the request and the limit. What a reply may hold is the largest
file a skill may hold (`Limits.bundle_size`), base64-encoded, plus `REPLY_OVERHEAD` for its envelope: the
`limits` of `remote_skills` set it.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from typing import Any, NoReturn

import anyio
import anyio.lowlevel
import httpx2
import mcp_types as types
from anyio.abc import Process
from mcp import StdioServerParameters
from mcp.client.stdio import get_default_environment
from mcp.shared.message import SessionMessage

from flue_runtime.errors import RemoteSkillsError
from flue_runtime.format.vetting import Limits

__all__ = [
    "BYTES_PER_VALUE",
    "MAX_VALUES",
    "REPLY_OVERHEAD",
    "Bound",
    "Values",
    "count_replies",
    "parsed_message",
    "reply_limit",
    "stdio_transport",
]

#: What one reply may hold beyond a file's base64: the JSON-RPC envelope, or a page of a listing.
REPLY_OVERHEAD = 1024 * 1024
#: JSON values any reply may hold, whatever its size (a handshake, a page of entries); and beyond them, one value
#: per this many bytes of the reply: an honest listing holds fewer, and what a value costs parsed keeps the client
#: within a small multiple of the reply (the measurement: BENCHMARKS.md, "A reply's memory").
MAX_VALUES = 65_536
BYTES_PER_VALUE = 10
#: How long a stdio server may take to exit once its stdin is closed, and then to die once signalled.
_GRACE_S = 2.0
#: An HTTP client's timeouts, as the SDK's transports set them: 30 s to connect, write or wait for the pool, 300 s
#: between two reads of a response (a server may hold an event stream open).
_TIMEOUT = httpx2.Timeout(30.0, read=300.0)


def reply_limit(limits: Limits) -> int:
    """The most bytes one reply may hold: the largest file a skill may hold, base64-encoded, plus `REPLY_OVERHEAD`."""
    return 4 * -(-limits.bundle_size // 3) + REPLY_OVERHEAD


class Bound:
    """The byte limit on one session's replies, and what ends the session when a reply passes it."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        #: None while no reply was refused; then "" (one was too large) or why it was refused otherwise.
        self.refused: str | None = None
        self._scopes: set[anyio.CancelScope] = set()

    @contextmanager
    def waiting(self) -> Iterator[anyio.CancelScope]:
        """A cancel scope that a refused reply cancels: the session's own, or a call waiting on the session."""
        with anyio.CancelScope() as scope:
            self._scopes.add(scope)
            try:
                yield scope
            finally:
                self._scopes.discard(scope)

    async def exceed(self, why: str = "") -> NoReturn:
        """Refuse the reply being read (`why`: not for its size): the session and the calls waiting on it are
        cancelled, which stops the reader here."""
        if self.refused is None:
            self.refused = why
        for scope in list(self._scopes):
            scope.cancel()
        await anyio.lowlevel.checkpoint()
        raise self.error("the server", "a reply")  # (never seen by a caller: the call waiting says why, by `error`)

    def error(self, server: str, what: str) -> RemoteSkillsError:
        """What the call waiting on `what` raises once a reply was refused."""
        if self.refused:
            return RemoteSkillsError(server, f"{what}: {self.refused}")
        return RemoteSkillsError(
            server,
            f"{what}: the server sent a reply of more than {self.limit:,} bytes ({self.limit / 2**20:.1f} MiB), the "
            "most one reply may hold (a file as large as a skill may be, base64-encoded, plus 1 MiB); refused before "
            "it was parsed. A larger limits.bundle_size raises the limit",
        )


# --- streamable HTTP -----------------------------------------------------------------------------


def count_replies(headers: dict[str, str] | None, bound: Bound) -> httpx2.AsyncClient:
    """An `httpx2` client for the SDK's streamable HTTP transport, sending `headers` with every request, with every
    response body counted by `bound` as it arrives, and replies asked for uncompressed. Its timeouts are the SDK's
    own transports' (`_TIMEOUT`); every request of ours is bounded by its deadline besides."""
    client = httpx2.AsyncClient(headers=headers, timeout=_TIMEOUT)
    client.headers["Accept-Encoding"] = "identity"

    async def counted(response: httpx2.Response) -> None:
        response.stream = _Counted(response, bound)

    client.event_hooks["response"].append(counted)
    return client


class Values:
    """The JSON values of one reply, counted as its bytes arrive: each `,` `:` `[` `{` outside a string (a string's
    contents skipped whole, escapes and all, wherever a chunk ends). `over()` once the reply holds more than its size
    allows (`MAX_VALUES`, `BYTES_PER_VALUE`)."""

    _STRING = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*', re.DOTALL)  # a string's contents, up to its closing quote

    def __init__(self) -> None:
        self.count = 0
        self.bytes = 0
        self._in_string = False
        self._escaped = False

    def feed(self, chunk: bytes) -> None:
        self.bytes += len(chunk)
        at, end = 0, len(chunk)
        while at < end:
            if self._in_string:
                if self._escaped:  # (a backslash ended the last chunk: this byte is the escaped one)
                    self._escaped, at = False, at + 1
                    continue
                found = self._STRING.match(chunk, at)
                at = found.end() if found else at
                if at < end and chunk[at] == 0x22:  # the closing quote
                    self._in_string, at = False, at + 1
                elif at < end:  # a backslash, the chunk's last byte
                    self._escaped, at = True, end
                continue
            quote = chunk.find(b'"', at)
            stop = end if quote < 0 else quote
            self.count += sum(chunk.count(mark, at, stop) for mark in (b",", b":", b"[", b"{"))
            if quote < 0:
                break
            self._in_string, at = True, quote + 1

    def over(self) -> bool:
        return self.count > MAX_VALUES + self.bytes // BYTES_PER_VALUE

    def said(self) -> str:
        """Why a reply was refused for its values."""
        return (
            f"the server sent a reply holding more than {self.count:,} JSON values in {self.bytes:,} bytes, more "
            f"than a reply of its size may hold ({MAX_VALUES:,}, and one per {BYTES_PER_VALUE} bytes: parsed, so "
            "many values would cost the client many times the reply's size); refused before it was parsed"
        )


class _Counted(httpx2.AsyncByteStream):
    """A response's body as it arrives, counted: whole, or per server-sent event; a compressed body refused."""

    def __init__(self, response: httpx2.Response, bound: Bound) -> None:
        stream = response.stream
        assert isinstance(stream, httpx2.AsyncByteStream)
        self._stream = stream
        self._bound = bound
        kind = response.headers.get("content-type", "").partition(";")[0].strip().lower()
        self._events = kind == "text/event-stream"
        coding = [c.strip().lower() for c in response.headers.get_list("content-encoding", split_commas=True)]
        self._compressed = ", ".join(c for c in coding if c not in ("", "identity"))

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self._compressed:
            await self._bound.exceed(
                f"the server compressed its reply (Content-Encoding: {self._compressed[:40]}) though asked for "
                "none (Accept-Encoding: identity); refused unread, since compressed bytes could inflate past any bound"
            )
        count, last, values = 0, b"", Values()
        async for chunk in self._stream:
            if self._events:
                before, count = count, _since_blank_line(count, last, chunk)
                last = chunk[-1:] or last
                if count < before + len(chunk):  # a new event began in this chunk: its values alone count
                    values = Values()
                    chunk_values = chunk[len(chunk) - count :]
                else:
                    chunk_values = chunk
            else:
                count += len(chunk)
                chunk_values = chunk
            if count > self._bound.limit:
                await self._bound.exceed()
            values.feed(chunk_values)
            if values.over():
                await self._bound.exceed(values.said())
            yield chunk

    async def aclose(self) -> None:
        await self._stream.aclose()


def _since_blank_line(count: int, last: bytes, chunk: bytes) -> int:
    """Bytes of the event being read after `chunk`: `count` were before it, `last` is the byte that preceded it.

    An event ends at a blank line: two line ends in a row, any of CR, LF, CRLF. Every such pair holds `\\n\\n`,
    `\\r\\r` or `\\n\\r` (LF then CRLF, CRLF then CR...), and none of those is ever one line end alone."""
    joined = last + chunk
    end = max(joined.rfind(b"\n\n"), joined.rfind(b"\r\r"), joined.rfind(b"\n\r"))
    return count + len(chunk) if end < 0 else len(joined) - end - 2


# --- stdio ---------------------------------------------------------------------------------------


@asynccontextmanager
async def stdio_transport(
    server: StdioServerParameters, bound: Bound
) -> AsyncIterator[tuple[Any, Any]]:  # (the SDK's `TransportStreams`)
    """The server run as a child process speaking newline-delimited JSON-RPC, as the SDK's `stdio_client` runs it,
    with each line bounded by `bound` as it is assembled from the pipe."""
    process = await anyio.open_process(
        [server.command, *server.args],
        env=get_default_environment() | (server.env or {}),
        stderr=sys.stderr,
        cwd=server.cwd,
        start_new_session=True,  # (its process group is stopped at the end, whatever it started)
    )
    to_session, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_server, from_session = anyio.create_memory_object_stream[SessionMessage](0)

    async def read() -> None:
        assert process.stdout is not None
        line, values = bytearray(), Values()
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
            async with to_session:
                async for chunk in process.stdout:
                    start = 0
                    while (end := chunk.find(b"\n", start)) >= 0:
                        line += chunk[start:end]
                        values.feed(chunk[start:end])
                        start = end + 1
                        if len(line) > bound.limit:
                            await bound.exceed()
                        if values.over():
                            await bound.exceed(values.said())
                        message = _message(line, server)
                        values = Values()
                        await to_session.send(message)
                    line += chunk[start:]
                    values.feed(chunk[start:])
                    if len(line) > bound.limit:
                        await bound.exceed()
                    if values.over():
                        await bound.exceed(values.said())

    async def write() -> None:
        assert process.stdin is not None
        try:
            async with from_session:
                async for message in from_session:
                    text = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                    await process.stdin.send(text.encode(server.encoding, server.encoding_error_handler))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await to_session.aclose()  # the server is gone: the session sees the connection end

    async with anyio.create_task_group() as group:
        group.start_soon(read)
        group.start_soon(write)
        try:
            yield from_server, to_server
        finally:
            with anyio.CancelScope(shield=True):
                await _stop(process, 0 if bound.refused is not None else _GRACE_S)  # (no grace for a hostile one)
                for stream in (from_server, to_server, to_session, from_session):
                    await stream.aclose()
            group.cancel_scope.cancel()


def _message(line: bytearray, server: StdioServerParameters) -> SessionMessage | Exception:
    """One line as a message, or the error the session reports (as the SDK's client does); the line emptied once
    decoded, so that its bytes are not held while its text is parsed."""
    try:
        text = line.decode(server.encoding, server.encoding_error_handler)
    except ValueError as exc:
        return exc
    finally:
        line.clear()
    return parsed_message(text)


def parsed_message(text: str) -> SessionMessage | Exception:
    """One JSON-RPC message's text as a message, or the parse error the session reports (as the SDK's clients do).
    Parsed by the standard library, whose objects cost a small multiple of the bytes where pydantic's JSON parser
    costs many times more (BENCHMARKS.md, "A reply's memory"), then checked by the SDK's models, which keep what they
    do not type as it is."""
    try:
        parsed = json.loads(text, parse_constant=_not_json)
        return SessionMessage(types.jsonrpc_message_adapter.validate_python(parsed, by_name=False))
    except (ValueError, RecursionError) as exc:  # (json's and pydantic's errors, too deep)
        return exc if isinstance(exc, ValueError) else ValueError(f"a message nested too deep: {exc}")


def _not_json(constant: str) -> NoReturn:
    """`NaN` and `Infinity` are no JSON: refused, as the SDK's parser refuses them."""
    raise ValueError(f"{constant} is not JSON")


async def _stop(process: Process, grace: float) -> None:
    """Stop the server as the MCP lifecycle says: close its stdin, wait `grace` seconds, then end its whole process
    group; every wait bounded, and never `wait()` (it also waits for the pipes, which a leftover child may hold)."""
    assert process.stdin is not None and process.stdout is not None
    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdin.aclose()
    if not await _exited(process, grace):
        await _end_group(process)
        await _exited(process, _GRACE_S)
    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdout.aclose()


async def _end_group(process: Process) -> None:
    """SIGTERM to the server's process group (a session of its own: its pid is the group's id, even once it is
    reaped), then, if a member is left after `_GRACE_S`, SIGKILL: whatever the server started ends with it. (The
    SDK's stdio client does the same inside, through a module that is not part of its public API.)"""
    for sent in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sent)
        except ProcessLookupError:
            return  # the whole group is gone
        except PermissionError:
            pass  # (a member that cannot be signalled, or not yet reaped: wait, then go on)
        with anyio.move_on_after(_GRACE_S):
            while _group_alive(process):
                await anyio.sleep(0.01)
            return


def _group_alive(process: Process) -> bool:
    """Whether any process of the server's group is left (signal 0 probes it; only "no such process" says no)."""
    _ = process.returncode  # (reads the leader's status: a zombie leader would keep the group alive)
    try:
        os.killpg(process.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


async def _exited(process: Process, seconds: float) -> bool:
    with anyio.move_on_after(seconds):
        while process.returncode is None:
            await anyio.sleep(0.01)
    return process.returncode is not None
