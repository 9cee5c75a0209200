"""The connection to a remote Skills server: what to connect to (an `http(s)://` URL over streamable HTTP, or a
command run as a child process speaking stdio), how messages name it, its `server_identity`, and one MCP client
session with it, owned by an event loop in a daemon thread.

The connection outlives the call that made it, because support files are read later: it is opened again on demand
when the server went away (a stdio server that exited, an HTTP session that ended), and closed by
`RemoteSkills.close()` (or leaving its `with` block), or when the interpreter exits. Closing a stdio connection
stops the server process and reaps it.

Every reply of the server is bounded in bytes before it is parsed (`mcp.replies`: a counter on each HTTP body
and server-sent event, a bounded reader of stdio lines); one past the limit ends the session at once. Each message
is parsed by the standard library's `json`, the SDK's HTTP transport handed stand-ins (`mcp.http_replies`).
"""

from __future__ import annotations

import atexit
import base64
import binascii
import hashlib
import json
import math
import shlex
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import AsyncExitStack, ExitStack
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

import anyio
import anyio.from_thread
import mcp_types as types
from anyio.abc import TaskStatus
from mcp import Client, StdioServerParameters
from mcp.client import advertise
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import CONNECTION_CLOSED
from pydantic import ValidationError

from flue_runtime.errors import RemoteSkillsError, SkillVerificationError
from flue_runtime.format.diagnostics import printable
from flue_runtime.format.vetting import Limits
from flue_runtime.mcp.contents import Kept
from flue_runtime.mcp.entries import EXTENSION_ID
from flue_runtime.mcp.http_replies import parsed_http_transport
from flue_runtime.mcp.replies import Bound, count_replies, reply_limit, stdio_transport

__all__ = ["SHOWN", "Closed", "Connection", "Refused", "Target", "server_identity", "server_of"]

T = TypeVar("T")
Target = str | Sequence[str] | StdioServerParameters
#: How much of a command or URL a message shows.
SHOWN = 200


class Closed(Exception):
    """The session ended under a request (the server exited, the HTTP session is gone): connect again."""


class Refused(Exception):
    """The server answered a request with an error (the caller says what that means): its `code`."""

    def __init__(self, text: str, code: int | None = None) -> None:
        super().__init__(text)
        self.code = code


