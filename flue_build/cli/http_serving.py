"""The HTTP side of `flue-skills mcp --http`: the listening socket, the app every worker runs, `/healthz`.

One process or many, each serves the same app: the SDK's streamable HTTP app for the skills server
(stateful, or stateless where no request depends on an earlier one), a health endpoint beside it,
the guard in front of both (`http_guard`: `Host`, `Origin`, the token), each request's body read
whole within a bound behind it (`http_bodies`: 408 past it), and, when stateful, the books of its
sessions behind that (`http_sessions`: a cap, a share per client address, an idle timeout). With
`--workers N`
uvicorn starts N processes from an import string, so each worker builds its app itself:
`worker_app` reads what the command was asked (`Serving`, handed over in the environment) and
resolves TARGET again. Nothing is shared between workers or between replicas behind a load
balancer: each serves the same skills, the same entries and digests, from the same TARGET.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from flue_build.cli.http_bodies import BODY_TIMEOUT
from flue_build.cli.http_sessions import SessionLimits

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.types import ASGIApp

    from flue_runtime.mount.reference import SkillReference

__all__ = ["HEALTH", "PATH", "SETTINGS_ENV", "Serving", "catalog_digest", "http_app", "listening_socket", "worker_app"]

PATH = "/mcp"
HEALTH = "/healthz"
#: Where `--workers` hands each worker what the command was asked.
SETTINGS_ENV = "FLUE_SKILLS_MCP_SERVE"


@dataclass(frozen=True)
class Serving:
    """What `flue-skills mcp --http` was asked, as every worker needs it."""

    target: str
    name: str
    host: str  # as given on the command line
    address: str  # the address bound
    port: int
    stateless: bool
    max_sessions: int = SessionLimits.total
    max_sessions_per_client: int = SessionLimits.per_client
    session_idle_timeout: float = SessionLimits.idle_timeout
    allow_oversize: bool = False  # --allow-oversize-skills
    body_timeout: float = BODY_TIMEOUT  # --body-timeout

    @property
    def sessions(self) -> SessionLimits:
        return SessionLimits(self.max_sessions, self.max_sessions_per_client, self.session_idle_timeout)

    def to_env(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> Serving:
        return cls(**json.loads(environ[SETTINGS_ENV]))


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
    read within `serving.body_timeout`, then (when stateful) through the books of the sessions."""
    from starlette.responses import JSONResponse

    from flue_build.cli.http_bodies import Bodies
    from flue_build.cli.http_guard import Guard
    from flue_build.cli.http_sessions import Sessions
    from flue_runtime.mcp.entries import servable
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
    if serving.stateless:  # (no session to open: every request has the one bound)
        return guard.wrap(Bodies(app, serving.body_timeout, opening=serving.body_timeout))
    return guard.wrap(Bodies(Sessions(app, limits, PATH), serving.body_timeout))


def worker_app() -> ASGIApp:
    """uvicorn's app factory in each `--workers` process: TARGET resolved again from what the command was asked
    (the parent printed its warnings already)."""
    from uvicorn.config import STARTUP_FAILURE

    from flue_build.cli.targets import resolve_target
    from flue_runtime.errors import FlueError

    serving = Serving.from_env(os.environ)
    try:
        skills = resolve_target(serving.target).skills
    except FlueError as exc:  # changed since the command resolved it: stop, and the supervisor stops too
        print(f"flue-skills mcp: error: worker {os.getpid()}: {exc}", file=sys.stderr, flush=True)
        raise SystemExit(STARTUP_FAILURE) from None
    return http_app(serving, skills)
