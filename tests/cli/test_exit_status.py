"""One exit-status policy for every `flue-skills` command (issue 23.5), in this process.

0 done; 1 problems found in what the command was pointed at; 2 usage or environment (a bad
argument, a TARGET that names nothing, a missing package or extra). Each command is a module
that registers itself; the status is decided in `flue_build.cli.exits` and nowhere else.
The child-process cases (`run`, a served `mcp`, missing extras) are in `test_exit_status_processes.py`.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import pkgutil
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from support.paths import PROJECTS
from support.projects import copy_project, write_skill

import flue_build.cli as cli_package
from flue_build.cli import COMMANDS, _parser, exits, main
from flue_build.errors import TargetError, UsageError
from flue_runtime.errors import (
    ConfigError,
    DestinationError,
    ExportError,
    FlueError,
    HostedServiceError,
    LockFileError,
    ModelError,
    PublishError,
    SkillError,
    StoreError,
)

OK, PROBLEMS, USAGE = 0, 1, 2
CLI_DIR = Path(cli_package.__file__).parent
CLI_PAGE = Path(__file__).resolve().parents[2] / "docs" / "reference" / "cli.md"


#: Each command's module, in `--help` order (the CLI itself imports only the one it runs).
COMMAND_MODULES: list[ModuleType] = [importlib.import_module(command.module) for command in COMMANDS]


def cli_modules() -> list[ModuleType]:
    """Every module of the CLI: the helpers in `flue_build.cli`, the commands in `flue_build.cli.commands`."""
    return [
        importlib.import_module(f"{package}.{m.name}")
        for package, folder in (
            (cli_package.__name__, CLI_DIR),
            (f"{cli_package.__name__}.commands", CLI_DIR / "commands"),
        )
        for m in pkgutil.iter_modules([str(folder)])
        if not m.ispkg
    ]


def defines_a_command(module: ModuleType) -> bool:
    """The module adds a subparser somewhere in its source: it defines a command."""
    tree = ast.parse(Path(str(module.__file__)).read_text(encoding="utf-8"))
    return any(
        isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Attribute) and node.func.attr == "add_parser")
            or (isinstance(node.func, ast.Name) and node.func.id == "add_parser")
        )
        for node in ast.walk(tree)
    )


def registered(module: ModuleType) -> dict[str, argparse.ArgumentParser]:
    """What the module's `register` adds to a parser of its own, by command name."""
    commands = argparse.ArgumentParser().add_subparsers(dest="command")
    module.register(commands.add_parser)
    return dict(commands.choices)


def command_names() -> list[str]:
    return [name for module in COMMAND_MODULES for name in registered(module)]


# --- every command registers itself -------------------------------------------------------


def test_every_module_that_defines_a_command_registers_itself() -> None:
    defining = [m.__name__ for m in cli_modules() if defines_a_command(m)]
    assert sorted(defining) == sorted(m.__name__ for m in COMMAND_MODULES)
    for command, module in zip(COMMANDS, COMMAND_MODULES):
        ((name, parser),) = registered(module).items()  # one command per module
        handler = parser.get_default("handler")
        assert callable(handler) and handler.__module__ == module.__name__, module.__name__
        assert name == command.name, module.__name__
        # named for its command, apart from the helpers (issue 35 item 8)
        assert module.__name__ == f"flue_build.cli.commands.{command.name}"


def test_each_commands_summary_is_written_once_in_the_table() -> None:
    """`--help` lists each command's line without importing its module, from `COMMANDS`; the module's parser gets
    the same line from there (issue 42 item 6), never a copy of its own."""
    for module in COMMAND_MODULES:
        tree = ast.parse(Path(str(module.__file__)).read_text(encoding="utf-8"))
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "add_parser"]
        assert calls and not [k for c in calls for k in c.keywords if k.arg == "help"], module.__name__
    (full,) = [a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction)]
    (named,) = [a for a in _parser(load=())._actions if isinstance(a, argparse._SubParsersAction)]
    listed = [(c.dest, c.help) for c in named._choices_actions]
    assert listed == [(c.dest, c.help) for c in full._choices_actions] == [(c.name, c.summary) for c in COMMANDS]
    assert _parser(load=()).format_help() == _parser().format_help()


def test_the_parser_lists_exactly_the_registered_commands() -> None:
    names = command_names()
    assert names == ["check", "new", "schema", "ls", "prompt", "eval", "run", "mcp", "export", "publish", "lock"]
    (commands,) = [a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction)]
    assert list(commands.choices) == names
    listed = re.findall(r"^    (\S+)\s", _parser().format_help(), flags=re.M)
    assert listed == names


def test_the_package_dispatches_nothing_itself() -> None:
    """No if-chain over command names beside the registered handlers: `__init__` only builds the parser
    (a command it does not run is named with its summary alone, so that its module is not imported)."""
    source = (CLI_DIR / "__init__.py").read_text(encoding="utf-8")
    assert source.count("add_parser(") == source.count("add_parser(command.name, help=command.summary)") == 1
    assert source.count("partial(") == source.count("partial(commands.add_parser, help=command.summary)") == 1
    assert "args.command ==" not in source


