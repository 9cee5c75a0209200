"""`flue-skills ls pkg | head`: a reader that stops early ends the command quietly, with no traceback, and the
status a shell reports for SIGPIPE (141): neither "problems found" nor a usage error."""

from __future__ import annotations

import os
import subprocess

import pytest
from clisupport import CLI


@pytest.mark.parametrize("command", [("schema",), ("check", "--format", "json")])
def test_a_closed_pipe_ends_the_command_without_a_traceback(cli: CLI, command: tuple[str, ...]) -> None:
    (cli.cwd / "greet").mkdir()
    (cli.cwd / "greet" / "SKILL.md").write_text("---\nname: greet\ndescription: Greets the user.\n---\nSay hello.\n")
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first byte: every write fails with EPIPE
    try:
        done = subprocess.run(
            cli.argv(*command),
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            cwd=cli.cwd,
            env=cli.env,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert done.stderr == ""
    assert done.returncode == 141
