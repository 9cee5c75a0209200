"""`flue-skills mcp TARGET [--http HOST:PORT]`: serve TARGET's skills over MCP, on stdio or streamable HTTP.

HTTP listens on the loopback interface unless another host is named, and answers only requests
addressed to it (`Host`/`Origin`: no DNS rebinding). Another host is refused unless asked for
with `--allow-remote` and a token every request must carry (`flue_build.cli.http_guard`).
`--stateless` serves without sessions, so any number of processes behind a load balancer serve
alike; `--workers N` runs N of them on one port (`flue_build.cli.http_serving`). Stateful, the
sessions kept are bounded in all, per client address and in idle time (`flue_build.cli.http_sessions`), and
a request's body must arrive within `--body-timeout` seconds (`flue_build.cli.http_bodies`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from flue_build.cli.agent_args import add_target_argument
from flue_build.cli.counts import count
from flue_build.cli.exits import OK, USAGE
from flue_build.cli.http_bodies import BODY_TIMEOUT, OPENING_TIMEOUT
from flue_build.cli.http_serving import PATH
from flue_build.cli.http_sessions import SessionLimits
from flue_build.errors import UsageError

if TYPE_CHECKING:
    import socket

    from starlette.types import ASGIApp

    from flue_build.cli import AddParser
    from flue_build.cli.http_serving import Serving

__all__ = [
    "LOOPBACK",
    "WORKERS_READY_S",
    "http_address",
    "register",
    "run",
    "seconds",
    "serve_http",
    "serve_workers",
    "session_count",
    "session_limits",
    "worker_count",
]


LOOPBACK = "127.0.0.1"
#: How long `--workers` waits for every worker to serve (each resolves TARGET itself) before giving up.
WORKERS_READY_S = 600.0


def register(add_parser: AddParser) -> None:
    parser = add_parser(
        "mcp",
        description="Serve TARGET's skills over MCP: the Skills extension (skills/list, skills/get, "
        "skill://<name>/<path> resources) and the activate_skill and read_skill_resource tools. "
        "TARGET is an installed package or distribution, MODULE:AGENT, a project folder (its skills, as check "
        "finds them), or a folder of skill folders. "
        "Speaks stdio unless --http is given.",
    )
    add_target_argument(parser)
    parser.add_argument(
        "--http",
        metavar="HOST:PORT",
        type=http_address,
        help=f"serve streamable HTTP at http://HOST:PORT{PATH} instead of stdio; HOST defaults to {LOOPBACK} "
        "(PORT 0 picks a free port; the address is printed on stderr)",
    )
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="let --http listen on an address other machines reach (not loopback); needs a token in "
        "FLUE_SKILLS_MCP_TOKEN, which every request must send as `Authorization: Bearer <token>`",
    )
    parser.add_argument(
        "--stateless",
        action="store_true",
        help="serve --http without sessions (the MCP SDK's stateless mode): every request stands alone, so any "
        "process serving the same TARGET can answer it; run as many behind a load balancer as load needs",
    )
    parser.add_argument(
        "--workers",
        metavar="N",
        type=worker_count,
        default=1,
        help="serve --http from N processes sharing the port (uvicorn's workers), each resolving TARGET itself; "
        "implies --stateless, since no session could follow a client from one worker to another",
    )
    parser.add_argument(
        "--max-sessions",
        metavar="N",
        type=session_count,
        help=f"keep at most N sessions (default {SessionLimits.total}); past it, a new session ends the least recently "
        "used idle one of the client address holding the most",
    )
    parser.add_argument(
        "--max-sessions-per-client",
        metavar="N",
        type=session_count,
        help=f"keep at most N sessions per client address (default {SessionLimits.per_client}, at most --max-sessions; "
        "on loopback every local client shares one address); past it, a new session ends that address's least "
        "recently used idle one",
    )
    parser.add_argument(
        "--session-idle-timeout",
        metavar="SECONDS",
        type=seconds,
        help=f"end a session no request used for SECONDS (default {SessionLimits.idle_timeout:g}, the time hosts "
        "may keep a listing); its client opens another when it comes back",
    )
    parser.add_argument(
        "--body-timeout",
        metavar="SECONDS",
        type=seconds,
        help=f"answer 408 to a request whose body has not arrived within SECONDS (default {BODY_TIMEOUT:g}; a request "
        f"outside a session, such as the one that opens it, within {OPENING_TIMEOUT:g} at most); a request holds no "
        "session while its body arrives",
    )
    parser.add_argument(
        "--allow-oversize-skills",
        action="store_true",
        help="serve skills of more than 512 files or 16 MiB in all too, which the Skills extension says a server "
        "should not serve (by default each is left out with a warning)",
    )
    parser.add_argument("--name", default="flue-skills", help="the server name hosts show (default: flue-skills)")
    parser.set_defaults(handler=run)


def http_address(text: str) -> tuple[str, int]:
    """`HOST:PORT`, `:PORT` or `PORT` (loopback); an IPv6 host in brackets."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]") or LOOPBACK
    try:
        number = int(port)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give HOST:PORT, e.g. {LOOPBACK}:8000") from None
    if not 0 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r}: the port must be 0-65535")
    return host, number


session_count = count("session", "sessions", 64)
worker_count = count("process", "processes", 4)


def seconds(text: str) -> float:
    try:
        number = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of seconds, e.g. 300") from None
    if not 0 < number < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: a positive number of seconds")
    return number