def literal_statuses(module: ModuleType) -> list[str]:
    """Where a module decides an exit status with a number of its own: `return 1`, `exit(2)`, `SystemExit(1)`."""
    found = []
    for node in ast.walk(ast.parse(Path(str(module.__file__)).read_text(encoding="utf-8"))):
        value: ast.expr | None = None
        if isinstance(node, ast.Return):
            value = node.value
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in ("exit", "_exit", "SystemExit"):
                value = node.args[0]
        if isinstance(value, ast.Constant) and type(value.value) is int:
            found.append(f"{module.__name__}:{node.lineno}")
    return found


def test_only_exits_decides_a_status() -> None:
    assert [where for m in cli_modules() if m is not exits for where in literal_statuses(m)] == []


# --- a failure raised in any command exits as `exits` decides -----------------------------

RAISED: list[tuple[BaseException, int]] = [
    (UsageError("an option that needs another"), USAGE),
    (UsageError("'x': no such wheel"), USAGE),
    (UsageError("'x': no installed package or distribution"), USAGE),
    (DestinationError("out/x exists and differs"), USAGE),
    (StoreError("cannot open the store"), USAGE),
    (StoreError("an empty session id"), USAGE),
    (ModelError("the anthropic SDK is not installed"), USAGE),
    (ModuleNotFoundError("No module named 'mcp'", name="mcp"), USAGE),
    (PermissionError(13, "Permission denied", "out"), USAGE),
    (FlueError("something in the skills"), PROBLEMS),
    (TargetError("the wheel ships no skills"), PROBLEMS),
    (TargetError("'x': no skills found"), PROBLEMS),
    (ExportError("a file does not match its manifest"), PROBLEMS),
    (PublishError(["skill 'claude-notes': Anthropic refuses a reserved word"]), PROBLEMS),
    (HostedServiceError("Anthropic", "refunds", "the API answered 401"), USAGE),
    (LockFileError(Path("flue-skills.lock"), 3, "invalid TOML"), USAGE),
    (SkillError([]), PROBLEMS),
    (ConfigError(Path("pyproject.toml"), ["tool.flue.strict: must be true or false"]), PROBLEMS),
]


def minimal_argv(name: str) -> list[str]:
    """The command and a value for each argument it requires: a positional one, or an option (its first choice)."""
    parser = dict(_subparsers())[name]
    argv = [name]
    for action in parser._actions:
        if not action.option_strings and action.nargs in (None, "+") and action.required:
            argv.append("x")
        elif action.option_strings and action.required:
            argv += [action.option_strings[0], next(iter(action.choices or ["x"]))]
    return argv


