"""`flue-skills mcp TARGET [--http HOST:PORT]`: serve TARGET's skills over MCP, on stdio or streamable HTTP.

The serving is `flue_runtime.mcp`'s (`http_serving` and the modules beside it: the guard, the bounds on sessions
and bodies); this reads the options, resolves TARGET and says what is served. `--workers N` runs N processes on
one port, each resolving TARGET again (`targets.worker_app`).
"""

from __future__ import annotations

import argparse
import functools
import os
import socket
import sys
from typing import TYPE_CHECKING

from flue_build.cli.agent_args import add_target_argument
from flue_build.cli.counts import count, seconds
from flue_build.cli.exits import OK, USAGE
from flue_build.errors import UsageError
from flue_runtime.format.diagnostics import printable
from flue_runtime.mcp import require_sdk
from flue_runtime.mcp.entries import servable
from flue_runtime.mcp.http_bodies import BODY_TIMEOUT, OPENING_TIMEOUT
from flue_runtime.mcp.http_guard import TOKEN_ENV, bind_problem, is_loopback
from flue_runtime.mcp.http_serving import PATH
from flue_runtime.mcp.http_sessions import SessionLimits

if TYPE_CHECKING:
    from flue_build.cli import AddParser
    from flue_runtime.mcp.http_serving import Serving

__all__ = ["LOOPBACK", "http_address", "register", "run", "session_limits"]

LOOPBACK = "127.0.0.1"


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
        type=count("process", "processes", 4),
        default=1,
        help="serve --http from N processes sharing the port (uvicorn's workers), each resolving TARGET itself; "
        "implies --stateless, since no session could follow a client from one worker to another",
    )
    parser.add_argument(
        "--max-sessions",
        metavar="N",
        type=count("session", "sessions", 64),
        help=f"keep at most N sessions (default {SessionLimits.total}); past it, a new session ends the least recently "
        "used idle one of the client address holding the most",
    )
    parser.add_argument(
        "--max-sessions-per-client",
        metavar="N",
        type=count("session", "sessions", 64),
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
        f"outside a session, such as the one that opens it, within {OPENING_TIMEOUT:g} at most), and close the "
        "connection of a reply its client has taken nothing of for SECONDS; a request holds no session while its "
        "body arrives",
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
    limits = SessionLimits.of(*given.values())
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
        problem = bind_problem(args.http[0], args.allow_remote, os.environ)
        if problem:
            raise UsageError(f"--http {args.http[0]}: {problem}")
    from flue_build.cli.targets import resolve_target  # here: `check` and `ls` do not pay for it

    target = resolve_target(args.target)
    require_sdk()  # after TARGET: a bad TARGET is said first, extra or none
    from flue_runtime.mcp.server import skills_server

    served, oversize = servable(target.skills, args.allow_oversize_skills)
    for note in (*target.skipped, *oversize):
        print(f"flue-skills mcp: warning: {printable(note)}", file=sys.stderr)
    if args.http is None:
        skills_server(served, name=args.name, allow_oversize=args.allow_oversize_skills).run("stdio")
        return OK
    from flue_runtime.mcp.http_serving import Serving, http_app, listening_socket, serve_http, serve_workers

    host, port = args.http
    try:
        sock = listening_socket(host, port)
    except OSError as exc:
        raise UsageError(f"--http {host}:{port}: cannot listen there: {exc.strerror or exc}") from None
    stateless, timeout = args.stateless or args.workers > 1, args.body_timeout or BODY_TIMEOUT
    address, bound = sock.getsockname()[:2]
    serving = Serving(
        args.target, args.name, host, address, bound, stateless, sessions, args.allow_oversize_skills, timeout
    )
    announce = functools.partial(_announce, serving, sock.family, len(served), args.workers)
    if args.workers == 1:
        serve_http(http_app(serving, served), sock, announce)
        return OK
    failed = serve_workers(serving, sock, args.workers, "flue_build.cli.targets:worker_app", announce)
    if failed is not None:  # the machine could not run the workers: an environment problem
        print(f"flue-skills mcp: error: --workers {args.workers}: {failed} (see above)", file=sys.stderr)
    return OK if failed is None else USAGE


def _announce(serving: Serving, family: socket.AddressFamily, count: int, workers: int) -> None:
    shown = f"[{serving.host}]" if family == socket.AF_INET6 else serving.host
    if not is_loopback(serving.host):
        print(f"flue-skills mcp: listening on {serving.host}, reachable from other machines", file=sys.stderr)
    how = f" from {workers} workers, stateless," if workers > 1 else ", stateless," if serving.stateless else ""
    needs = f" (every request needs the bearer token in {TOKEN_ENV})" if os.environ.get(TOKEN_ENV) else ""
    line = f"serving {count} skill{'s' if count != 1 else ''}{how} at http://{shown}:{serving.port}{PATH}{needs}"
    print(f"flue-skills mcp: {line}", file=sys.stderr, flush=True)
