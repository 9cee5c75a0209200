"""A streamable-HTTP server's messages, parsed by the standard library before the SDK's transport sees them.

The SDK's streamable-HTTP client parses each message with pydantic's `validate_json`, which costs many times a
reply's bytes in memory, an honest listing's most of all, beyond the few times the issue allows (BENCHMARKS.md,
"A reply's memory"); and it offers no way to parse otherwise. So its transport is kept whole (sessions, headers,
redirects, reconnection, cancellation, server-sent events and JSON bodies) and only what it parses changes. A
response hook, after the one that counts each reply (`replies.count_replies`), parses each JSON body and each
message event's data with `replies.parsed_message` (the standard library's `json`, then the SDK's models, as over
stdio), holds the message under a fresh token, and hands the SDK a stand-in of a few bytes: a message of the same
kind and id, carrying the token. The transport's read stream swaps each stand-in back for the message held
(`_Swapped`) before the session sees it. A reply that does not parse becomes a stand-in that does not either, so
the SDK answers it as it answers any malformed reply.

An event stream is read by `httpx2`'s own parser (the one the SDK reads it with) and written back event by event,
its type, id and retry as they were: what the SDK reads is the same events.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import TracebackType
from typing import Any

import anyio
import httpx2
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.message import SessionMessage
from mcp_types import ErrorData, JSONRPCError, JSONRPCMessage, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

from flue_runtime.mcp.replies import parsed_message

__all__ = ["parsed_http_transport"]

#: The key under which a stand-in carries its token, and a stand-in request's or notification's method.
_TOKEN = "io.github.flue-skills/parsed"
_METHOD = "flue-skills/stand-in"
#: The stand-in for a reply that is no JSON-RPC message: no JSON either, so the SDK refuses it as malformed.
_UNPARSED = b"(not a JSON-RPC message)"


@asynccontextmanager
async def parsed_http_transport(
    url: str, http: httpx2.AsyncClient, max_sse_event_size: int
) -> AsyncIterator[tuple[Any, Any]]:  # (the SDK's `TransportStreams`)
    """The SDK's streamable-HTTP transport over `http` (whose replies are counted already), each message of its
    replies parsed here and handed to the SDK as a stand-in, swapped back on the transport's read stream."""
    held = Held()

    async def parse(response: httpx2.Response) -> None:
        response.stream = _StandIns(response, held)

    http.event_hooks["response"].append(parse)
    async with streamable_http_client(url, http_client=http, max_sse_event_size=max_sse_event_size) as (read, write):
        yield _Swapped(read, held), write


class Held:
    """The messages parsed from one session's replies, each until the SDK's transport passes on its stand-in."""

    def __init__(self) -> None:
        self._messages: dict[str, SessionMessage] = {}

    def stand_in(self, text: str | None, *, errors_only: bool = False) -> bytes:
        """The stand-in for `text`, one JSON-RPC message (None: text that did not decode), the message held until
        the SDK passes the stand-in on; `_UNPARSED` when it is no message, or (`errors_only`) no error: all the
        SDK takes from a body of an HTTP error, so nothing else is held for it."""
        message = parsed_message(text) if text is not None else None
        if not isinstance(message, SessionMessage) or (errors_only and not isinstance(message.message, JSONRPCError)):
            return _UNPARSED
        token = secrets.token_hex(16)
        self._messages[token] = message
        return json.dumps(_stand_in(message.message, token), separators=(",", ":")).encode()

    def swap(self, item: SessionMessage | Exception) -> SessionMessage | Exception:
        """The message `item` stands in for, with the id the SDK gave it (it answers the request the SDK sent);
        `item` itself when it stands for none."""
        if not isinstance(item, SessionMessage):
            return item
        token = _token_of(item.message)
        message = self._messages.pop(token, None) if token is not None else None
        if message is None:
            return item
        answer, stand_in = message.message, item.message
        if isinstance(answer, JSONRPCResponse | JSONRPCError) and isinstance(stand_in, JSONRPCResponse | JSONRPCError):
            answer.id = stand_in.id
        return message


