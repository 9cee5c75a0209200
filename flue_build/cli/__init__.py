"""The `flue-skills` command: check, new, schema, ls, prompt, eval, run, mcp, export, publish, lock.

Each command is a module of `flue_build.cli.commands`, named for it, with `register(add_parser)`, which adds its
subparser and sets its `handler`; `COMMANDS` names them in the order `--help` shows, each with the one line `--help`
lists (given to the command's parser from there: a command writes its description, never its summary). Only the module of the command being run is imported (pip's `commands_dict` does the same):
`flue-skills check` never pays for the imports of `run`, `ls` or `mcp`. Every exit status is
decided in `exits`, the same for every command.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import sys
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Protocol, cast

import flue_runtime
from flue_build.cli import exits

__all__ = ["COMMANDS", "AddParser", "Command", "CommandModule", "main"]


class AddParser(Protocol):
    """What a command's `register` is given: the subcommands' `add_parser` with the command's summary (`help`) set,
    called with its name and `description`."""

    def __call__(self, name: str, *, description: str | None = ...) -> argparse.ArgumentParser: ...


class CommandModule(Protocol):
    """A command's module: `register` adds its subparser, whose defaults set `handler(args) -> int`."""

    def register(self, add_parser: AddParser) -> None: ...


@dataclass(frozen=True)
class Command:
    """A command as `--help` lists it, and the module that defines it, imported only to run it."""

    name: str
    module: str
    #: The line `flue-skills --help` shows, and the `help` of the command's parser.
    summary: str

    def load(self) -> CommandModule:
        return cast(CommandModule, importlib.import_module(self.module))


#: One module per command, named for it, in the order `--help` shows.
COMMANDS: tuple[Command, ...] = (
    Command(
        "check",
        "flue_build.cli.commands.check",
        "validate skills: a skill folder, a SKILL.md, a folder searched recursively, or a project",
    ),
    Command("new", "flue_build.cli.commands.new", "scaffold a valid skill"),
    Command("schema", "flue_build.cli.commands.schema", "print the SKILL.md frontmatter JSON Schema"),
    Command("ls", "flue_build.cli.commands.ls", "list the skills a wheel, an installed package or a project ships"),
    Command(
        "prompt",
        "flue_build.cli.commands.prompt",
        "print what an agent sends on its first model turn: system prompt, catalog, tools, tokens",
    ),
    Command(
        "eval",
        "flue_build.cli.commands.eval",
        "measure skill routing: trigger rates of each skill's evals/triggers.json through a model",
    ),
    Command("run", "flue_build.cli.commands.run", "talk to an agent in the terminal"),
    Command(
        "mcp", "flue_build.cli.commands.mcp", "serve skills over the Model Context Protocol (needs flue-skills[mcp])"
    ),
    Command(
        "export",
        "flue_build.cli.commands.export",
        "write skills as plain folders, for runtimes that read skills from disk",
    ),
    Command(
        "publish",
        "flue_build.cli.commands.publish",
        "upload skills to Anthropic's or OpenAI's hosted skills, once per change (needs flue-skills[anthropic] "
        "or [openai])",
    ),
    Command(
        "lock",
        "flue_build.cli.commands.lock",
        "pin the skills remote MCP servers serve now, for remote_skills(..., lock=) (needs flue-skills[mcp])",
    ),
)


def _parser(load: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The whole parser; with `load`, only those commands are defined in full and the others are
    named with their summary (enough for `--help` and for argparse's "invalid choice")."""
    parser = argparse.ArgumentParser(prog="flue-skills", description="Validate, scaffold and inspect agent skills.")
    parser.add_argument("--version", action="version", version=f"flue-skills {flue_runtime.__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        if load is None or command.name in load:
            command.load().register(functools.partial(commands.add_parser, help=command.summary))
        else:
            commands.add_parser(command.name, help=command.summary)
    return parser


def _chosen(argv: Sequence[str]) -> str | None:
    """The command `argv` names: its first word that is not an option (the top level's options,
    `--help` and `--version`, take no value)."""
    return next((word for word in argv if not word.startswith("-")), None)


def main(argv: Sequence[str] | None = None) -> int:
    """The exit status (argparse's usage errors exit 2 through `SystemExit`)."""
    words = sys.argv[1:] if argv is None else list(argv)
    chosen = _chosen(words)
    args = _parser(() if chosen is None else (chosen,)).parse_args(words)
    return exits.run_command(args.command, args.handler, args)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
