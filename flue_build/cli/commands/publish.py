"""`flue-skills publish TARGET --to anthropic|openai [--lock PATH] [--check | --dry-run] [--format json]`: TARGET's
vetted skills on a hosted skills service, once per change (`flue_runtime.publish`); a progress line per skill on
stderr, the summary table on stdout. A skill of TARGET that vetting refused stops the whole publish: nothing is sent.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from flue_build.cli.agent_args import add_lock_argument, add_target_argument
from flue_build.cli.exits import OK, PROBLEMS

if TYPE_CHECKING:
    from flue_build.cli import AddParser
    from flue_runtime.publish import Outcome, PublishReport

__all__ = ["register", "run"]

_COLUMNS = ("skill", "service", "id", "version", "action")


def register(add_parser: AddParser) -> None:
    parser = add_parser(
        "publish",
        description="Upload each skill of TARGET, exactly the files vetting kept and its manifest records, to a "
        "hosted skills service through its official SDK (credentials and base URL as the SDK reads them: "
        "ANTHROPIC_API_KEY/ANTHROPIC_BASE_URL, OPENAI_API_KEY/OPENAI_BASE_URL). The lock file records each "
        "skill's id there, its version and its digest: an unchanged skill is not sent again; a changed one gets "
        "one new version (the default, on OpenAI). Every skill is checked against the service's rules first; "
        "one refused, or refused by vetting, and nothing is sent. Exit 1 when --check finds a skill drifted.",
    )
    add_target_argument(parser)
    parser.add_argument("--to", required=True, choices=("anthropic", "openai"), help="the service to publish to")
    add_lock_argument(parser)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--check",
        action="store_true",
        help="compare the skills with the lock and the service, send nothing that writes; exit 1 naming every "
        "skill changed here, changed there, or not published",
    )
    mode.add_argument("--dry-run", action="store_true", help="print what would be done, send nothing that writes")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from flue_build.cli.targets import resolve_target  # here: other commands do not pay for it
    from flue_runtime.errors import PublishError
    from flue_runtime.publish import publish

    target = resolve_target(args.target)
    if target.skipped:  # a skill vetting refused never leaves, and neither do the others: the set or nothing
        raise PublishError([f"refused by vetting: {note}" for note in target.skipped])
    report = publish(
        target.skills, to=args.to, lock=args.lock, check=args.check, dry_run=args.dry_run, progress=_progress
    )
    print(_json(report) if args.format == "json" else _table(report))
    return PROBLEMS if report.drifted else OK


def _progress(outcome: Outcome) -> None:
    from flue_runtime.format.diagnostics import printable

    where = f" ({outcome.id}, version {outcome.version})" if outcome.id else ""
    why = f": {outcome.why}" if outcome.why else ""
    print(printable(f"flue-skills publish: {outcome.skill}: {outcome.action}{where}{why}"), file=sys.stderr)


def _table(report: PublishReport) -> str:
    from flue_runtime.format.diagnostics import printable

    rows = [_COLUMNS] + [
        (o.skill, o.service, o.id or "-", o.version or "-", o.action + (f" ({o.why})" if o.why else ""))
        for o in report.outcomes
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(_COLUMNS) - 1)]
    return "\n".join(
        printable("  ".join([*(cell.ljust(width) for cell, width in zip(row, widths)), row[-1]])) for row in rows
    )


def _json(report: PublishReport) -> str:
    from flue_runtime.format.diagnostics import printable_json

    return printable_json([outcome.to_dict() for outcome in report.outcomes])
