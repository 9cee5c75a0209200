"""Issue 13 item 10: `run_skill_script` runs a script a skill ships in a real wheel (installed, and
zipped on sys.path), from a verified read-only copy in a private cache outside the workspace, with
the sandbox folder as working directory; the workspace stays unchanged."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path
from typing import Any

import pytest
from harness_support import tool_results
from support import slow
from support.builds import build_wheel
from support.envs import install
from support.projects import pyproject

from flue_runtime import Harness, LocalSandbox, MemorySandbox, agent, define_skill, use_model, use_skill
from flue_runtime.models import ScriptedModel, ToolCall

SKILL_MD = """---
name: csv-tools
description: Count and check CSV files. Use when the user shares a CSV file.
---
Run scripts/count_rows.py with the file's path.
"""
SCRIPTS: dict[str, tuple[str, int]] = {
    "count_rows.py": (
        """\
        import os, sys
        from csvlib import count  # a module next to the script
        here = os.path.dirname(os.path.abspath(__file__))
        data = sys.stdin.read() if sys.argv[1] == "-" else open(sys.argv[1]).read()
        print(f"rows={count(data)} cwd={os.getcwd()} python={sys.executable} here={here}")
        """,
        0o644,
    ),
    "csvlib.py": (
        "def count(text):\n    return len([line for line in text.splitlines() if line.strip()]) - 1\n",
        0o644,
    ),
    "greet.sh": ('#!/bin/sh\necho "hello $1"\necho "to stderr" >&2\nexit 3\n', 0o755),
    "not_executable.sh": ("#!/bin/sh\necho never\n", 0o644),
    "env.py": (
        "import os\nprint(sorted(k for k in os.environ if 'KEY' in k), os.environ['FLUE_SKILL_DIR'])\n",
        0o644,
    ),
    "chatty.py": ("import sys\nsys.stdout.write('x' * 3_000_000 + 'END')\n", 0o644),
    "sleepy.py": ("import time\ntime.sleep(120)\n", 0o644),
}


def write_project(folder: Path) -> Path:
    (folder / "src" / "script_demo" / "skills" / "csv-tools" / "scripts").mkdir(parents=True)
    (folder / "pyproject.toml").write_text(pyproject("hatchling", "script_demo"))
    package = folder / "src" / "script_demo"
    (package / "__init__.py").write_text(
        'from flue_runtime import skill\n\nCSV = skill("./skills/csv-tools/SKILL.md")\n'
    )
    (package / "skills" / "csv-tools" / "SKILL.md").write_text(SKILL_MD)
    for name, (text, mode) in SCRIPTS.items():
        path = package / "skills" / "csv-tools" / "scripts" / name
        path.write_text(textwrap.dedent(text))
        os.chmod(path, mode)
    return folder


@pytest.fixture(scope="module")
@slow.builds
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("script-wheel")
    return build_wheel(write_project(base / "project"), base / "dist")


@pytest.fixture(scope="module")
def installed(wheel: Path) -> Path:
    site = wheel.parent.parent / "site"
    install("--target", str(site), str(wheel), cwd=wheel.parent)
    return site


@pytest.mark.slow
def test_the_wheel_keeps_the_executable_bit(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        modes = {
            info.filename.rsplit("/", 1)[1]: (info.external_attr >> 16) & 0o111
            for info in archive.infolist()
            if "/scripts/" in info.filename
        }
    assert modes["greet.sh"] and not modes["not_executable.sh"] and not modes["count_rows.py"]


SESSION = textwrap.dedent(
    """
    import json, os, sys
    from flue_runtime import Harness, LocalSandbox, agent, use_model, use_skill
    from flue_runtime.models import ScriptedModel, ToolCall
    import script_demo

    def run(name, **arguments):
        return ToolCall("run_skill_script", {"skill": "csv-tools", "script": name, **arguments})

    model = ScriptedModel([
        [run("scripts/count_rows.py", args=["data.csv"]), run("greet.sh", args=["ada"]),
         run("not_executable.sh"), run("env.py"), run("count_rows.py", args=["-"], stdin="h\\n1\\n2\\n3\\n"),
         run("../SKILL.md"), run("scripts/missing.py")],
        [run("chatty.py")],
        "done",
        [run("count_rows.py", args=["data.csv"])],
        "again",
    ])

    @agent
    def a():
        use_model(model)
        use_skill(script_demo.CSV)
        return "x"

    session = Harness(a, sandbox=LocalSandbox(sys.argv[1], allow_exec=True)).session("s")
    session.prompt_sync("count the rows")
    first = [m for m in model.requests[1].messages if m["role"] == "tool"] + [model.requests[2].messages[-1]]
    # Tamper with the copy: the next run finds out, and runs from a fresh one.
    copy = os.path.join(os.environ["XDG_CACHE_HOME"], "flue-skills", "skills")
    [key] = os.listdir(copy)
    target = os.path.join(copy, key, "csv-tools", "scripts", "csvlib.py")
    os.chmod(os.path.dirname(target), 0o755)
    os.chmod(target, 0o644)
    with open(target, "w") as handle:
        handle.write("def count(text):\\n    return 999\\n")
    session.prompt_sync("again")
    print(json.dumps({
        "origin": script_demo.CSV.origin,
        "module": script_demo.__file__,
        "tools": [t["name"] for t in model.requests[0].tools],
        "results": first,
        "again": model.requests[-1].messages[-1],
        "executable": sys.executable,
        "copy": os.path.join(copy, key, "csv-tools"),
    }))
    """
)


def snapshot(folder: Path) -> dict[str, tuple[str, int]]:
    """Every entry under `folder`: content hash (files) and mode."""
    found = {}
    for path in sorted(folder.rglob("*")):
        data = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
        found[str(path.relative_to(folder))] = (data, stat.S_IMODE(path.lstat().st_mode))
    return found


@pytest.mark.slow
@pytest.mark.parametrize("how", ["installed", "zipped"])
def test_run_skill_script_from_a_real_wheel(how: str, wheel: Path, installed: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "data.csv").write_text("name,qty\nbook,1\npen,2\n")
    before = snapshot(work)
    cache = tmp_path / "cache"
    env = {
        **os.environ,
        "PYTHONPATH": str(installed if how == "installed" else wheel),
        "XDG_CACHE_HOME": str(cache),
        "ANTHROPIC_API_KEY": "sk-test-secret",
    }
    proc = subprocess.run(
        [sys.executable, "-c", SESSION, str(work)], capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    assert "bundled" in out["origin"] and (how == "installed") != (".whl" in out["module"])
    assert out["tools"] == ["activate_skill", "read_skill_resource", "run_skill_script", "read", "write", "ls"]
    counted, greeted, refused, environment, piped, outside, missing, chatty = out["results"]
    copy = out["copy"]
    assert counted["is_error"] is False
    assert counted["content"] == (
        f"exit status: 0\n--- stdout ---\nrows=2 cwd={work} python={out['executable']} here={copy}/scripts\n"
        "--- stderr: empty ---"
    )
    assert greeted["content"] == "exit status: 3\n--- stdout ---\nhello ada\n--- stderr ---\nto stderr"
    assert refused["is_error"] and "scripts/not_executable.sh is not executable" in refused["content"]
    assert environment["content"] == f"exit status: 0\n--- stdout ---\n[] {copy}\n--- stderr: empty ---"
    assert piped["content"].startswith("exit status: 0\n--- stdout ---\nrows=3 ")
    assert outside["is_error"] and "refused path" in outside["content"]
    assert (
        missing["is_error"] and "no script 'scripts/missing.py'; its scripts: scripts/chatty.py" in missing["content"]
    )
    assert len(chatty["content"].encode()) <= 50 * 1024
    assert chatty["content"].startswith("exit status: 0\n--- stdout (3,000,003 bytes; the first and last ")
    assert chatty["content"].endswith("xxxEND\n--- stderr: empty ---")
    assert out["again"]["content"].startswith(
        "exit status: 0\n--- stdout ---\nrows=2 "
    )  # the tampered copy was not run
    # The copy: outside the workspace, read-only, executable bits as the wheel has them.
    assert Path(copy).is_relative_to(cache)
    assert not stat.S_IMODE(os.stat(copy).st_mode) & 0o222
    assert os.stat(f"{copy}/scripts/greet.sh").st_mode & 0o111
    assert not os.stat(f"{copy}/scripts/count_rows.py").st_mode & 0o333
    assert snapshot(work) == before  # no file written, none changed, no __pycache__


@pytest.mark.slow
def test_a_script_past_its_timeout_is_stopped(wheel: Path, tmp_path: Path) -> None:
    probe = textwrap.dedent(
        """
        import json, sys
        from flue_runtime import Harness, LocalSandbox, agent, use_model, use_skill
        from flue_runtime.models import ScriptedModel, ToolCall
        import script_demo
        model = ScriptedModel([[ToolCall("run_skill_script", {"skill": "csv-tools", "script": "sleepy.py"})], "ok"])

        @agent
        def a():
            use_model(model)
            use_skill(script_demo.CSV)
            return "x"

        Harness(a, sandbox=LocalSandbox(sys.argv[1], allow_exec=True, exec_timeout=1)).session("s").prompt_sync("go")
        print(json.dumps(model.requests[-1].messages[-1]))
        """
    )
    env = {**os.environ, "PYTHONPATH": str(wheel), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    (tmp_path / "work").mkdir()
    proc = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path / "work")], capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert (
        result["content"]
        == "exit status: none: timed out after 1 s, and was stopped\n--- stdout: empty ---\n--- stderr: empty ---"
    )


POLICIES = textwrap.dedent(
    """
    import json, os, sys
    from flue_runtime import Harness, LocalSandbox, agent, use_model, use_skill
    from flue_runtime.agents import approval
    from flue_runtime.models import ScriptedModel, ToolCall
    import script_demo

    out = {}
    for name, options in (("never", {"approve_scripts": approval.never}), ("default", {})):
        run = ToolCall("run_skill_script", {"skill": "csv-tools", "script": "count_rows.py", "args": ["data.csv"]})
        model = ScriptedModel([[run], "ok"])

        @agent
        def a():
            use_model(model)
            use_skill(script_demo.CSV)
            return "x"

        Harness(a, sandbox=LocalSandbox(sys.argv[1], allow_exec=True), **options).session(name).prompt_sync("go")
        out[name] = model.requests[-1].messages[-1]
        out[name + " copied"] = os.path.exists(os.path.join(os.environ["XDG_CACHE_HOME"], "flue-skills"))
    print(json.dumps(out))
    """
)


@pytest.mark.slow
def test_a_real_wheels_script_runs_under_the_default_policy_and_never_under_never(wheel: Path, tmp_path: Path) -> None:
    """Consent for a skill bundled in a real wheel (zipped on sys.path): `bundled_only`, the default, runs its
    script; `approval.never` refuses it before anything is copied or run."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "data.csv").write_text("name,qty\nbook,1\npen,2\n")
    env = {**os.environ, "PYTHONPATH": str(wheel), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = subprocess.run(
        [sys.executable, "-c", POLICIES, str(work)], capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert (
        out["never"]["is_error"]
        and "not approved by the application's script approval policy 'never'" in (out["never"]["content"])
    )
    assert out["never copied"] is False  # refused before its copy was made: nothing of it ran
    assert out["default"]["is_error"] is False and out["default"]["content"].startswith(
        "exit status: 0\n--- stdout ---\nrows=2 "
    )
    assert out["default copied"] is True


def scripted_skill() -> Any:
    return define_skill(
        name="tools", description="Has a script.", instructions="Run it.", files={"scripts/hello.py": "print('hi')\n"}
    )


def run_one(skill: Any, sandbox: Any) -> ScriptedModel:
    """One prompt whose model asks for `run_skill_script` on `skill`."""
    model = ScriptedModel([[ToolCall("run_skill_script", {"skill": skill.name, "script": "hello.py"})], "ok"])

    @agent
    def a() -> str:
        use_model(model)
        use_skill(skill)
        return "x"

    Harness(a, sandbox=sandbox).session("s").prompt_sync("go")
    return model


@pytest.mark.parametrize("case", ["no opt-in", "memory", "no scripts"])
def test_without_the_opt_in_or_without_scripts_there_is_no_run_skill_script(case: str, tmp_path: Path) -> None:
    plain = define_skill(name="plain", description="No scripts.", instructions="Read.", files={"notes.md": "n"})
    skill, sandbox = {
        "no opt-in": (scripted_skill(), LocalSandbox(tmp_path)),
        "memory": (scripted_skill(), MemorySandbox()),  # nothing runs in memory
        "no scripts": (plain, LocalSandbox(tmp_path, allow_exec=True)),
    }[case]
    model = run_one(skill, sandbox)
    assert "run_skill_script" not in [t["name"] for t in model.requests[0].tools]
    [result] = tool_results(model)
    assert result["is_error"] and "no tool named 'run_skill_script'" in result["content"]


def test_a_defined_skills_python_script_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "work").mkdir()
    model = run_one(scripted_skill(), LocalSandbox(tmp_path / "work", allow_exec=True))
    assert tool_results(model)[0]["content"] == "exit status: 0\n--- stdout ---\nhi\n--- stderr: empty ---"


def test_a_cache_inside_the_sandbox_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / ".cache"))
    model = run_one(scripted_skill(), LocalSandbox(tmp_path, allow_exec=True))
    [result] = tool_results(model)
    assert result["is_error"] and "is inside the sandbox; set XDG_CACHE_HOME" in result["content"]
    assert not (tmp_path / ".cache").exists()
