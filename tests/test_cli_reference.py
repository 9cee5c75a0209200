"""The CLI reference (`docs/reference/cli.md`): its generated part is what the parsers define, every command and
argument of them, beside the hand-written table of commands and exit statuses (`scripts/cli_reference.py`)."""

from __future__ import annotations

import argparse
import importlib.util
from types import ModuleType

from support.paths import ROOT

from flue_build.cli import COMMANDS, _parser


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cli_reference", ROOT / "scripts" / "cli_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_is_what_the_parsers_give() -> None:
    """After changing a parser, run `python scripts/cli_reference.py` to rewrite the page's generated part."""
    script = generator()
    text = script.PAGE.read_text(encoding="utf-8")
    assert script.refreshed(text) == text


def test_every_command_and_argument_is_on_the_page() -> None:
    script = generator()
    text = script.PAGE.read_text(encoding="utf-8")
    generated = text.split(script.BEGIN, 1)[1].split(script.END, 1)[0]
    [commands] = [a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction)]
    for command in COMMANDS:
        section = generated.split(f"### `flue-skills {command.name}`\n", 1)[1].split("\n### ", 1)[0]
        assert f"\nusage: flue-skills {command.name} " in section, command.name
        for action in commands.choices[command.name]._actions:
            for name in action.option_strings or [str(action.metavar)]:
                assert name in ("-h", "--help") or f"| `{name}" in section, (command.name, name)


def test_the_hand_written_parts_stay() -> None:
    """The table of commands and the exit statuses come before the generated part, which changes nothing else."""
    script = generator()
    text = script.PAGE.read_text(encoding="utf-8")
    head = text.split(script.BEGIN, 1)[0]
    assert "## Exit status of every command" in head and "| 130, 141 |" in head
    assert all(f"| `{command.name}` |" in head for command in COMMANDS)
    assert script.refreshed(text).split(script.BEGIN, 1)[0] == head
