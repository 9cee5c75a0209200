"""A loopback HTTP proxy in front of a real streamable-HTTP MCP server (`scripted_mcp.py --http`), answering the
client with each of the server's JSON replies as a server-sent event stream, framed as a test asks: a server that
streams its replies, with whatever line ends, comments, ids, retries and events before the answer it chooses.

`event_streams(upstream, frame)` runs it in a thread of its own and gives its URL; `FRAMES` holds the framings.
Every other reply (an error status, an empty `202`) passes as it came; `answer=` may stand in for an upstream reply.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import httpx2

from support.loopback_server import loopback_server

Frame = Callable[[bytes], bytes]
Answer = Callable[[dict[str, object], int, bytes], tuple[int, str, bytes] | None]


def _plain(reply: bytes) -> bytes:
    return b"event: message\nid: 1\ndata: " + reply + b"\n\n"


def _busy(reply: bytes) -> bytes:
    """CRLF line ends; a comment; a priming event (an id, empty data); a log notification before the answer; the
    answer's JSON over many data lines (one per line of an indented dump), with a retry."""
    lines = json.dumps(json.loads(reply), indent=1).encode().split(b"\n")
    note = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"busy"}}'
    return (
        b": a comment\r\n\r\nid: prime-1\r\ndata:\r\n\r\n"
        + b"event: message\r\ndata: "
        + note
        + b"\r\n\r\n"
        + b"retry: 500\r\nid: answer-2\r\n"
        + b"".join(b"data: " + line + b"\r\n" for line in lines)
        + b"\r\n"
    )


def _bare_cr(reply: bytes) -> bytes:
    """Bare CR line ends, an event of another type before the answer (the client reads no data of it)."""
    return b"event: progress\rdata: [1,2,3]\r\r" + b"data:" + reply + b"\r\r"


#: How a reply is framed as an event stream.
FRAMES: dict[str, Frame] = {"plain": _plain, "busy": _busy, "bare-cr": _bare_cr}
#: Headers passed on each way (the rest, connection and length among them, are the proxy's own).
_PASSED = (
    "content-type",
    "accept",
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
    "mcp-session-id",
    "authorization",
)


@contextmanager
def event_streams(upstream: str, frame: Frame, answer: Answer | None = None) -> Iterator[str]:
    """The proxy's URL, in front of `upstream`, each JSON reply framed by `frame`. `answer(request, status, body)`,
    when given, may replace an upstream reply with (status, content type, body) sent as they are."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
            method = head.split(" ", 1)[0]
            headers = dict(line.split(": ", 1) for line in head.split("\r\n")[1:] if ": " in line)
            headers = {k.lower(): v for k, v in headers.items()}
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            async with httpx2.AsyncClient(timeout=60) as http:
                sent = await http.request(
                    method, upstream, content=body, headers={k: v for k, v in headers.items() if k in _PASSED}
                )
            kind, reply, status = sent.headers.get("content-type", ""), sent.content, sent.status_code
            replaced = answer(json.loads(body), status, reply) if answer and body else None
            passed = "".join(f"{k}: {v}\r\n" for k, v in sent.headers.items() if k in _PASSED and k != "content-type")
            if replaced is not None:
                status, kind, out = replaced
                writer.write(f"HTTP/1.1 {status} X\r\nContent-Type: {kind}\r\nContent-Length: {len(out)}\r\n".encode())
                writer.write(f"{passed}Connection: close\r\n\r\n".encode() + out)
            elif status == 200 and kind.startswith("application/json"):
                writer.write(
                    f"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n{passed}Connection: close\r\n\r\n".encode()
                )
                framed = frame(reply)
                step = 7 if len(framed) < 65536 else 65536  # (a small reply in pieces: lines and events cut anywhere)
                for at in range(0, len(framed), step):
                    writer.write(framed[at : at + step])
                    await writer.drain()
            else:
                writer.write(
                    f"HTTP/1.1 {status} X\r\nContent-Type: {kind}\r\nContent-Length: {len(reply)}\r\n".encode()
                )
                writer.write(f"{passed}Connection: close\r\n\r\n".encode() + reply)
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    with loopback_server(serve) as port:
        yield f"http://127.0.0.1:{port}/mcp"
