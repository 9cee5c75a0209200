"""How long a request to `flue-skills mcp --http` may take to send its body: a bound, then 408.

The MCP SDK reads a request's body when it handles the request, for as long as the body takes, and the books
of the sessions (`http_sessions`) count a request as answering (or opening a session) from the moment it
comes: 32 connections that sent their headers and 10 of 200 announced bytes held every session place of
127.0.0.1, and every local client got 503 for as long as they stayed open (issue 41). So the body is read
here, whole, before anything behind this app sees the request:

- within `timeout` seconds (`BODY_TIMEOUT` by default, `--body-timeout`), or `opening` seconds
  (`OPENING_TIMEOUT`, at most `timeout`) for a request outside any session: the `initialize` that opens one
  is a few hundred bytes sent with its headers, and anyone can send it;
- past the bound the request gets 408 with `Connection: close`, and never reaches the sessions or the SDK;
  a client that leaves first gets nothing.

A request holds no place among the sessions while its body arrives, so a stalled body costs its connection
only, and only for the bound; a body that arrives in pieces within it is served as if it came at once.

The reply is bounded the same way, from the other side: a session answering a request is never ended, and a client
that asked for a large file and read none of the reply kept its session answering for as long as its connection
stayed open (three such requests held an address's three places). The reply is sent in pieces of `PIECE` bytes,
each of which must leave within `timeout`: a client that takes nothing for that long gets no more, its connection
is closed (uvicorn closes a response its app left unfinished; `quiet_cut_replies` keeps uvicorn from calling that
an error) and its session answers again. A slow reader that keeps taking is served whole.
"""

from __future__ import annotations

import json
import logging
from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["BODY_TIMEOUT", "OPENING_TIMEOUT", "PIECE", "Bodies", "quiet_cut_replies"]

#: Seconds a request's body may take to arrive (`--body-timeout`).
BODY_TIMEOUT = 10.0
#: ... and a request outside any session's, such as the `initialize` that opens one.
OPENING_TIMEOUT = 2.0
#: The most of a reply sent at once: each piece must leave within the bound (a whole 8 MiB reply at a slow reader's
#: pace would not, though the reader never stops).
PIECE = 64 << 10
_SESSION = b"mcp-session-id"
#: Whether this request's reply was cut off (read by uvicorn's logger in the request's own task, after the app).
_CUT: ContextVar[bool] = ContextVar("flue_reply_cut", default=False)
_UNFINISHED = "ASGI callable returned without completing response."


class Bodies:
    """The ASGI app behind the guard: each request's body read whole within its bound before `app` sees it."""

    def __init__(self, app: ASGIApp, timeout: float = BODY_TIMEOUT, opening: float = OPENING_TIMEOUT) -> None:
        self.app = app
        self.timeout = timeout
        self.opening = min(opening, timeout)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        import anyio

        bound = self.timeout if any(name == _SESSION for name, _ in scope["headers"]) else self.opening
        messages: list[Message] = []
        with anyio.move_on_after(bound):
            while not messages or messages[-1].get("more_body", False):
                message = await receive()
                if message["type"] != "http.request":
                    return  # the client left before its request was whole: nobody to answer
                messages.append(message)
        if not messages or messages[-1].get("more_body", False):
            await _too_slow(bound, scope, receive, send)
            return
        body = b"".join(message.get("body", b"") for message in messages)
        replying = _Replying(send, self.timeout)
        await self.app(scope, _again(body, receive), replying)
        if replying.cut:
            _CUT.set(True)


class _Replying:
    """A `send` whose every piece must leave within `timeout`; past it, it sends nothing more (`cut`)."""

    def __init__(self, send: Send, timeout: float) -> None:
        self.send = send
        self.timeout = timeout
        self.cut = False

    async def __call__(self, message: Message) -> None:
        import anyio

        for piece in _pieces(message):
            if self.cut:
                return
            with anyio.move_on_after(self.timeout) as bound:
                await self.send(piece)
            self.cut = bound.cancelled_caught


def _pieces(message: Message) -> list[Message]:
    """A body message of more than `PIECE` bytes as several, the last saying what it said of more to come."""
    body = message.get("body", b"")
    if message["type"] != "http.response.body" or len(body) <= PIECE:
        return [message]
    last = message.get("more_body", False)
    starts = range(0, len(body), PIECE)
    return [
        {"type": "http.response.body", "body": body[at : at + PIECE], "more_body": at + PIECE < len(body) or last}
        for at in starts
    ]


def quiet_cut_replies() -> None:
    """uvicorn's error line for a reply its app left unfinished, dropped for the replies cut off here (they are not
    errors of ours); any other app's unfinished reply is still logged. Once per process, however often called."""
    logging.getLogger("uvicorn.error").addFilter(_not_cut)


def _not_cut(record: logging.LogRecord) -> bool:
    return not (_CUT.get() and record.msg == _UNFINISHED)


def _again(body: bytes, receive: Receive) -> Receive:
    """A `receive` that gives the whole body first, then what the connection says next (its end)."""
    given = False

    async def receiving() -> Message:
        nonlocal given
        if given:
            return await receive()
        given = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receiving


async def _too_slow(bound: float, scope: Scope, receive: Receive, send: Send) -> None:
    from starlette.responses import Response

    message = f"Request Timeout: the request's body did not arrive within {bound:g} seconds"
    body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}
    response = Response(json.dumps(body), status_code=408, media_type="application/json")
    response.headers["Connection"] = "close"  # (the rest of the body may still come: this connection is done)
    await response(scope, receive, send)
