"""Issue 20 item 3: nothing the model can write is ever executed or trusted as a skill.

The README's own setup: an agent module at the root of a project calls
`skill("./skills/csv-tools/SKILL.md")` (dev mode: the folder is vetted at every resolution, here
at every render) and the sandbox is the project itself, `LocalSandbox(".")`. The model's `write`
tool must never land inside the skill's folder, however the path is spelled (a link in the
sandbox, `./`, `..`, a file link, a new folder); such a skill runs scripts only when the
application says so (`exec_skills_inside=True`); and a script runs only bytes whose hash
matches the verdict recorded when the skill was vetted, from a private copy. Each session runs
in a process of its own, as an application would.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from harness_support import tool_results
from support.procs import run

from flue_runtime import Harness, LocalSandbox, agent, use_model, use_skill
from flue_runtime.errors import SandboxError
from flue_runtime.models import ScriptedModel, ToolCall
from flue_runtime.mount.disk import load_skill_dir

pytestmark = pytest.mark.slow  # sessions in child processes, scripts run for real

SKILL_MD = """---
name: csv-tools
description: Count rows of CSV files. Use when the user shares a CSV file.
---
Run scripts/count.py.
"""
VETTED = "import os\nopen(os.path.join(os.getcwd(), 'RAN'), 'a').write('vetted\\n')\nprint('vetted count')\n"
#: What the model (or anyone behind the harness's back) would like to run instead.
EVIL = "import os\nopen(os.path.join(os.getcwd(), 'PWNED'), 'w').write('x')\nprint('model code')\n"
APP = textwrap.dedent(
    """
    from flue_runtime import agent, skill, use_model, use_skill

    MODEL = None
    AT_IMPORT = skill("./skills/csv-tools/SKILL.md")


    @agent
    def helper():
        use_model(MODEL)
        use_skill(skill("./skills/csv-tools/SKILL.md"))  # resolved, and vetted, at every render
        return "Help with CSV files."
    """
)
DRIVER = textwrap.dedent(
    """
    import json, os, sys
    sys.path.insert(0, os.getcwd())
    import app
    from flue_runtime import Harness, LocalSandbox
    from flue_runtime.models import ScriptedModel, ToolCall

    turns, options = json.loads(sys.argv[1]), json.loads(sys.argv[2])
    app.MODEL = ScriptedModel([[ToolCall(name, arguments) for name, arguments in turn] for turn in turns] + ["done"])
    sandbox = LocalSandbox(options.pop("root", "."), **options)
    Harness(app.helper, sandbox=sandbox).session("s").prompt_sync("go")
    print(json.dumps([m for m in app.MODEL.requests[-1].messages if m["role"] == "tool"]))
    """
)


def make_project(base: Path) -> Path:
    project = base / "project"
    scripts = project / "skills" / "csv-tools" / "scripts"
    scripts.mkdir(parents=True)
    (project / "app.py").write_text(APP)
    (project / "skills" / "csv-tools" / "SKILL.md").write_text(SKILL_MD)
    (scripts / "count.py").write_text(VETTED)
    return project


def snapshot(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        for p in sorted(folder.rglob("*"))
    }


def session(project: Path, turns: list[list[tuple[str, dict[str, Any]]]], **options: Any) -> list[dict[str, Any]]:
    """Every tool result of one prompt, run in a child process from the project's root."""
    env = {**os.environ, "XDG_CACHE_HOME": str(project.parent / "cache")}
    proc = run([sys.executable, "-c", DRIVER, json.dumps(turns), json.dumps(options)], cwd=project, env=env)
    results: list[dict[str, Any]] = json.loads(proc.stdout)
    return results


def call_script() -> tuple[str, dict[str, Any]]:
    return ("run_skill_script", {"skill": "csv-tools", "script": "scripts/count.py"})


#: Every way a write could reach the skill's folder from the project's root.
INTO_THE_SKILL = [
    "skills/csv-tools/scripts/count.py",
    "/skills/csv-tools/scripts/count.py",
    "./skills/./csv-tools/scripts/count.py",
    "skills//csv-tools/scripts/count.py",
    "skills/csv-tools/SKILL.md",
    "skills/csv-tools/scripts/helper.py",  # a new file
    "skills/csv-tools/scripts/deeper/new.py",  # a new folder
    "skills/other/../csv-tools/scripts/count.py",
    "alias/scripts/count.py",  # alias -> skills/csv-tools, a link inside the sandbox
    "tools/count.py",  # tools -> skills/csv-tools/scripts
    "count-link.py",  # a link to the script itself
    "alias/new-folder/x.py",
]


