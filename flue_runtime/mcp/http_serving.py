"""Skills served over streamable HTTP (`flue-skills mcp --http`): the listening socket, the app, uvicorn.

One process or many, each serves the same app: the SDK's streamable HTTP app for the skills server
(stateful, or stateless where no request depends on an earlier one), a health endpoint beside it,
the guard in front of both (`http_guard`: `Host`, `Origin`, the token), each request's body read
whole within a bound behind it (`http_bodies`: 408 past it), and, when stateful, the books of its
sessions behind that (`http_sessions`: a cap, a share per client address, an idle timeout).
`serve_http` runs the app in this process; `serve_workers` runs N processes sharing the socket
(uvicorn's supervisor), which uvicorn starts from an import string, so each worker builds its app
itself through the factory it is given, from what it was asked (`Serving`, handed over in the
environment: `Serving.from_env`). Nothing is shared between workers or between replicas behind a
load balancer: each serves the same skills, the same entries and digests, from the same `target`.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from flue_runtime.mcp.http_bodies import BODY_TIMEOUT
from flue_runtime.mcp.http_sessions import SessionLimits

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.types import ASGIApp

    from flue_runtime.mount.reference import SkillReference

__all__ = [
    "HEALTH",
    "PATH",
    "SETTINGS_ENV",
    "WORKERS_READY_S",
    "Serving",
    "catalog_digest",
    "http_app",
    "listening_socket",
    "serve_http",
    "serve_workers",
]

PATH = "/mcp"
HEALTH = "/healthz"
#: Where `serve_workers` hands each worker what it was asked.
SETTINGS_ENV = "FLUE_SKILLS_MCP_SERVE"
#: How long `serve_workers` waits for every worker to serve (each resolves its skills itself) before giving up.
WORKERS_READY_S = 600.0


@dataclass(frozen=True)
class Serving:
    """What is served and how, as every worker needs it: `target`, what a worker's app factory resolves to the
    skills (`flue-skills mcp`'s TARGET); `name`, the server's; where it listens; how it keeps sessions."""

    target: str
    name: str
    host: str  # as given on the command line
    address: str  # the address bound
    port: int
    stateless: bool
    sessions: SessionLimits = SessionLimits()
    allow_oversize: bool = False  # --allow-oversize-skills
    body_timeout: float = BODY_TIMEOUT  # --body-timeout

    def to_env(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> Serving:
        settings = json.loads(environ[SETTINGS_ENV])
        return cls(**{**settings, "sessions": SessionLimits(**settings["sessions"])})


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to `host:port` (`OSError` when it cannot be), for uvicorn to accept on.

    Made with the TCP protocol named, as asyncio asks before it turns Nagle's algorithm off on each
    accepted connection (`TCP_NODELAY`); a socket made without it (protocol 0) gets none, and every
    response written in two parts waits on the client's delayed acknowledgement."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def catalog_digest(skills: Sequence[SkillReference]) -> str:
    """One digest of what is served: each skill's name and content id, so replicas serving the same skills agree."""
    lines = sorted(f"{skill.name}\t{skill.id}\n" for skill in skills)
    return "sha256:" + hashlib.sha256("".join(lines).encode()).hexdigest()


def http_app(serving: Serving, skills: Sequence[SkillReference]) -> ASGIApp:
    """The app one process serves: MCP at `PATH`, `GET HEALTH`, every request through the guard first, its body
    read (and its reply taken) within `serving.body_timeout`, then (when stateful) through the books of the sessions."""
    from starlette.responses import JSONResponse

    from flue_runtime.mcp.entries import servable
    from flue_runtime.mcp.http_bodies import Bodies, quiet_cut_replies
    from flue_runtime.mcp.http_guard import Guard
    from flue_runtime.mcp.http_sessions import Sessions
    from flue_runtime.mcp.server import skills_server

    skills, _ = servable(skills, serving.allow_oversize)  # what is left out, the command has said already
    server = skills_server(skills, name=serving.name, allow_oversize=serving.allow_oversize)
    health = {"status": "ok", "skills": len(skills), "catalog": catalog_digest(skills), "pid": os.getpid()}

    async def healthz(request: Request) -> Response:
        return JSONResponse(health)

    guard = Guard.of(serving.host, serving.address, serving.port, os.environ)
    limits = serving.sessions
    app = server.streamable_http_app(
        streamable_http_path=PATH,
        host=serving.host,
        transport_security=guard.security,
        stateless_http=serving.stateless,
        max_sessions=limits.total,  # (the SDK's own cap, behind ours: `Sessions` makes room before it is reached)
        session_idle_timeout=limits.idle_timeout,
    )
    app.add_route(HEALTH, healthz, methods=["GET"], include_in_schema=False)
    quiet_cut_replies()  # (here: in each worker's own process too)
    if serving.stateless:  # (no session to open: every request has the one bound)
        return guard.wrap(Bodies(app, serving.body_timeout, opening=serving.body_timeout))
    return guard.wrap(Bodies(Sessions(app, limits, PATH), serving.body_timeout))


def serve_http(app: ASGIApp, sock: socket.socket, announce: Callable[[], None]) -> None:
    """`app` on the bound `sock`, in this process until it is stopped (SIGINT, SIGTERM), announced once it accepts
    connections."""
    import anyio
    import uvicorn

    # No proxy headers: a client is the TCP peer it is, whatever `X-Forwarded-For` says (sessions are kept per
    # client address, and on loopback uvicorn would believe any local process).
    web = uvicorn.Server(uvicorn.Config(app, log_level="warning", proxy_headers=False))

    async def announced() -> None:
        while not web.started:
            await anyio.sleep(0.02)
        announce()

    async def serving() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(announced)
            await web.serve(sockets=[sock])
            group.cancel_scope.cancel()

    anyio.run(serving)


def serve_workers(
    serving: Serving, sock: socket.socket, workers: int, factory: str, announce: Callable[[], None]
) -> str | None:
    """`workers` processes accepting on `sock`, each serving the app `factory` (uvicorn's import string of a function
    of no arguments: it reads `Serving.from_env(os.environ)` and returns `http_app`) makes; uvicorn's supervisor
    restarts one that dies. Announced once every one serves; ends at SIGINT or SIGTERM, stopping them all. Why
    the workers could not be started, or None."""
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    os.environ[SETTINGS_ENV] = serving.to_env()  # what each worker is asked (spawned with this environment)
    config = uvicorn.Config(factory, factory=True, workers=workers, log_level="warning", proxy_headers=False)
    failed: list[str] = []

    class Workers(Multiprocess):
        def init_processes(self) -> None:
            super().init_processes()
            deadline = time.monotonic() + WORKERS_READY_S
            waiting = list(self.processes)
            while waiting and not self.signal_queue:
                if time.monotonic() > deadline or any(not p.process.is_alive() for p in waiting):
                    failed.append("a worker stopped before serving" if time.monotonic() <= deadline else "timed out")
                    self.should_exit.set()
                    return
                waiting = [p for p in waiting if not p.is_ready(timeout=1)]
                if waiting:
                    time.sleep(0.05)
            if not waiting:
                announce()

    Workers(config, sockets=[sock]).run()
    return failed[0] if failed else None
