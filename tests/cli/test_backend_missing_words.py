"""Issue 44 item 10: every command that reads a project asks its build backend, and where the backend is not
installed each says so in its own words: `check` names the pre-commit hook a user may run it from, `ls`, `eval` and
`export` name themselves, not a hook the user does not have. In process, with hatchling hidden the documented way
(`sys.modules[name] = None`)."""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import pytest
from support.tutorial import project_files

from flue_build.cli import main


def _project(folder: Path) -> Path:
    for path, text in project_files("tutorial.md", "hatchling").items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text, encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    "args",
    [["check", "."], ["ls", "."], ["eval", ".", "--model", "anthropic/claude-haiku-4-5"], ["export", ".", "out"]],
    ids=["check", "ls", "eval", "export"],
)
def test_a_missing_backend_is_told_in_each_commands_words(
    args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(tmp_path)
    for module in [name for name in sys.modules if name.split(".")[0] == "hatchling"]:
        monkeypatch.delitem(sys.modules, module)
    monkeypatch.setitem(sys.modules, "hatchling", None)
    err = io.StringIO()
    with contextlib.chdir(tmp_path), contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(args)
    [line] = err.getvalue().splitlines()
    command = args[0]
    assert status == 2 and line.startswith(f"flue-skills {command}: error: . builds with hatchling, which is not")
    assert f"install it where {command} runs (`pip install hatchling`)" in line
    assert ("pre-commit hook" in line) == (command == "check"), line
    assert line.endswith("and check again" if command == "check" else f"and run {command} again"), line
