"""The exit-status policy (issue 23.5) where only a child process shows it: `run` reading its input,
`mcp` serving until end of input, and commands whose optional extra is not installed.

A missing extra is made real for the child alone: `sys.modules[name] = None` makes every
`import name` in it raise `ImportError`, as on a machine without the package.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from clisupport import CLI
from support.projects import write_skill

pytestmark = pytest.mark.slow  # the console script in child processes

OK, PROBLEMS, USAGE = 0, 1, 2


def without(cli: CLI, missing: str, *argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """`flue-skills argv...` in a Python where `import missing` fails."""
    code = (
        f"import sys; sys.modules[{missing!r}] = None\n"
        "from flue_build.cli import main\n"
        "raise SystemExit(main(sys.argv[1:]))"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *argv],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cli.cwd,
        env=cli.env,
        timeout=120,
    )


def one_error_line(done: subprocess.CompletedProcess[str], command: str, words: str) -> None:
    assert "Traceback" not in done.stderr, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"flue-skills {command}: error: ") and words in last, done.stderr


def test_run(cli: CLI) -> None:
    done = cli.run("run", "cli_agents:support", stdin="hello\n")
    assert done.returncode == OK, done.stderr
    done = cli.run("run", "cli_agents:short", stdin="one\ntwo\n")  # the second turn fails
    assert done.returncode == PROBLEMS and "this turn was not saved" in done.stderr, done.stderr
    done = cli.run("run", "cli_agents:broken", stdin="hi\n")
    assert done.returncode == PROBLEMS
    one_error_line(done, "run", "rendering the agent raised RuntimeError")
    for argv, words in [
        (("cli_agents:support", "--session", "x"), "--session needs --store PATH"),
        (("cli_agents:modelless",), "calls no use_model(); pass --model PROVIDER/NAME"),
        (("cli_agents:support", "--model", "nowhere/x"), "unknown model provider 'nowhere'"),
        (("no_such_module_xyz:agent",), "cannot import 'no_such_module_xyz'"),
    ]:
        done = cli.run("run", *argv, stdin="hi\n")
        assert done.returncode == USAGE, (argv, done.stderr)
        one_error_line(done, "run", words)


def test_run_without_a_models_sdk_or_the_stores_driver(cli: CLI) -> None:
    done = without(cli, "anthropic", "run", "cli_agents:support", "--model", "anthropic/claude-haiku-4-5", stdin="hi\n")
    assert done.returncode == USAGE and done.stdout == "", done.stderr
    one_error_line(done, "run", "flue-skills[anthropic]")
    done = without(cli, "psycopg", "run", "cli_agents:support", "--store", "postgresql://127.0.0.1:9/x", stdin="hi\n")
    assert done.returncode == USAGE and done.stdout == "", done.stderr
    one_error_line(done, "run", "flue-skills[postgres]")


def test_mcp_serves_then_exits_0_and_without_the_sdk_exits_2(cli: CLI) -> None:
    write_skill(cli.cwd / "skills" / "greet")
    done = cli.run("mcp", "skills")  # stdio: it ends at end of input
    assert done.returncode == OK, done.stderr
    done = without(cli, "mcp", "mcp", "skills")
    assert done.returncode == USAGE
    one_error_line(done, "mcp", "pip install 'flue-skills[mcp]'")