def session_limits(args: argparse.Namespace) -> SessionLimits:
    """The session limits asked for (the defaults for those not given); `UsageError` when they cannot be served."""
    given = {
        "--max-sessions": args.max_sessions,
        "--max-sessions-per-client": args.max_sessions_per_client,
        "--session-idle-timeout": args.session_idle_timeout,
    }
    named = [flag for flag, value in given.items() if value is not None]
    if named and (args.stateless or args.workers > 1):
        raise UsageError(f"{named[0]} bounds sessions, which --stateless and --workers do not keep")
    if named and args.http is None:
        raise UsageError(f"{named[0]} bounds the sessions of --http: add --http HOST:PORT")
    defaults = SessionLimits()
    total = args.max_sessions or defaults.total
    per_client = args.max_sessions_per_client or min(defaults.per_client, total)
    limits = SessionLimits(total, per_client, args.session_idle_timeout or defaults.idle_timeout)
    problem = limits.problem()
    if problem:
        raise UsageError(f"--max-sessions-per-client: {problem}")
    return limits


def run(args: argparse.Namespace) -> int:
    if args.http is None and (args.stateless or args.workers > 1):
        raise UsageError("--stateless and --workers serve HTTP: add --http HOST:PORT")
    if args.http is None and args.body_timeout is not None:
        raise UsageError("--body-timeout bounds how long --http reads a request: add --http HOST:PORT")
    sessions = session_limits(args)
    if args.http is not None:
        from flue_build.cli.http_guard import bind_problem

        problem = bind_problem(args.http[0], args.allow_remote, os.environ)
        if problem:
            raise UsageError(f"--http {args.http[0]}: {problem}")
    from flue_build.cli.targets import resolve_target  # here: `check` and `ls` do not pay for it
    from flue_runtime.format.diagnostics import printable

    target = resolve_target(args.target)
    from flue_runtime.mcp.entries import servable  # after TARGET: a bad TARGET is said first, extra or none

    served, oversize = servable(target.skills, args.allow_oversize_skills)
    for note in (*target.skipped, *oversize):
        print(f"flue-skills mcp: warning: {printable(note)}", file=sys.stderr)
    if args.http is None:
        from flue_runtime.mcp.server import skills_server

        skills_server(served, name=args.name, allow_oversize=args.allow_oversize_skills).run("stdio")
        return OK

    from flue_build.cli.http_serving import Serving, http_app, listening_socket

    host, port = args.http
    try:
        sock = listening_socket(host, port)
    except OSError as exc:
        raise UsageError(f"--http {host}:{port}: cannot listen there: {exc.strerror or exc}") from None
    address, bound = sock.getsockname()[:2]
    serving = Serving(
        args.target,
        args.name,
        host,
        address,
        bound,
        stateless=args.stateless or args.workers > 1,
        max_sessions=sessions.total,
        max_sessions_per_client=sessions.per_client,
        session_idle_timeout=sessions.idle_timeout,
        allow_oversize=args.allow_oversize_skills,
        body_timeout=args.body_timeout or BODY_TIMEOUT,
    )
    count = len(served)

    def announce() -> None:
        _announce(serving, sock.family, count, args.workers)

    if args.workers == 1:
        import anyio

        anyio.run(serve_http, http_app(serving, served), sock, announce)
        return OK
    del target  # each worker resolves its own
    return serve_workers(serving, sock, args.workers, announce)


async def serve_http(app: ASGIApp, sock: socket.socket, announce: Callable[[], None]) -> None:
    """`app` (MCP at /mcp and /healthz, behind the guard) on the bound `sock`, announced once it accepts
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

    async with anyio.create_task_group() as group:
        group.start_soon(announced)
        await web.serve(sockets=[sock])
        group.cancel_scope.cancel()


def serve_workers(serving: Serving, sock: socket.socket, workers: int, announce: Callable[[], None]) -> int:
    """`workers` processes accepting on `sock`, each running `serve_http.worker_app` (uvicorn's supervisor
    restarts one that dies); announced once every one serves. Ends at SIGINT or SIGTERM, stopping them all."""
    import time

    import uvicorn
    from uvicorn.supervisors import Multiprocess

    from flue_build.cli import http_serving as module

    os.environ[module.SETTINGS_ENV] = serving.to_env()  # what each worker is asked (spawned with this environment)
    config = uvicorn.Config(
        f"{module.__name__}:worker_app", factory=True, workers=workers, log_level="warning", proxy_headers=False
    )
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
    if failed:
        print(f"flue-skills mcp: error: --workers {workers}: {failed[0]} (see above)", file=sys.stderr)
        return USAGE  # the machine could not run the workers: an environment problem
    return OK


def _announce(serving: Serving, family: socket.AddressFamily, count: int, workers: int) -> None:
    import socket

    from flue_build.cli.http_guard import TOKEN_ENV, is_loopback

    shown = f"[{serving.host}]" if family == socket.AF_INET6 else serving.host
    if not is_loopback(serving.host):
        print(f"flue-skills mcp: listening on {serving.host}, reachable from other machines", file=sys.stderr)
    how = f" from {workers} workers, stateless," if workers > 1 else ", stateless," if serving.stateless else ""
    needs = f" (every request needs the bearer token in {TOKEN_ENV})" if os.environ.get(TOKEN_ENV) else ""
    print(
        f"flue-skills mcp: serving {count} skill{'s' if count != 1 else ''}{how} at "
        f"http://{shown}:{serving.port}{PATH}{needs}",
        file=sys.stderr,
        flush=True,
    )
