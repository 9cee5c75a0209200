"""`flue-skills lock SERVER... [--lock PATH] [--header NAME:VALUE]`: pin what remote MCP servers serve now, as
`remote_skills(SERVER, lock=PATH, update_lock=True)` does, and print the pins; review the lock's diff, commit it."""

from __future__ import annotations

import argparse
import shlex
import sys
import warnings
from typing import TYPE_CHECKING

from flue_build.cli.agent_args import add_lock_argument
from flue_build.cli.exits import OK

if TYPE_CHECKING:
    from flue_build.cli import AddParser

__all__ = ["register", "run"]


def register(add_parser: AddParser) -> None:
    parser = add_parser(
        "lock",
        description="Connect to each SERVER, list its skills (the Skills extension) and record in the lock file "
        "each skill's URI, name and content digest, as remote_skills(SERVER, lock=PATH, update_lock=True) does: "
        "an agent that mounts the server with lock=PATH then mounts only these skills, as they are now. Nothing "
        "of the skills is read but their listing.",
    )
    parser.add_argument(
        "servers",
        nargs="+",
        metavar="SERVER",
        help="an http(s):// URL, or the command that starts a stdio server, quoted as one word "
        "('flue-skills mcp acme_skills')",
    )
    add_lock_argument(parser)
    parser.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="NAME:VALUE",
        help="an HTTP header for the URLs, such as 'Authorization: Bearer ...' (repeatable)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from flue_build.errors import UsageError
    from flue_runtime.errors import SkillWarning
    from flue_runtime.format.diagnostics import printable
    from flue_runtime.format.lockfile import default_lock, read_lock
    from flue_runtime.mcp.remote import remote_skills

    path = args.lock or default_lock()
    headers = dict(_header(text) for text in args.header)
    for server in args.servers:
        url = server.startswith(("http://", "https://"))
        if not url and headers:
            raise UsageError(f"--header goes with an http(s):// URL, not {server!r}")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", SkillWarning)
            target = server if url else shlex.split(server)
            skills = remote_skills(target, lock=path, update_lock=True, headers=(headers or None) if url else None)
        skills.close()
        for warning in caught:
            print(f"flue-skills lock: warning: {printable(str(warning.message))}", file=sys.stderr)
        pinned = read_lock(path).servers[skills.identity]
        print(
            printable(
                f"{pinned.shown} ({skills.identity}): {len(pinned.skills)} skill{'' if len(pinned.skills) == 1 else 's'} pinned in {path}"
            )
        )
        for uri, pin in pinned.skills.items():
            print(printable(f"  {pin.name}  {pin.digest}  {uri}"))
    return OK


def _header(text: str) -> tuple[str, str]:
    from flue_build.errors import UsageError

    name, colon, value = text.partition(":")
    if not colon or not name.strip():
        raise UsageError(f"--header {text!r}: write NAME:VALUE, like 'Authorization: Bearer TOKEN'")
    return name.strip(), value.strip()