def _stand_in(message: JSONRPCMessage, token: str) -> dict[str, Any]:
    """A message of `message`'s kind and id, carrying `token` where its content was."""
    carried = {_TOKEN: token}
    if isinstance(message, JSONRPCResponse):
        return {"jsonrpc": "2.0", "id": message.id, "result": carried}
    if isinstance(message, JSONRPCError):
        return {
            "jsonrpc": "2.0",
            "id": message.id,
            "error": {"code": message.error.code, "message": "", "data": carried},
        }
    if isinstance(message, JSONRPCRequest):
        return {"jsonrpc": "2.0", "id": message.id, "method": _METHOD, "params": carried}
    return {"jsonrpc": "2.0", "method": _METHOD, "params": carried}


def _token_of(message: JSONRPCMessage) -> str | None:
    """The token a stand-in carries, or None."""
    carried: object = None
    match message:
        case JSONRPCResponse(result=carried) | JSONRPCError(error=ErrorData(data=carried)):
            pass
        case JSONRPCRequest(params=carried) | JSONRPCNotification(params=carried):
            pass
    if isinstance(carried, dict) and len(carried) == 1 and isinstance(token := carried.get(_TOKEN), str):
        return token
    return None


class _StandIns(httpx2.AsyncByteStream):
    """A response's body as the SDK reads it: a JSON body (read whole, as the SDK reads it), or each message event of
    an event stream, as its stand-in; any other body as it came."""

    def __init__(self, response: httpx2.Response, held: Held) -> None:
        stream = response.stream
        assert isinstance(stream, httpx2.AsyncByteStream)
        self._stream = stream
        self._held = held
        self._response = response
        kind = response.headers.get("content-type", "")
        self._json = kind.lower().startswith("application/json")  # (as the SDK tells a JSON body)
        self._events = kind.partition(";")[0].strip().lower() == "text/event-stream"  # (as `httpx2.EventSource` does)
        if self._events:
            response.encoding = "utf-8"  # (what the SDK decodes: the events written back below)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self._events:
            async for event in httpx2.EventSource(self._as_received(), max_event_size=None):  # (counted already)
                yield _written(event, self._held)
        elif self._json:
            yield self._held.stand_in(await self._text(), errors_only=self._response.status_code >= 400)
        else:
            async for chunk in self._stream:
                yield chunk

    async def aclose(self) -> None:
        await self._stream.aclose()

    def _as_received(self) -> httpx2.Response:
        """The response as it came, for `httpx2.EventSource` to read (in the charset it declares, as the SDK did)."""
        response = self._response
        return httpx2.Response(
            response.status_code, headers=response.headers, stream=self._stream, request=response.request
        )

    async def _text(self) -> str | None:
        """The whole body as UTF-8 (what the SDK's parser takes it for), or None when it is not."""
        body = bytearray()
        async for chunk in self._stream:
            body += chunk
        try:
            return body.decode("utf-8")
        except UnicodeDecodeError:
            return None
        finally:
            body.clear()  # (freed before the text is parsed)


def _written(event: httpx2.ServerSentEvent, held: Held) -> bytes:
    """`event` as an event stream says it, a message's data as its stand-in: the SDK reads back the same type, id,
    retry and data (none for other types, whose data the SDK never reads)."""
    lines = [f"event: {event.event}", f"id: {event.id}"]  # (an empty id too: it resets the last one)
    if event.retry is not None:
        lines.append(f"retry: {event.retry}")
    if event.event == "message" and event.data:
        lines.append("data: " + held.stand_in(event.data).decode())
    return ("\n".join(lines) + "\n\n").encode()


class _Swapped:
    """The SDK transport's read stream, each stand-in swapped back for the message it stands for (the SDK's read
    stream protocol: receive, iterate, close; `last_context`, the sender's context, passed through)."""

    def __init__(self, stream: Any, held: Held) -> None:
        self._stream = stream
        self._held = held

    @property
    def last_context(self) -> Any:
        return getattr(self._stream, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        return self._held.swap(await self._stream.receive())

    def __aiter__(self) -> _Swapped:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self) -> _Swapped:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        await self.aclose()
