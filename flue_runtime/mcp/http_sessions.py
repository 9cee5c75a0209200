"""How many sessions `flue-skills mcp --http` keeps, and for whom: a cap, a share per client address, an idle timeout.

The MCP SDK's session manager keeps up to `max_sessions` stateful sessions (10,000 by default) for
`session_idle_timeout` (30 minutes), and answers every new client 503 while it is full: one local process
opening sessions in a loop took the server from everyone for half an hour, and grew it by ~400 MiB
(issue 32.7). A skills server needs far less. Its hosts hold one session each, and what a session carries
(the negotiated protocol, nothing else: the server sends no notifications) costs one `initialize` to make
again. So:

- `SessionLimits.total` (256 by default) caps the sessions kept, passed to the SDK as `max_sessions`;
- `SessionLimits.per_client` (32) caps those opened from one client address, the TCP peer's (uvicorn runs
  without proxy headers, so an `X-Forwarded-For` cannot pose as many clients): one address cannot take the
  server;
- `SessionLimits.idle_timeout` (300 s, the `ttlMs` the server's listings carry: a host reads them again
  after that anyway) ends a session that no request used for that long (passed to the SDK as
  `session_idle_timeout`; an open GET stream, on which this server never sends anything, does not keep a
  session in use).

A new session is not refused while room can be made: at its address's cap, the least recently used idle
session of that address is ended to make room; at the total cap, the least recently used idle session of
the address that holds the most. On loopback every local client shares 127.0.0.1, so a process flooding
the server only ever ends its own sessions, or, under a sustained flood, those of another local client
that sat idle the longest: that client's next request gets 404, and it opens a new session, which is
served (the protocol says a client must, on 404). A session is ended as its client would end it: a DELETE
with its id, sent through the SDK's own app. Only when every session that could make room is answering a
request, or being opened, is a new one refused (503, saying how many of each), and only until one of those
requests ends. A request's body has arrived whole before it comes here (`http_bodies`): one whose body
stalls holds no place.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["SessionLimits", "Sessions"]

_SESSION = b"mcp-session-id"
_VERSION = b"mcp-protocol-version"
#: The headers an eviction's DELETE carries over from the request that needed the room: what the guard checks.
_KEPT = (b"host", b"origin", b"authorization")


@dataclass(frozen=True)
class SessionLimits:
    """What `flue-skills mcp --http` keeps: `total` sessions, `per_client` of them from one client address, each
    until it has been idle for `idle_timeout` seconds."""

    total: int = 256
    per_client: int = 32
    idle_timeout: float = 300.0

    @classmethod
    def of(
        cls, total: int | None = None, per_client: int | None = None, idle_timeout: float | None = None
    ) -> SessionLimits:
        """The limits asked for, the defaults for those not given (`per_client`'s at most `total`)."""
        total = total or cls.total
        return cls(total, per_client or min(cls.per_client, total), idle_timeout or cls.idle_timeout)

    def problem(self) -> str:
        """Why these limits cannot be served ("" when they can)."""
        if self.total < 1 or self.per_client < 1:
            return "session limits must be at least 1"
        if self.per_client > self.total:
            return f"{self.per_client} sessions per client is more than the {self.total} sessions in all"
        if not 0 < self.idle_timeout < float("inf"):
            return "the idle timeout must be a positive number of seconds"
        return ""


@dataclass
class _Kept:
    """A session the SDK keeps: whose it is, when a request last used it, how many requests it is answering."""

    address: str
    used: float
    busy: int = 0


class Sessions:
    """The ASGI app in front of the SDK's streamable HTTP app (behind the guard): it keeps the books of the
    sessions the SDK opens, by client address, and makes room for a new one as the module says."""

    def __init__(
        self, app: ASGIApp, limits: SessionLimits, path: str, clock: Callable[[], float] = time.monotonic
    ) -> None:
        import anyio
        from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

        self.app = app
        self.limits = limits
        self._path = path
        self._clock = clock
        self._handshake = {version.encode() for version in HANDSHAKE_PROTOCOL_VERSIONS}
        self._kept: dict[str, _Kept] = {}
        self._opening: Counter[str] = Counter()
        self._lock = anyio.Lock()

    def count(self, address: str | None = None) -> int:
        """Sessions kept (from `address`)."""
        return sum(1 for kept in self._kept.values() if address is None or kept.address == address)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != self._path:
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        session = headers.get(_SESSION)
        if session is not None:
            await self._in(session.decode("latin-1"), scope, receive, send)
        elif scope["method"] == "POST" and headers.get(_VERSION, b"") in self._handshake | {b""}:
            await self._open(scope, receive, send)
        else:  # (a 2026-07-28 request holds no session; anything else is refused by the SDK)
            await self.app(scope, receive, send)

    async def _in(self, session: str, scope: Scope, receive: Receive, send: Send) -> None:
        """A request of a session: it is in use while the request is answered (a GET stream only when opened)."""
        kept = self._kept.get(session)
        holds = kept is not None and scope["method"] != "GET"
        if kept is not None:
            kept.used = self._clock()
            kept.busy += int(holds)
        status: list[int] = []

        async def watched(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, watched)
        finally:
            if kept is not None:
                kept.busy -= int(holds)
                kept.used = self._clock()
                ended = status == [404] or (scope["method"] == "DELETE" and bool(status) and status[0] < 300)
                if ended and self._kept.get(session) is kept:
                    del self._kept[session]

    async def _open(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A request that may open a session: room made for it first, or 503 when none can be."""
        address = str(scope["client"][0]) if scope.get("client") else ""
        async with self._lock:
            expired = self._expired()
            room = self._room(address, set(expired))
            for session in [*expired, *(room or [])]:
                del self._kept[session]
                await self._end(session, scope)
            if room is not None:
                self._opening[address] += 1
        if room is None:
            await self._full(address, scope, receive, send)
            return
        opened: list[_Kept] = []

        def done_opening() -> None:
            self._opening[address] -= 1
            if not self._opening[address]:
                del self._opening[address]

        async def watched(message: Message) -> None:
            if message["type"] == "http.response.start" and not opened:
                session = dict(message.get("headers", [])).get(_SESSION)
                if message["status"] < 400 and session is not None:  # (counted as kept from now on, not as opening)
                    opened.append(_Kept(address, self._clock(), busy=1))
                    self._kept[session.decode("latin-1")] = opened[0]
                    done_opening()
            await send(message)

        try:
            await self.app(scope, receive, watched)
        finally:
            if opened:
                opened[0].busy -= 1
                opened[0].used = self._clock()
            else:
                done_opening()

    def _expired(self) -> list[str]:
        """Sessions idle for longer than the timeout (the SDK may have ended them already: ending is idempotent)."""
        now = self._clock()
        timeout = self.limits.idle_timeout
        return [session for session, kept in self._kept.items() if not kept.busy and now - kept.used > timeout]

    def _room(self, address: str, expired: set[str]) -> list[str] | None:
        """The session to end so that `address` may open one (none, or one), or None when no room can be made;
        the `expired` sessions are ended anyway, so they leave room and are not counted."""
        left = {session: kept for session, kept in self._kept.items() if session not in expired}
        held = Counter(kept.address for kept in left.values())
        if held[address] + self._opening[address] >= self.limits.per_client:
            pool = [(0, kept.used, session) for session, kept in left.items() if kept.address == address]
        elif len(left) + sum(self._opening.values()) >= self.limits.total:
            pool = [(-held[kept.address], kept.used, session) for session, kept in left.items()]
        else:
            return []
        idle = sorted(entry for entry in pool if not left[entry[2]].busy)
        return [idle[0][2]] if idle else None

    async def _end(self, session: str, scope: Scope) -> None:
        """End `session` as its client would: a DELETE with its id, through the SDK's app (404 if already gone)."""
        headers = [(k, v) for k, v in scope["headers"] if k in _KEPT] + [(_SESSION, session.encode("latin-1"))]
        request = {**scope, "method": "DELETE", "headers": headers, "query_string": b""}
        asked = False

        async def receive() -> Message:
            nonlocal asked
            if asked:
                return {"type": "http.disconnect"}
            asked = True
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: Message) -> None:
            pass

        await self.app(request, receive, send)

    async def _full(self, address: str, scope: Scope, receive: Receive, send: Send) -> None:
        from starlette.responses import Response

        if self.count(address) + self._opening[address] >= self.limits.per_client:
            whose = [kept for kept in self._kept.values() if kept.address == address]
            opening = self._opening[address]
            why = f"all {self.limits.per_client} sessions of this client address are busy"
        else:
            whose, opening = list(self._kept.values()), sum(self._opening.values())
            why = f"all {self.limits.total} sessions are busy"
        answering = sum(1 for kept in whose if kept.busy)
        why += f": {answering} answering a request, {opening} being opened"
        body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32603, "message": f"Too many open sessions: {why}"}}
        response = Response(json.dumps(body), status_code=503, media_type="application/json")
        response.headers["Retry-After"] = "1"
        await response(scope, receive, send)