def test_the_write_tool_never_lands_in_a_dev_mode_skill_folder(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    os.symlink("skills/csv-tools", project / "alias")
    os.symlink("skills/csv-tools/scripts", project / "tools")
    os.symlink("skills/csv-tools/scripts/count.py", project / "count-link.py")
    before = snapshot(project / "skills")
    writes = [("write", {"path": path, "content": EVIL}) for path in INTO_THE_SKILL]
    results = session(
        project,
        [writes + [("write", {"path": "notes/reply.md", "content": "fine"})], [call_script()]],
        allow_exec=True,
        exec_skills_inside=True,
    )
    refused, (wrote, ran) = results[: len(writes)], results[len(writes) :]
    assert [r["is_error"] for r in refused] == [True] * len(writes), refused
    for result, path in zip(refused, INTO_THE_SKILL):
        if "//" in path or ".." in path:  # refused as a path before it reaches the disk
            assert "refused path" in result["content"], result
        else:
            assert "the folder of a skill the application mounted from disk" in result["content"], result
            assert str(project / "skills" / "csv-tools") in result["content"]
    assert wrote["is_error"] is False and (project / "notes" / "reply.md").read_text() == "fine"
    assert snapshot(project / "skills") == before  # not a byte changed, nothing added
    assert ran["content"] == "exit status: 0\n--- stdout ---\nvetted count\n--- stderr: empty ---"
    assert not (project / "PWNED").exists()


def test_a_sandbox_inside_the_skill_folder_writes_nothing_there(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    before = snapshot(project / "skills")
    results = session(
        project,
        [[("write", {"path": "count.py", "content": EVIL}), ("write", {"path": "any/new.md", "content": "x"})]],
        root="skills/csv-tools/scripts",
    )
    assert all(r["is_error"] and "mounted from disk" in r["content"] for r in results), results
    assert snapshot(project / "skills") == before


def test_a_dev_mode_skill_inside_the_sandbox_runs_scripts_only_when_the_application_says_so(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    [refused] = session(project, [[call_script()]], allow_exec=True)
    assert refused["is_error"] is True
    assert "LocalSandbox(..., allow_exec=True, exec_skills_inside=True)" in refused["content"]
    assert "the sandbox" in refused["content"] and "lies inside it" not in refused["content"]  # it holds the skill
    assert not (project / "RAN").exists()
    [ran] = session(project, [[call_script()]], allow_exec=True, exec_skills_inside=True)
    assert ran["is_error"] is False and "vetted count" in ran["content"]
    assert (project / "RAN").read_text() == "vetted\n"
    # A sandbox inside the skill's folder is the same case.
    [inner] = session(project, [[call_script()]], root="skills/csv-tools", allow_exec=True)
    assert inner["is_error"] and "lies inside it" in inner["content"]
    with pytest.raises(SandboxError, match="needs allow_exec=True"):
        LocalSandbox(project, exec_skills_inside=True)


CHANGED_BEHIND = textwrap.dedent(
    """
    import json, os, sys
    sys.path.insert(0, os.getcwd())
    import app
    from flue_runtime import FlueError, Harness, LocalSandbox, agent, use_model, use_skill
    from pathlib import Path
    from flue_runtime.agents.scripts import materialise
    from flue_runtime.models import ScriptedModel, ToolCall

    call = ToolCall("run_skill_script", {"skill": "csv-tools", "script": "count.py"})
    model = ScriptedModel([[call], "ok"])

    @agent
    def helper():
        use_model(model)
        use_skill(app.AT_IMPORT)
        return "x"

    Harness(helper, sandbox=LocalSandbox("work", allow_exec=True)).session("s").prompt_sync("first")
    vetted = app.AT_IMPORT.current()  # the verdict a render records
    with open(os.path.join("skills", "csv-tools", "scripts", "count.py"), "w") as handle:
        handle.write(sys.argv[1])  # changed on disk after that vetting, before the copy is made
    try:
        materialise(vetted, Path(os.environ["XDG_CACHE_HOME"], "fresh"))
        refused = ""
    except FlueError as exc:
        refused = str(exc)
    print(json.dumps([[m for m in model.requests[1].messages if m["role"] == "tool"][-1], refused]))
    """
)


def test_a_script_changed_after_vetting_never_runs(tmp_path: Path) -> None:
    """Dev mode vets again at every render (issue 21), and each render records its verdict: bytes that
    changed after the verdict was recorded are never copied, so they never run."""
    project = make_project(tmp_path)
    (project / "work").mkdir()  # the sandbox: the skill lies outside it
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = run([sys.executable, "-c", CHANGED_BEHIND, EVIL], cwd=project, env=env)
    first, refused = json.loads(proc.stdout)
    assert first["content"] == "exit status: 0\n--- stdout ---\nvetted count\n--- stderr: empty ---"
    assert "scripts/count.py differs from what was vetted" in refused and "nothing ran" in refused
    assert not (tmp_path / "cache" / "fresh").exists() or not any((tmp_path / "cache" / "fresh").iterdir())
    assert not (project / "work" / "PWNED").exists()
    assert (project / "work" / "RAN").read_text() == "vetted\n"


def test_a_file_hard_linked_from_the_skill_is_replaced_not_written_through(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    script = project / "skills" / "csv-tools" / "scripts" / "count.py"
    os.link(script, project / "hard.py")
    skill = load_skill_dir(script.parent.parent)  # with a warning, FLU314: a hard-linked file
    model = ScriptedModel([[ToolCall("write", {"path": "hard.py", "content": EVIL})], "ok"])

    @agent
    def helper() -> str:
        use_model(model)
        use_skill(skill)
        return "x"

    Harness(helper, sandbox=LocalSandbox(project)).session("s").prompt_sync("go")
    [result] = tool_results(model)
    assert result["is_error"] is False
    assert script.read_text() == VETTED and (project / "hard.py").read_text() == EVIL
    assert os.stat(script).st_nlink == 1
    shutil.rmtree(project)
