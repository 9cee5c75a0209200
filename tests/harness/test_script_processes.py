"""Issue 20 item 3: every process a script starts, detached or not, is gone when `run_skill_script`
returns: after a normal exit, after the timeout, and when the process double-forks and calls
`setsid` to leave the script's session. The scripts are real, and so are their processes: each
writes its pid, and /proc says afterwards whether it still runs."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from harness_support import tool_results

from flue_runtime import Harness, LocalSandbox, agent, define_skill, use_model, use_skill
from flue_runtime.agents import scripts, supervisor
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


# --- issue 32 item 1: a process whose main thread ended -------------------------------------------------------------

#: Prints the script's cgroup, then forks a child that leaves the session and ends its main thread with
#: `pthread_exit` while a second thread runs on: /proc/PID/stat then says Z (the leader's state) of a process that
#: runs. The second thread writes the pid once the main thread is gone, and the script goes on.
THREADS = """\
import ctypes, os, sys, threading, time
print(*(line for line in open("/proc/self/cgroup").read().splitlines() if line.startswith("0::")), flush=True)
if os.fork():
    while not os.path.exists(sys.argv[1]):
        time.sleep(0.01)
    {script_goes_on}
os.setsid()
{stdio}
def second_thread():
    while open(f"/proc/{{os.getpid()}}/stat", "rb").read().rpartition(b")")[2].split()[0] != b"Z":
        time.sleep(0.01)
    with open(sys.argv[1] + ".tmp", "w") as handle:
        handle.write(str(os.getpid()))
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    time.sleep(300)
threading.Thread(target=second_thread).start()
ctypes.CDLL(None).pthread_exit(None)
"""
CLOSES = "for fd in (0, 1, 2):\n    os.close(fd)"
THREAD_SCRIPTS = {
    "scripts/holds_output.py": THREADS.format(script_goes_on="sys.exit(0)", stdio=""),
    "scripts/closes_output.py": THREADS.format(script_goes_on="sys.exit(0)", stdio=CLOSES),
    "scripts/never_ends.py": THREADS.format(script_goes_on="time.sleep(300)", stdio=""),
    "scripts/never_ends_closed.py": THREADS.format(script_goes_on="time.sleep(300)", stdio=CLOSES),
}
#: Seconds a call with `exec_timeout=2` may take at most here: a bound on a hang, not a performance figure.
BOUND = 15.0


def running_with(marker: str) -> list[int]:
    """The processes with a thread still running whose command line (any thread's: the main thread's reads empty
    once it ended) holds `marker`."""
    found = []
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            tasks = os.listdir(f"/proc/{name}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{name}/task/{task}/cmdline", "rb") as cmdline:
                    held = marker.encode() in cmdline.read()
                with open(f"/proc/{name}/task/{task}/stat", "rb") as stat:
                    state = stat.read().rpartition(b")")[2].split()[0]
            except (OSError, IndexError):
                continue
            if held and state not in (b"Z", b"X"):
                found.append(int(name))
                break
    return found


def call_within(seconds: float, call: Callable[[], object]) -> float | None:
    """Run `call` in a thread; the seconds it took, or None if it had not returned after `seconds`."""
    failed: list[BaseException] = []

    def target() -> None:
        try:
            call()
        except BaseException as exc:  # re-raised in the test
            failed.append(exc)

    started = time.monotonic()
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        return None
    if failed:
        raise failed[0]
    return time.monotonic() - started


def our_cgroups() -> list[str]:
    """The cgroups this process made for scripts that are still there."""
    parent = supervisor.own_cgroup()
    if parent is None:
        return []
    return [name for name in os.listdir(parent) if name.startswith(f"{supervisor.CGROUP_PREFIX}{os.getpid()}-")]


def cgroup_offered() -> bool:
    """Whether this machine offers the cgroup mechanism to this process (tried and removed)."""
    made = supervisor.script_cgroup()
    if made is None:
        return False
    supervisor.remove_cgroup(made)
    return True


@pytest.mark.parametrize("mechanism", ["cgroup", "subreaper"])
@pytest.mark.parametrize("script", ["holds_output.py", "closes_output.py", "never_ends.py", "never_ends_closed.py"])
def test_a_process_whose_main_thread_ended_is_stopped_and_the_call_returns(
    script: str, mechanism: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 32 item 1: `pthread_exit` in a child's main thread, `setsid`, the output held or closed: the call returns
    within a bound, and no process of the script is left, with the cgroup and with the subreaper alone (the cgroup
    switched off, as on a machine without one)."""
    if mechanism == "subreaper":
        monkeypatch.setattr(scripts, "script_cgroup", lambda: None)
    elif not cgroup_offered():
        pytest.skip("this machine offers no cgroup v2 this process may make a child of")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "work").mkdir()
    pid_file = tmp_path / "pid"
    marker = f"flue-test-{uuid.uuid4().hex}"
    skill = define_skill(name="threads", description="Ends threads.", instructions="Run them.", files=THREAD_SCRIPTS)
    call = ToolCall("run_skill_script", {"skill": "threads", "script": script, "args": [str(pid_file), marker]})
    model = ScriptedModel([[call], "ok"])

    @agent
    def a() -> str:
        use_model(model)
        use_skill(skill)
        return "x"

    session = Harness(a, sandbox=LocalSandbox(tmp_path / "work", allow_exec=True, exec_timeout=2)).session("s")
    try:
        took = call_within(BOUND, lambda: session.prompt_sync("go"))
        left = running_with(marker)
        assert took is not None, f"run_skill_script had not returned after {BOUND:g} s"
        assert not left, f"processes {left} of {script} still run after the call returned"
    finally:
        for pid in running_with(marker):
            os.kill(pid, signal.SIGKILL)  # never leave them behind when the test fails
    [result] = tool_results(model)
    content = result["content"]
    status = "none: timed out after 2 s, and was stopped" if script.startswith("never_ends") else "0"
    stopped = "stopped 1 process it started that was still running"
    assert content.startswith(f"exit status: {status}; {stopped}\n--- stdout ---\n0::/"), content
    # the script's own cgroup, as it saw it: one made for it, or the harness's
    assert (f"/{supervisor.CGROUP_PREFIX}" in content) == (mechanism == "cgroup"), content
    assert not our_cgroups()


