"""Issue 41 item 4: nothing the model writes runs when a script's interpreter starts.

The docs' own setup: `LocalSandbox(".", allow_exec=True)` in a project whose virtual environment is `.venv/`
inside it, and whose source folder is on `sys.path` (as an editable install puts it). The agent runs under that
venv's Python, in a child process; the model's `write` tool plants a `.pth`, a `sitecustomize.py` or a `.pyc`
where that interpreter loads code from at start-up, then asks `run_skill_script` to run the application's own
skill's script (approved by the default policy). The write is refused with a clear error, and the planted code
never runs; the script runs in an isolated interpreter (`-I`) that still imports its own sibling modules.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support.envs import clean_env, make_venv

pytestmark = pytest.mark.slow  # a virtual environment

AGENT = """
import json, sys
from flue_runtime import Harness, LocalSandbox, agent, define_skill, use_model, use_skill
from flue_runtime.models import ScriptedModel, ToolCall

writes = json.loads(sys.argv[1])
TOOLS = define_skill(
    name="tools",
    description="Has a script.",
    instructions="Run it.",
    files={
        "scripts/hello.py": "import sys\\nfrom helper import WORD\\nprint(WORD, sys.flags.isolated)\\n",
        "scripts/helper.py": "WORD = 'hello'\\n",
    },
)
model = ScriptedModel(
    [
        [ToolCall("write", {"path": path, "content": content}) for path, content in writes],
        [ToolCall("run_skill_script", {"skill": "tools", "script": "hello.py"})],
        "done",
    ]
)


@agent
def a():
    use_model(model)
    use_skill(TOOLS)
    return "x"


Harness(a, sandbox=LocalSandbox(".", allow_exec=True)).session("s").prompt_sync("go")
print(json.dumps([m for m in model.requests[-1].messages if m["role"] == "tool"]))
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """A project folder holding its venv (`.venv/`, seeing this environment's packages) and `src/`, on the venv's
    `sys.path` through a `.pth` as an editable install puts it; its python, and site-packages relative to it."""
    folder = tmp_path_factory.mktemp("project")
    python = make_venv(folder / ".venv")
    (folder / "src").mkdir()
    (folder / "src" / "project_code.py").write_text("VALUE = 1\n")
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(site, "_editable_project.pth").write_text(f"{folder / 'src'}\n")
    return folder, python, Path(site).relative_to(folder).as_posix()


#: Where the model plants code, by what it is; `{site}`: the venv's site-packages, `{code}`: the planted code.
CASES = {
    "a .pth": ("{site}/evil.pth", "import os; {code}"),
    "sitecustomize in site-packages": ("{site}/sitecustomize.py", "{code}"),
    "sitecustomize on sys.path": ("src/sitecustomize.py", "{code}"),
    "usercustomize on sys.path": ("src/usercustomize.py", "{code}"),
    "a .pyc in site-packages": ("{site}/__pycache__/project_code.cpython-311.pyc", "{code}"),
    "a .pyc on sys.path": ("src/__pycache__/project_code.cpython-311.pyc", "{code}"),
    "a sourceless .pyc on sys.path": ("src/evil.pyc", "{code}"),
    "the venv's configuration": (".venv/pyvenv.cfg", "home = /nowhere"),
}


def prompted(folder: Path, python: Path, writes: list[tuple[str, str]], cache: Path) -> list[dict[str, Any]]:
    """The tool results of one conversation of the agent in `folder`: `writes`, then the script."""
    done = subprocess.run(
        [str(python), "-c", AGENT, json.dumps(writes)],
        capture_output=True,
        text=True,
        cwd=folder,
        env=clean_env(XDG_CACHE_HOME=str(cache)),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    results: list[dict[str, Any]] = json.loads(done.stdout.splitlines()[-1])
    return results


def test_the_model_cannot_plant_code_where_a_scripts_interpreter_starts(
    project: tuple[Path, Path, str], tmp_path: Path
) -> None:
    folder, python, site = project
    markers = {case: tmp_path / f"ran-{index}" for index, case in enumerate(CASES)}
    writes = [
        (where.format(site=site), content.replace("{code}", f"open({str(markers[case])!r}, 'w').write('ran')"))
        for case, (where, content) in CASES.items()
    ]
    before = {path: (folder / path).read_bytes() if (folder / path).exists() else None for path, _ in writes}
    try:
        *wrote, ran = prompted(folder, python, writes, tmp_path / "cache")
    finally:
        for path, content in before.items():  # (before the fix: what was planted is taken out again)
            if content is not None:
                (folder / path).write_bytes(content)
            elif (folder / path).exists():
                (folder / path).unlink()
    assert [case for case, marker in markers.items() if marker.exists()] == [], "planted code ran"
    for case, result in zip(CASES, wrote):
        assert result["is_error"], (case, result)
        assert "where Python loads code from when it starts" in result["content"], (case, result)
    assert not ran["is_error"] and ran["content"].startswith("exit status: 0\n--- stdout ---\nhello 1\n"), ran


def test_the_model_still_writes_everywhere_else(project: tuple[Path, Path, str], tmp_path: Path) -> None:
    """A file beside the project's code, files named like start-up ones outside the interpreter's `sys.path`
    (the sandbox folder is not on it: `-I` leaves the working folder out): written."""
    folder, python, _ = project
    paths = ["src/notes.md", "docs/sitecustomize.py", "docs/__pycache__/x.txt"]
    *wrote, _ = prompted(folder, python, [(path, "text\n") for path in paths], tmp_path / "cache")
    assert not any(result["is_error"] for result in wrote), wrote
    assert all((folder / path).read_text() == "text\n" for path in paths)
