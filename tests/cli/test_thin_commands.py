"""Commands are thin (issue 42 item 1): each `flue_build/cli/commands/<command>.py` holds its arguments and its
printing, at most `MOST` lines, and imports no other command's module; what a command does lives in a module of
its own (the run time's, usable from Python, or a helper beside the commands), which no command's module is."""

from __future__ import annotations

import ast
from pathlib import Path

from support.paths import ROOT

COMMANDS = ROOT / "flue_build" / "cli" / "commands"
PACKAGE = "flue_build.cli.commands"
#: The most lines a command's module may have: its parser, its handler and what it prints.
MOST = 200


def other_commands(path: Path) -> list[str]:
    """The command modules `path` imports besides its own (at the top, in functions, under TYPE_CHECKING)."""
    own = f"{PACKAGE}.{path.stem}"
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
            names += [node.module] if node.module.startswith(PACKAGE + ".") else []
        else:
            continue
        found += [f"{node.lineno}: {name}" for name in names if name.startswith(PACKAGE + ".") and name != own]
    return found


def command_modules() -> list[Path]:
    return sorted(path for path in COMMANDS.glob("*.py") if path.name != "__init__.py")


def test_no_module_imports_another_commands_module() -> None:
    """A command's module is imported by `flue_build.cli` alone, by its name in `COMMANDS`."""
    crossing = {
        str(path.relative_to(ROOT)): other_commands(path) for path in sorted((ROOT / "flue_build").rglob("*.py"))
    }
    assert {name: lines for name, lines in crossing.items() if lines} == {}


def test_each_command_module_is_at_most_200_lines() -> None:
    lengths = {path.name: len(path.read_text(encoding="utf-8").splitlines()) for path in command_modules()}
    assert {name: count for name, count in lengths.items() if count > MOST} == {}


def test_the_checks_see_a_crossing_import_and_a_long_module(tmp_path: Path) -> None:
    crossing = tmp_path / "eval.py"
    crossing.write_text(
        "from flue_build.cli import commands\n"
        "def f():\n    from flue_build.cli.commands.prompt import first_turn\n"
        "import flue_build.cli.commands.eval\n"
    )
    assert other_commands(crossing) == [
        "3: flue_build.cli.commands.prompt.first_turn",
        "3: flue_build.cli.commands.prompt",
    ]
    assert len(command_modules()) == 11