#: Leaves a daemon (two forks, `setsid`, its output closed), then kills its own supervisor and sleeps on, holding
#: its output: nothing but the cgroup is left to stop them.
KILLS_SUPERVISOR = """\
import os, signal, sys, time
if os.fork():
    while not os.path.exists(sys.argv[1]):
        time.sleep(0.01)
    os.kill(os.getppid(), signal.SIGKILL)
    time.sleep(300)
os.setsid()
if os.fork():
    os._exit(0)
for fd in (0, 1, 2):
    os.close(fd)
with open(sys.argv[1] + ".tmp", "w") as handle:
    handle.write(str(os.getpid()))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(300)
"""


def test_a_script_that_kills_its_supervisor_leaves_nothing_in_the_cgroup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The supervisor is killed by the script it watches: the cgroup still holds the script and its daemon, and the
    call kills them before it returns (the subreaper alone cannot: they are re-parented to init)."""
    if not cgroup_offered():
        pytest.skip("this machine offers no cgroup v2 this process may make a child of")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "work").mkdir()
    pid_file = tmp_path / "pid"
    marker = f"flue-test-{uuid.uuid4().hex}"
    skill = define_skill(
        name="parricide",
        description="Kills its supervisor.",
        instructions="Run it.",
        files={"scripts/kill.py": KILLS_SUPERVISOR},
    )
    call = ToolCall("run_skill_script", {"skill": "parricide", "script": "kill.py", "args": [str(pid_file), marker]})
    model = ScriptedModel([[call], "ok"])

    @agent
    def a() -> str:
        use_model(model)
        use_skill(skill)
        return "x"

    session = Harness(a, sandbox=LocalSandbox(tmp_path / "work", allow_exec=True, exec_timeout=60)).session("s")
    try:
        took = call_within(BOUND, lambda: session.prompt_sync("go"))
        left = running_with(marker)
        assert took is not None, f"run_skill_script had not returned after {BOUND:g} s"
        assert not left, f"processes {left} still run after the call returned"
    finally:
        for pid in running_with(marker):
            os.kill(pid, signal.SIGKILL)
    [result] = tool_results(model)
    assert "could not be watched to its end (its supervisor ended without a report" in result["content"], result
    assert not our_cgroups()
