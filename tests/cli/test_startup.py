"""`flue-skills check` imports what checking needs and no other command's module (issue 31, item 8).

A pre-commit hook starts `check` at every commit: its start-up is most of its cost (BENCHMARKS.md,
"`check` start-up"). Each test runs the CLI's `main` in a fresh interpreter and reads `sys.modules`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support.projects import write_skill

#: Each command's module: one file per command (`run` is `chat`, `mcp` is `serve`).
MODULES = {
    "check": "flue_build.cli.commands.check",
    "new": "flue_build.cli.commands.new",
    "schema": "flue_build.cli.commands.schema",
    "ls": "flue_build.cli.commands.ls",
    "prompt": "flue_build.cli.commands.prompt",
    "eval": "flue_build.cli.commands.eval",
    "run": "flue_build.cli.commands.run",
    "mcp": "flue_build.cli.commands.mcp",
    "export": "flue_build.cli.commands.export",
    "publish": "flue_build.cli.commands.publish",
    "lock": "flue_build.cli.commands.lock",
}

#: Print the modules imported by `main(argv)` as JSON (the status and output of `main` go to stderr).
PROBE = """\
import contextlib, json, sys
from flue_build.cli import main
with contextlib.redirect_stdout(sys.stderr):
    try:
        main(sys.argv[1:])
    except SystemExit:
        pass
print(json.dumps(sorted(sys.modules)))
"""


def imported(*argv: str, cwd: Path) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, cwd=cwd, timeout=120, check=True
    )
    return set(json.loads(done.stdout))


def test_the_table_names_every_command() -> None:
    from flue_build.cli import COMMANDS

    assert {command.name: command.module for command in COMMANDS} == MODULES


def test_check_imports_no_other_commands_module(tmp_path: Path) -> None:
    for name in ("alpha", "beta", "gamma"):
        write_skill(tmp_path / name)
    modules = imported("check", "alpha", "beta", "gamma", cwd=tmp_path)
    others = {module for name, module in MODULES.items() if name != "check"}
    assert "flue_build.cli.commands.check" in modules
    assert sorted(modules & others) == []
    # Nor what only those commands use: the agent loop, the model clients, wheel reading.
    assert not {m for m in modules if m.startswith(("flue_runtime.agents", "flue_runtime.models", "flue_runtime.mcp"))}
    assert "flue_build.cli.targets" not in modules and "zipfile" not in modules


def test_help_imports_no_command_module(tmp_path: Path) -> None:
    """`flue-skills --help` lists every command from its summary alone."""
    modules = imported("--help", cwd=tmp_path)
    assert sorted(modules & set(MODULES.values())) == []


def test_each_command_imports_its_own_module_only(tmp_path: Path) -> None:
    """`COMMAND --help` defines that command in full (its options shown) and no other."""
    for name, module in MODULES.items():
        modules = imported(name, "--help", cwd=tmp_path)
        assert sorted(modules & set(MODULES.values())) == [module], name
