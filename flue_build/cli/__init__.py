"""The `flue-skills` command: check, new, schema, ls, prompt, run, mcp, export.

Each command is a module with `register(commands)`, which adds its subparser and sets its
`handler`; `COMMANDS` lists them in the order `--help` shows. Every exit status is decided in
`exits`, the same for every command.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Protocol

import flue_runtime
from flue_build.cli import chat, check, exits, export, ls, new, prompt, schema, serve


class Command(Protocol):
    """A command's module: `register` adds its subparser, whose defaults set `handler(args) -> int`."""

    def register(self, commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None: ...


#: One module per command (`chat` is `run`, `serve` is `mcp`).
COMMANDS: tuple[Command, ...] = (check, new, schema, ls, prompt, chat, serve, export)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="flue-skills", description="Validate, scaffold and inspect agent skills.")
    parser.add_argument("--version", action="version", version=f"flue-skills {flue_runtime.__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The exit status (argparse's usage errors exit 2 through `SystemExit`)."""
    args = _parser().parse_args(argv)
    return exits.run(args.command, args.handler, args)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