def _subparsers() -> list[tuple[str, argparse.ArgumentParser]]:
    (commands,) = [a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return list(commands.choices.items())


def raising(exc: BaseException) -> Callable[[argparse.Namespace], int]:
    def handler(args: argparse.Namespace) -> int:
        raise exc

    return handler


@pytest.mark.parametrize("module", COMMAND_MODULES, ids=lambda m: m.__name__.rpartition(".")[2])
def test_a_failure_in_any_command_exits_as_exits_decides(
    module: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ((name, parser),) = registered(module).items()
    handler = parser.get_default("handler").__name__  # `register` reads it from the module when the parser is built
    for exc, expected in RAISED:
        monkeypatch.setattr(module, handler, raising(exc))
        assert main(minimal_argv(name)) == expected == exits.status(exc), (name, exc)
        err = capsys.readouterr().err
        assert err.splitlines()[-1].startswith(f"flue-skills {name}: error: "), err
        assert "Traceback" not in err
    # A bug in flue-skills itself: its traceback, and 2, so that 1 always means problems found.
    monkeypatch.setattr(module, handler, raising(KeyError("oops")))
    assert main(minimal_argv(name)) == USAGE
    err = capsys.readouterr().err
    assert (
        "Traceback" in err
        and err.splitlines()[-1] == f"flue-skills {name}: internal error: a bug in flue-skills; please report it"
    )


def test_every_flue_error_has_one_status() -> None:
    """Every error class is 1 or 2 by the one table, whatever else it also is (an `OSError`, a `LookupError`)."""

    def subclasses(cls: type[BaseException]) -> list[type[BaseException]]:
        return [cls] + [s for sub in cls.__subclasses__() for s in subclasses(sub)]

    for cls in subclasses(FlueError):
        in_table = issubclass(cls, exits.USAGE_OR_ENVIRONMENT)
        assert exits.status(cls.__new__(cls)) == (USAGE if in_table else PROBLEMS), cls


# --- each command, for real ------------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """`main(argv)`'s exit status (argparse's own through `SystemExit`) and what it wrote on stderr."""
    try:
        code = main(list(argv))
    except SystemExit as exited:
        code = exited.code if isinstance(exited.code, int) else USAGE
    return code, capsys.readouterr().err


def bad_skill(folder: Path) -> Path:
    return write_skill(folder, files={".env": "TOKEN=x\n"})


def test_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good, bad = write_skill(tmp_path / "good"), bad_skill(tmp_path / "bad")
    project = copy_project("hatch-flat", tmp_path / "p")
    with open(project / "pyproject.toml", "a") as handle:
        handle.write('\n[tool.flue]\nstrict = "no"\n')
    assert run(capsys, "check", str(good))[0] == OK
    assert run(capsys, "check", str(bad))[0] == PROBLEMS
    assert run(capsys, "check", str(tmp_path / "empty-dir-missing"))[0] == USAGE  # no such path
    assert run(capsys, "check", str(project))[0] == PROBLEMS  # the project's [tool.flue] is wrong
    assert run(capsys, "check", "--format", "xml", str(good))[0] == USAGE
    code, err = run(capsys, "check", str(tmp_path / ("x" * 300)))  # a name the file system refuses
    assert code == USAGE and "Traceback" not in err and err.startswith("flue-skills check: error: "), err


def test_new_and_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "new", "greet", "--dir", str(tmp_path))[0] == OK
    assert run(capsys, "new", "greet", "--dir", str(tmp_path))[0] == USAGE  # already there
    assert run(capsys, "new", "Bad_Name", "--dir", str(tmp_path))[0] == USAGE
    (tmp_path / "a-file").write_text("")
    code, err = run(capsys, "new", "greet", "--dir", str(tmp_path / "a-file"))  # cannot be written there
    assert code == USAGE and err == f"flue-skills new: error: {tmp_path / 'a-file' / 'greet'}: Not a directory\n", err
    assert run(capsys, "schema")[0] == OK
    assert run(capsys, "schema", "extra")[0] == USAGE


def test_ls(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused = copy_project("hatch-flat", tmp_path / "p")
    (refused / "hatch_flat_demo" / "skills" / "code-review" / ".env").write_text("TOKEN=x\n")
    assert run(capsys, "ls", str(PROJECTS / "hatch-flat"))[0] == OK
    code, err = run(capsys, "ls", str(refused))
    assert code == PROBLEMS and "FLU302" in err
    assert run(capsys, "ls", "json")[0] == PROBLEMS  # installed, but ships no skills
    code, err = run(capsys, "ls", "no_such_distribution_xyz")
    assert code == USAGE and "no installed package or distribution" in err
    assert run(capsys, "ls", str(tmp_path / "missing.whl"))[0] == USAGE
    assert run(capsys, "ls", str(tmp_path))[0] == USAGE  # a folder that is no project
    assert run(capsys, "ls")[0] == USAGE


def test_prompt(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "prompt", "cli_agents:support")[0] == OK
    code, err = run(capsys, "prompt", "cli_agents:broken")
    assert code == PROBLEMS and "rendering the agent raised RuntimeError" in err
    for unknown in ("cli_agents", "no_such_module_xyz:agent", "cli_agents:nothing"):
        assert run(capsys, "prompt", unknown)[0] == USAGE, unknown
    assert run(capsys, "prompt", "cli_agents:support", "--state", "tier=gold")[0] == USAGE


def test_mcp_before_it_serves(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad_skill(tmp_path / "refused" / "bad")
    code, err = run(capsys, "mcp", str(tmp_path / "refused"))
    assert code == PROBLEMS and "no skills found" in err
    assert run(capsys, "mcp", "no_such_distribution_xyz")[0] == USAGE
    assert run(capsys, "mcp", "no_such_module_xyz:agent")[0] == USAGE
    assert run(capsys, "mcp", str(tmp_path), "--http", "localhost:http")[0] == USAGE
    code, err = run(capsys, "mcp", str(tmp_path), "--http", "0.0.0.0:0")
    assert code == USAGE and "--allow-remote" in err


def test_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    skills = tmp_path / "skills"
    write_skill(skills / "greet")
    out = tmp_path / "out"
    assert run(capsys, "export", str(skills), str(out))[0] == OK
    (out / "greet" / "SKILL.md").write_text("---\nname: greet\ndescription: Someone else's.\n---\n")
    code, err = run(capsys, "export", str(skills), str(out))
    assert code == USAGE and "exists and differs" in err  # DIR has another folder in the way
    shutil.rmtree(out)
    bad_skill(tmp_path / "refused" / "bad")
    assert run(capsys, "export", str(tmp_path / "refused"), str(out))[0] == PROBLEMS
    assert run(capsys, "export", "no_such_distribution_xyz", str(out))[0] == USAGE
    assert run(capsys, "export", str(skills))[0] == USAGE  # DIR missing


# --- documented ---------------------------------------------------------------------------


def test_the_cli_page_table_is_the_policy() -> None:
    text = CLI_PAGE.read_text(encoding="utf-8")
    section = text.split("## Exit status of every command", 1)[1].split("\n#", 1)[0]
    rows = {row.split("|")[1].strip(): row for row in section.splitlines() if row.startswith("| ")}
    named = set(re.findall(r"`(\w+)`", rows["2"]))
    assert named == {cls.__name__ for cls in exits.USAGE_OR_ENVIRONMENT}
    assert set(rows) == {"exit", "0", "1", "2", f"{exits.INTERRUPTED}, {exits.BROKEN_PIPE}"}
