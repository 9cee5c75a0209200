"""`flue-skills mcp TARGET [--http HOST:PORT]`: serve TARGET's skills over MCP, on stdio or streamable HTTP.

HTTP listens on the loopback interface unless another host is named, and answers only requests
addressed to it (`Host`/`Origin`: no DNS rebinding). Another host is refused unless asked for
with `--allow-remote` and a token every request must carry (`flue_build.cli.http_guard`).
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
from typing import TYPE_CHECKING

from flue_build.cli.exits import OK
from flue_runtime.errors import UsageError

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

LOOPBACK = "127.0.0.1"
PATH = "/mcp"


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "mcp",
        help="serve skills over the Model Context Protocol (needs flue-skills[mcp])",
        description="Serve TARGET's skills over MCP: the Skills extension (skills/list, skills/get, "
        "skill://<name>/<path> resources) and the activate_skill and read_skill_resource tools. "
        "TARGET is an installed package or distribution, MODULE:AGENT, or a folder of skill folders. "
        "Speaks stdio unless --http is given.",
    )
    parser.add_argument("target", metavar="TARGET")
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


def run(args: argparse.Namespace) -> int:
    if args.http is not None:
        from flue_build.cli.http_guard import bind_problem

        problem = bind_problem(args.http[0], args.allow_remote, os.environ)
        if problem:
            raise UsageError(f"--http {args.http[0]}: {problem}")
    from flue_build.cli.targets import resolve_target  # here: `check` and `ls` do not pay for it
    from flue_runtime.format.diagnostics import printable

    target = resolve_target(args.target)
    for note in target.skipped:
        print(f"flue-skills mcp: warning: {printable(note)}", file=sys.stderr)
    from flue_runtime.mcp import skills_server

    server = skills_server(target.skills, name=args.name)
    if args.http is None:
        server.run("stdio")
    else:
        import anyio

        host, port = args.http
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            sock.close()
            raise UsageError(f"--http {host}:{port}: cannot listen there: {exc.strerror or exc}") from None
        anyio.run(serve_http, server, sock, host, len(target.skills))
    return OK


async def serve_http(server: MCPServer, sock: socket.socket, host: str, count: int) -> None:
    """Streamable HTTP at http://host:port/mcp on the bound `sock`, announced on stderr once it accepts
    connections; every request checked first (`Host`, `Origin`, the token when one is set: `http_guard`)."""
    import anyio
    import uvicorn

    from flue_build.cli.http_guard import TOKEN_ENV, Guard, is_loopback

    family = sock.family
    address, bound = sock.getsockname()[:2]
    guard = Guard.of(host, address, bound, os.environ)
    app = server.streamable_http_app(streamable_http_path=PATH, host=host, transport_security=guard.security)
    web = uvicorn.Server(uvicorn.Config(guard.wrap(app), log_level="warning"))

    async def announce() -> None:
        while not web.started:
            await anyio.sleep(0.02)
        shown = f"[{host}]" if family == socket.AF_INET6 else host
        if not is_loopback(host):
            print(f"flue-skills mcp: listening on {host}, reachable from other machines", file=sys.stderr)
        needs = f" (every request needs the bearer token in {TOKEN_ENV})" if guard.token else ""
        print(
            f"flue-skills mcp: serving {count} skill{'s' if count != 1 else ''} at http://{shown}:{bound}{PATH}{needs}",
            file=sys.stderr,
            flush=True,
        )

    async with anyio.create_task_group() as group:
        group.start_soon(announce)
        await web.serve(sockets=[sock])
        group.cancel_scope.cancel()