class Connection:
    """One MCP client session with the server, owned by an event loop in a daemon thread; thread-safe.

    Requests come from any thread (the harness reads files from worker threads) and run on the loop, each
    bounded by a deadline. The session is opened at the first request, and again when the server went away;
    `close()` ends it for good, `drop()` until the next request.
    """

    def __init__(
        self,
        server: str | StdioServerParameters,
        shown: str,
        timeout: float,
        headers: Mapping[str, str] | None,
        limits: Limits,
    ) -> None:
        self.shown = shown
        self._limits = limits
        self.timeout = timeout
        self._server = server
        self._headers = dict(headers) if headers else None
        self._lock = threading.Lock()
        self._portal: anyio.from_thread.BlockingPortal | None = None
        self._stack = ExitStack()
        self._held: Session | None = None
        self._closed = False
        self._http_status = ""
        self.identity = server_identity(server)
        #: Files read and verified, for the next read of them (SEP-2640: hosts SHOULD cache verified content).
        self.verified = Kept()  # what was read from the server and verified, by URI and digest

    def call(self, what: str, request: Callable[[Client], Awaitable[T]], deadline: float | None = None) -> T:
        """`request(client)` on the loop, answered before `deadline` (`timeout` from now when None)."""
        if deadline is None:
            deadline = time.monotonic() + self.timeout
        session = self._session(deadline)
        try:
            return self._run(what, session, request, deadline)
        except Closed:
            self._forget(session)
            session = self._session(deadline)
            try:
                return self._run(what, session, request, deadline)
            except Closed:
                self._forget(session)
                raise RemoteSkillsError(self.shown, f"{what}: the server closed the connection") from None

    def read(self, skill: str, uri: str, size: int) -> bytes:
        """The bytes of resource `uri`, of which the entry lists `size`: more than that is refused before the
        content is decoded. A refusal by the server, or content other than the entry's, is about this skill
        only: a `SkillVerificationError`, as every mismatch with the entry is."""

        async def request(client: Client) -> types.ReadResourceResult:
            return await client.read_resource(uri)

        try:
            result = self.call(f"resources/read {uri}", request)
        except Refused as refused:
            raise SkillVerificationError(skill, uri, f"the server refused to serve it: {refused}") from None
        contents = result.contents
        if len(contents) != 1 or contents[0].uri != uri:
            got = [c.uri for c in contents][:3]
            raise SkillVerificationError(skill, uri, f"the server sent {got!r} for it, not exactly that one file")
        [content] = contents
        if isinstance(content, types.TextResourceContents):
            if len(content.text) > size:  # (a character is at least one byte)
                raise SkillVerificationError(skill, uri, f"the server sent more than the {size:,} bytes listed")
            return content.text.encode("utf-8", "surrogatepass")
        if len(content.blob) > 4 * -(-size // 3):
            raise SkillVerificationError(skill, uri, f"the server sent more than the {size:,} bytes listed")
        try:
            return base64.b64decode(content.blob, validate=True)
        except (binascii.Error, ValueError):
            raise SkillVerificationError(skill, uri, "the server sent a blob that is not base64") from None

    def drop(self) -> None:
        """End the session for now; the next request opens another."""
        with self._lock:
            held, self._held = self._held, None
        if held is not None:
            self._stop(held)

    def close(self) -> None:
        """End the session and the loop's thread for good: later requests are refused."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            held, self._held = self._held, None
        self.verified.clear()  # (a read after close is refused, as before: nothing served from memory)
        atexit.unregister(self.close)
        if held is not None:
            self._stop(held)
        try:
            self._stack.close()
        except RuntimeError:
            pass  # (the loop already ended: nothing left to stop)

    # -- inside --

    def _session(self, deadline: float) -> Session:
        with self._lock:
            if self._closed:
                raise RemoteSkillsError(
                    self.shown, "the connection was closed (RemoteSkills.close()); call remote_skills() again"
                )
            if self._held is None:
                self._held = self._connect(deadline)
            return self._held

    def _connect(self, deadline: float) -> Session:
        if self._portal is None:
            self._portal = self._stack.enter_context(anyio.from_thread.start_blocking_portal(name="flue-mcp-client"))
            atexit.register(self.close)
        seconds = deadline - time.monotonic()
        if seconds <= 0:
            raise RemoteSkillsError(self.shown, f"no time left to connect within {self.timeout:g} s")
        bound = Bound(reply_limit(self._limits))
        try:
            future, (client, stop) = self._portal.start_task(self._hold, seconds, bound)
        except Exception as exc:
            failure = _leaf(exc)
            if bound.refused is not None:
                raise bound.error(self.shown, "initialize") from None
            if isinstance(failure, RemoteSkillsError):
                raise failure from None
            if isinstance(failure, TimeoutError):
                raise RemoteSkillsError(self.shown, f"no answer within {self.timeout:g} s while connecting") from None
            if isinstance(failure, MCPError) and failure.error.code == CONNECTION_CLOSED:
                said = "; it says why on its standard error" if isinstance(self._server, StdioServerParameters) else ""
                raise RemoteSkillsError(
                    self.shown, f"the server closed the connection before it answered{said}"
                ) from None
            raise RemoteSkillsError(self.shown, f"cannot connect: {_failure(failure)}{self._http_status}") from None
        return Session(client, stop, future, bound)

    async def _hold(self, seconds: float, bound: Bound, *, task_status: TaskStatus[tuple[Client, anyio.Event]]) -> None:
        """The session, open from its handshake until `stop` is set; the handshake bounded by `seconds`, every reply
        by `bound` (a reply past it cancels the session's scope: everything the session runs stops there)."""
        stop = anyio.Event()
        with bound.waiting() as scope:
            scope.deadline = anyio.current_time() + seconds
            async with AsyncExitStack() as stack:
                client = await stack.enter_async_context(self._new_client(stack, bound))
                offered = client.server_capabilities.extensions or {}
                if EXTENSION_ID not in offered:
                    raise RemoteSkillsError(
                        self.shown,
                        f"the server does not offer the Skills extension ({EXTENSION_ID}): it serves no skills "
                        "a host can verify",
                    )
                scope.deadline = math.inf
                task_status.started((client, stop))
                await stop.wait()
        if bound.refused is not None:
            raise bound.error(self.shown, "initialize")
        if scope.cancelled_caught and not stop.is_set():
            raise TimeoutError

    def _new_client(self, stack: AsyncExitStack, bound: Bound) -> Client:
        extensions = [advertise(EXTENSION_ID)]
        if isinstance(self._server, StdioServerParameters):
            if sys.platform == "win32":  # (the SDK's own, with its Windows job objects: lines not bounded there)
                return Client(self._server, cache=None, extensions=extensions)
            return Client(stdio_transport(self._server, bound), cache=None, extensions=extensions)
        http = count_replies(self._headers, bound)
        stack.push_async_callback(http.aclose)
        http.event_hooks["response"].append(self._note_status)
        # Each event is counted by `bound` before any parser sees it, the SDK's seeing only what `mcp.http_replies`
        # writes back: its own bound is left above ours (a byte it cannot decode grows to three), never to trip first.
        transport = parsed_http_transport(self._server, http, max_sse_event_size=3 * bound.limit + 16)
        return Client(transport, cache=None, extensions=extensions)

    async def _note_status(self, response: Any) -> None:
        """The last HTTP error status, for messages (the SDK's error says only that there was one)."""
        if response.status_code >= 400:
            self._http_status = f" (HTTP {response.status_code} {response.reason_phrase})"

    def _run(self, what: str, session: Session, request: Callable[[Client], Awaitable[T]], deadline: float) -> T:
        assert self._portal is not None
        seconds = deadline - time.monotonic()

        async def bounded() -> T:
            with session.bound.waiting():
                with anyio.fail_after(max(seconds, 0)):
                    return await request(session.client)
            raise Closed  # (cancelled by a reply refused for its bytes: said below)

        self._http_status = ""
        try:
            return self._portal.call(bounded)
        except Exception as exc:
            if session.bound.refused is None:
                raise self._meaning(what, exc) from None
        self._forget(session)  # (its tasks were cancelled where they read: no use for another request)
        raise session.bound.error(self.shown, what)

    def _meaning(self, what: str, exc: Exception) -> Exception:
        """What a request's failure means: `Closed` (connect again), `Refused` (the server said no) or a
        `RemoteSkillsError`."""
        if isinstance(exc, TimeoutError):
            return RemoteSkillsError(self.shown, f"{what}: no answer within {self.timeout:g} s")
        if isinstance(exc, MCPError):
            if exc.error.code == CONNECTION_CLOSED:
                return Closed()
            return Refused(printable(f"error {exc.error.code}: {exc}{self._http_status}", SHOWN), exc.error.code)
        if isinstance(exc, (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream)):
            return Closed()
        if isinstance(exc, ValidationError):
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "the result"
            return RemoteSkillsError(self.shown, f"{what}: a malformed answer: {where}: {first['msg']}")
        if isinstance(exc, (Closed, Refused, RemoteSkillsError)):
            return exc
        return RemoteSkillsError(self.shown, f"{what}: {_failure(exc)}{self._http_status}")

    def _forget(self, session: Session) -> None:
        with self._lock:
            held = self._held if self._held is session else None
            if held is not None:
                self._held = None
        if held is not None:
            self._stop(held)

    def _stop(self, held: Session) -> None:
        """Let the session's task leave its `async with` (a stdio server is stopped and reaped), bounded."""
        if self._portal is None:
            return
        try:
            self._portal.call(held.stop.set)
            held.future.result(timeout=self.timeout)
        except (FutureTimeout, RuntimeError):
            pass  # the loop is stopping anyway: its cancellation stops what is left
        except Exception:  # noqa: S110  (how the old session ended no longer matters)
            pass


@dataclass(frozen=True)
class Session:
    """A session with the server: its client, what ends it, the task holding it, the bound on its replies."""

    client: Client
    stop: anyio.Event
    future: Future[None]
    bound: Bound


# --- targets ------------------------------------------------------------------------------------


def server_identity(server: str | StdioServerParameters) -> str:
    """A short key of the server (`mcp-` and 16 hex digits of a SHA-256): of an URL without its user and password
    (scheme and host lowercased), of a command with its arguments, working directory and environment. Two servers
    differ in it, so no path where their skills' files are materialized is shared (SEP-2640)."""
    if isinstance(server, str):
        parts = urlsplit(server)
        host = (parts.hostname or "") + (f":{parts.port}" if parts.port else "")
        said: object = ["url", parts.scheme.lower(), host, parts.path, parts.query]
    else:
        env = sorted(server.env.items()) if server.env else None
        said = ["stdio", server.command, list(server.args), str(server.cwd) if server.cwd else None, env]
    digest = hashlib.sha256(json.dumps(said, ensure_ascii=False).encode("utf-8", "surrogatepass")).hexdigest()
    return "mcp-" + digest[:16]


def server_of(target: Target, headers: Mapping[str, str] | None) -> tuple[str | StdioServerParameters, str]:
    """What to connect to, and how messages name it (an URL without its credentials or query)."""
    if isinstance(target, str):
        parts = urlsplit(target)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise RemoteSkillsError(
                printable(f"MCP server {target!r}", SHOWN),
                "a target is an http(s):// URL, a command as a list of strings, or StdioServerParameters",
            )
        host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
        port = f":{parts.port}" if parts.port else ""
        return target, printable(f"MCP server {parts.scheme}://{host}{port}{parts.path}", SHOWN)
    if headers:
        raise RemoteSkillsError(printable(f"MCP server {target!r}", SHOWN), "headers= go with an http(s):// URL only")
    if isinstance(target, StdioServerParameters):
        return target, printable(f"MCP server `{shlex.join([target.command, *target.args])}`", SHOWN)
    if isinstance(target, Sequence) and target and all(isinstance(part, str) for part in target):
        command = list(target)
        return StdioServerParameters(command=command[0], args=command[1:]), printable(
            f"MCP server `{shlex.join(command)}`", SHOWN
        )
    raise RemoteSkillsError(
        printable(f"MCP server {target!r}", SHOWN),
        "a target is an http(s):// URL, a command as a non-empty list of strings, or StdioServerParameters",
    )


def _leaf(exc: BaseException) -> BaseException:
    """The first exception of a group (a task group's), or `exc`."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _failure(exc: BaseException) -> str:
    """An exception in a few words."""
    exc = _leaf(exc)
    text = str(exc) or type(exc).__name__
    return printable(f"{type(exc).__name__}: {text}" if not text.startswith(type(exc).__name__) else text, SHOWN)
