"""Skill folders served over HTTP on 127.0.0.1 the way a static file host serves them (the layout
agentskills-http reads, with its `index.json` manifests), and the two ways a host fails: a port nobody
listens on, and a server that accepts connections and never answers."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

MANIFEST = "index.json"


def publish(root: Path) -> list[str]:
    """Write the manifests a static host publishes for agentskills-http: `root/index.json` listing the skill
    folders, and in each `index.json` listing every file of the skill. The skill names, sorted."""
    names = sorted(p.name for p in root.iterdir() if (p / "SKILL.md").is_file())
    (root / MANIFEST).write_text(json.dumps({"skills": names}), encoding="utf-8")
    for name in names:
        folder = root / name
        files = sorted(
            p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() and p.name != MANIFEST
        )
        (folder / MANIFEST).write_text(json.dumps({"files": files}), encoding="utf-8")
    return names


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def static_host(root: Path) -> Iterator[str]:
    """`root` served by the standard library's file server on a free loopback port: its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@contextmanager
def closed_port() -> Iterator[str]:
    """The URL of a loopback port nothing listens on (connections are refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    yield f"http://127.0.0.1:{port}"


@contextmanager
def silent_host() -> Iterator[str]:
    """The URL of a server that accepts connections (the kernel's backlog) and never answers a request."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
