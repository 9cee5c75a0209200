"""Issue 20 item 3: every process a script starts, detached or not, is gone when `run_skill_script`
returns: after a normal exit, after the timeout, and when the process double-forks and calls
`setsid` to leave the script's session. The scripts are real, and so are their processes: each
writes its pid, and /proc says afterwards whether it still runs."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from harness_support import tool_results

from flue_runtime import Harness, LocalSandbox, agent, define_skill, use_model, use_skill
from flue_runtime.models import ScriptedModel, ToolCall

pytestmark = pytest.mark.slow  # real scripts, real processes

#: Forks twice and calls setsid in between: the daemon's parent is gone and so is its session. The
#: script goes on once the daemon has written its pid.
DAEMON = """\
import os, sys, time
if os.fork():
    while not os.path.exists(sys.argv[1]):
        time.sleep(0.01)
    {script_goes_on}
os.setsid()
if os.fork():
    os._exit(0)
{stdio}
with open(sys.argv[1] + ".tmp", "w") as handle:
    handle.write(str(os.getpid()))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(300)
"""
#: A child left in the script's own process group, its output closed.
BACKGROUND = """\
import os, subprocess, sys
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
open(sys.argv[1], "w").write(str(child.pid))
"""
SCRIPTS = {
    # a daemon that closes its output: the script ends at once and the tool returns
    "scripts/daemon.py": DAEMON.format(script_goes_on="sys.exit(0)", stdio="for fd in (0, 1, 2):\n    os.close(fd)"),
    # a daemon that keeps the script's output open
    "scripts/holds_output.py": DAEMON.format(script_goes_on="sys.exit(0)", stdio=""),
    # the script itself never ends: stopped at the timeout, with its detached daemon
    "scripts/never_ends.py": DAEMON.format(
        script_goes_on="time.sleep(300)", stdio="for fd in (0, 1, 2):\n    os.close(fd)"
    ),
    "scripts/background.py": BACKGROUND,
}


def alive(pid: int) -> bool:
    return os.path.exists(f"/proc/{pid}")


def pid_in(path: Path) -> int:
    """The pid a script's process wrote (the script goes on only once it is written)."""
    return int(path.read_text())


@pytest.mark.parametrize(
    "script, timeout, status",
    [
        ("daemon.py", 60, "exit status: 0; stopped 1 process it started that was still running"),
        ("holds_output.py", 60, "exit status: 0; stopped 1 process it started that was still running"),
        ("background.py", 60, "exit status: 0; stopped 1 process it started that was still running"),
        (
            "never_ends.py",
            3,
            "exit status: none: timed out after 3 s, and was stopped; stopped 1 process it started that was still running",
        ),
    ],
)
def test_no_process_a_script_started_outlives_the_call(
    script: str, timeout: float, status: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "work").mkdir()
    pid_file = tmp_path / "pid"
    skill = define_skill(name="daemons", description="Starts processes.", instructions="Run them.", files=SCRIPTS)
    model = ScriptedModel(
        [[ToolCall("run_skill_script", {"skill": "daemons", "script": script, "args": [str(pid_file)]})], "ok"]
    )

    @agent
    def a() -> str:
        use_model(model)
        use_skill(skill)
        return "x"

    sandbox = LocalSandbox(tmp_path / "work", allow_exec=True, exec_timeout=timeout)
    try:
        Harness(a, sandbox=sandbox).session("s").prompt_sync("go")
        pid = pid_in(pid_file)
        assert not alive(pid), f"process {pid} started by {script} still runs after the call returned"
    finally:
        if pid_file.exists() and alive(int(pid_file.read_text())):
            os.kill(int(pid_file.read_text()), 9)  # do not leave it behind when the test fails
    [result] = tool_results(model)
    assert result["content"].startswith(status + "\n--- stdout"), result


def test_a_cancelled_call_leaves_no_process_either(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "work").mkdir()
    pid_file = tmp_path / "pid"
    skill = define_skill(name="daemons", description="Starts processes.", instructions="Run them.", files=SCRIPTS)
    call = ToolCall("run_skill_script", {"skill": "daemons", "script": "never_ends.py", "args": [str(pid_file)]})
    model = ScriptedModel([[call], "ok"])

    @agent
    def a() -> str:
        use_model(model)
        use_skill(skill)
        return "x"

    session = Harness(a, sandbox=LocalSandbox(tmp_path / "work", allow_exec=True)).session("s")

    async def prompt_then_cancel() -> None:
        task = asyncio.create_task(session.prompt("go"))
        while not pid_file.exists():
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    try:
        asyncio.run(prompt_then_cancel())
        assert not alive(pid_in(pid_file)), "the daemon outlived the cancelled call"
    finally:
        if pid_file.exists() and alive(int(pid_file.read_text())):
            os.kill(int(pid_file.read_text()), 9)
