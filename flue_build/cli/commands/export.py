"""`flue-skills export TARGET DIR [--force]`: TARGET's skills as plain folders `DIR/<name>/`, verified."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from flue_build.cli.agent_args import add_target_argument
from flue_build.cli.exits import OK

if TYPE_CHECKING:
    from flue_build.cli import AddParser

__all__ = ["register", "run"]


def register(add_parser: AddParser) -> None:
    parser = add_parser(
        "export",
        description="Write each skill of TARGET to DIR/<name>/ (SKILL.md and its files, byte for byte, "
        "checked against the manifest's sizes and SHA-256). TARGET is an installed package or "
        "distribution, MODULE:AGENT, a project folder (its skills, as check finds them), or a folder of skill "
        "folders. A different folder already at "
        "DIR/<name> is refused unless --force; on any failure DIR is left as it was.",
    )
    add_target_argument(parser)
    parser.add_argument(
        "dest", type=Path, metavar="DIR", help="the folder to write DIR/<name>/ into (created if missing)"
    )
    parser.add_argument("--force", action="store_true", help="replace folders in DIR that differ")
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="also export the skills a remote MCP server serves, to DIR/<server identity>/<name>/ beside an "
        "origin record, so a copy mounted again is that server's skill (its scripts need approval)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from flue_build.cli.targets import resolve_target  # here: `check` and `ls` do not pay for it
    from flue_runtime.format.diagnostics import printable
    from flue_runtime.integrations.export import export_skills

    target = resolve_target(args.target)
    for note in target.skipped:
        print(f"flue-skills export: warning: {printable(note)}", file=sys.stderr)
    for done in export_skills(target.skills, args.dest, force=args.force, allow_remote=args.allow_remote):
        print(f"{done.outcome:<9} {done.folder}")
    return OK
