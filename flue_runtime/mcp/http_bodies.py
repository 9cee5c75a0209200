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
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["BODY_TIMEOUT", "OPENING_TIMEOUT", "Bodies"]

#: Seconds a request's body may take to arrive (`--body-timeout`).
BODY_TIMEOUT = 10.0
#: ... and a request outside any session's, such as the `initialize` that opens one.
OPENING_TIMEOUT = 2.0
_SESSION = b"mcp-session-id"


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
        await self.app(scope, _again(body, receive), send)


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
