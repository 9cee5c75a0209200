"""A threaded HTTP server on 127.0.0.1 answering each request with JSON: the loopback stand-ins of the APIs the
SDKs call (`support.fakeapi`'s model APIs, `support.hosted_skills`' hosted skill APIs). Nothing is mocked: the
SDKs send real HTTP to it, over the kept-alive connections their pools expect."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Answer", "JsonServer"]

#: What a stand-in answers a request (method, path, headers lowercased, body) with: status, JSON body, headers.
Answer = Callable[[str, str, dict[str, str], bytes], tuple[int, Any, dict[str, str]]]


class JsonServer:
    """`answer` served at `url` from a daemon thread, between `start()` and `stop()`."""

    def __init__(self, answer: Answer) -> None:
        self.server = _Server(("127.0.0.1", 0), _Handler)
        self.server.answer = answer
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    answer: Answer

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client closing its pooled connection is not news


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the SDKs' connection pools expect

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self._serve(b"")

    def do_POST(self) -> None:  # noqa: N802
        self._serve(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

    def _serve(self, body: bytes) -> None:
        assert isinstance(self.server, _Server)
        headers = {k.lower(): v for k, v in self.headers.items()}
        status, answer, extra = self.server.answer(self.command, self.path, headers, body)
        payload = json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in extra.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - keep test output quiet
        pass
