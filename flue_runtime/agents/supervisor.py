"""The supervisor `run_skill_script` runs each script under, so that no process the script starts outlives it.

Started as `python -I -S -c <this module's source> STATUS_FD CGROUP ARGV...` in a session of
its own; standard library only, so it needs nothing on `sys.path`. Two mechanisms, both at
once where the machine has them:

- A cgroup v2 (Linux, where this process may make a child of its own cgroup: as root, or in
  a delegated cgroup such as a systemd user session's). `run_skill_script` makes an empty
  one (`script_cgroup`) and passes its folder as CGROUP (`-` for none); the supervisor moves
  itself into it, starts the script there and moves itself back out, so the cgroup holds
  exactly the script and whatever it starts, whatever those do to their sessions, process
  groups, parents or threads. Stopping kills the cgroup (`cgroup.kill`, Linux 5.14; before
  that every pid in it, again until it is empty).
- A child subreaper (Linux, `prctl(PR_SET_CHILD_SUBREAPER)`): a process the script starts
  and leaves behind, even one that forks twice and calls `setsid` to detach, is re-parented
  to the supervisor, not to init. Stopping kills the script's process group and every child
  of the supervisor, again and again until none is left. A process counts as running while
  any of its threads does (`/proc/PID/task`): one whose main thread ended (`pthread_exit`)
  shows as a zombie in its own `stat` while another thread goes on.

When the script ends, or the supervisor is told to stop (SIGTERM: the call timed out or was
cancelled; or the harness's thread that started it died, through `PR_SET_PDEATHSIG`), it
stops everything, reaps its children, and only then exits. So when `run_skill_script` sees
it exit, every process of the script is gone; it then kills the cgroup once more (which
also covers a supervisor that was itself killed) and removes it.

What it found goes to STATUS_FD as one line: `exit <wait status> <processes stopped> <how>`,
`exec <errno>` when the script could not be started, or `stopped <processes stopped> <how>`,
where `<how>` is `cgroup`, `subreaper` or `group`.

Elsewhere (no cgroup v2 to use, no `prctl`: macOS, the BSDs) only the process group is
killed: a process that left the group (`setsid`) may outlive the call there.
"""

from __future__ import annotations

import os
import sys
import time
from types import ModuleType

__all__ = [
    "CGROUP_PREFIX",
    "PR_SET_CHILD_SUBREAPER",
    "PR_SET_PDEATHSIG",
    "cgroup_pids",
    "children",
    "join_cgroup",
    "kill_cgroup",
    "supervise",
    "own_cgroup",
    "populated",
    "remove_cgroup",
    "running",
    "script_cgroup",
    "signal",
    "stop_all",
]


PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
#: How the name of each cgroup made for a script starts; the pid of the process that made it follows.
CGROUP_PREFIX = "flue-script-"


def _module(fast: str, public: str) -> ModuleType:
    """The C module under a public one: it runs once per script, and `signal` (which builds enums first) and
    `ctypes` take longer to import than the rest of the supervisor's start together."""
    try:
        return __import__(fast)
    except ImportError:
        return __import__(public)


signal = _module("_signal", "signal")


class _Stop(Exception):
    """SIGTERM arrived: stop the script now."""


def _stop(signum: int, frame: object) -> None:
    raise _Stop


def _prctl(option: int, value: int) -> bool:
    """`prctl(option, value)` through the C library; False where there is none, or it refused."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        native = _module("_ctypes", "ctypes")
        if hasattr(native, "call_function"):
            function = native.dlsym(native.dlopen(None, os.RTLD_NOW), "prctl")
            return bool(native.call_function(function, (option, value, 0, 0, 0)) == 0)
        return bool(native.CDLL(None).prctl(option, value, 0, 0, 0) == 0)
    except (ImportError, AttributeError, OSError):
        return False


# The /proc reads here are our own, not psutil's: this module runs as `python -I -S -c <source>`, so no installed
# package can be imported (nor can anything on sys.path or in site-packages run before it stops the script: that is
# the point of -I -S), and it starts at every script call, which pays each import (BENCHMARKS.md, "Issue 42:
# docstrings, the byte-budget cache, the supervisor's /proc walk": psutil's import alone costs more than this whole
# module's start). psutil would walk the same files: its `Process.children()` reads every /proc/PID/stat, which
# is only our fallback after the kernel's own list of children.
def children() -> list[int]:
    """The processes whose parent is this one (a subreaper's adopted orphans among them)."""
    me = os.getpid()
    try:
        with open(f"/proc/{me}/task/{me}/children") as listing:
            return [int(pid) for pid in listing.read().split()]
    except OSError:
        pass
    found = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                fields = stat.read().rpartition(b")")[2].split()
        except OSError:
            continue
        if len(fields) > 1 and int(fields[1]) == me:
            found.append(int(name))
    return found


def stop_all(group: int | None, cgroup: str | None = None) -> int:
    """Kill the script's cgroup, its process group and every child until none is left; how many running processes
    were stopped besides the script itself (one that has already exited is only reaped)."""
    stopped: set[int] = set()
    _reap()  # those that have exited are not stopped
    while cgroup is not None:
        stopped.update(kill_cgroup(cgroup))
        _reap()
        if not populated(cgroup):
            break
        time.sleep(0.002)  # killed, not yet gone
    while True:
        for pid in children():
            if pid not in stopped and running(pid):
                try:
                    os.kill(pid, signal.SIGKILL)  # the whole process, whichever of its threads still runs
                    stopped.add(pid)
                except OSError:
                    pass
        if group is not None:
            try:
                os.killpg(group, signal.SIGKILL)  # members that are not (yet) our children
            except OSError:
                pass
        if _reap():
            break
        time.sleep(0.002)  # killed, not yet reaped
    return len(stopped - {group})


def running(pid: int) -> bool:
    """Whether a thread of process `pid` still runs, as far as /proc says (not when each is a zombie: exited, not
    yet reaped). The process's own `stat` is its main thread's, a zombie once that thread ended (`pthread_exit`)
    however many others run on."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return not os.path.isdir("/proc")  # gone, or no /proc to ask
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/stat", "rb") as stat:
                state = stat.read().rpartition(b")")[2].split()[:1]
        except OSError:
            continue  # that thread is gone
        if state not in ([b"Z"], [b"X"]):
            return True
    return False


def _reap() -> bool:
    """Reap every child that has exited; whether none is left."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return True
        if pid == 0:
            return False


# --- the cgroup -------------------------------------------------------------------------------------


def own_cgroup() -> str | None:
    """The folder of this process's cgroup v2; None without one (cgroup v1 alone, no /proc, not Linux)."""
    try:
        with open("/proc/self/cgroup") as listing:
            path = next((line[3:].rstrip("\n") for line in listing if line.startswith("0::")), None)
        with open("/proc/self/mountinfo") as mounts:
            mountinfo = mounts.read().splitlines()
    except OSError:
        return None
    if path is None or not path.startswith("/"):
        return None
    for line in mountinfo:
        fields, _, rest = line.partition(" - ")
        mount = fields.split()
        if rest.split()[:1] != ["cgroup2"] or len(mount) < 5:
            continue
        root, point = _unescape(mount[3]), _unescape(mount[4])
        if path == root or path.startswith(root.rstrip("/") + "/"):
            folder = os.path.join(point, path[len(root) :].lstrip("/"))
            if os.path.isfile(os.path.join(folder, "cgroup.procs")):
                return folder
    return None


def _unescape(field: str) -> str:
    """A path of /proc/self/mountinfo, whose spaces, tabs, line breaks and backslashes are octal escapes."""
    for code in ("040", "011", "012", "134"):
        field = field.replace("\\" + code, chr(int(code, 8)))
    return field


def script_cgroup() -> str | None:
    """A new, empty cgroup for one script, in this process's own: its folder, or None where the machine offers none
    this process may make (no cgroup v2, one mounted read-only, one not delegated to this user). Empty ones left by
    processes that are gone are removed first."""
    parent = own_cgroup()
    if parent is None:
        return None
    try:
        names = os.listdir(parent)
    except OSError:
        return None
    for name in names:
        maker = name[len(CGROUP_PREFIX) :].partition("-")[0]
        if name.startswith(CGROUP_PREFIX) and maker.isdigit() and not _exists(int(maker)):
            remove_cgroup(os.path.join(parent, name))  # refused (EBUSY) while anything runs in it
    folder = os.path.join(parent, f"{CGROUP_PREFIX}{os.getpid()}-{os.urandom(6).hex()}")
    try:
        os.mkdir(folder)
    except OSError:
        return None
    if not os.path.isfile(os.path.join(folder, "cgroup.procs")):
        remove_cgroup(folder)
        return None
    return folder


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        pass  # another user's
    return True


def join_cgroup(folder: str) -> bool:
    """Move this process into the cgroup at `folder`; whether it could."""
    try:
        with open(os.path.join(folder, "cgroup.procs"), "w") as procs:
            procs.write(str(os.getpid()))
        return True
    except OSError:
        return False


def cgroup_pids(folder: str) -> set[int]:
    """The processes in the cgroup at `folder` and in every cgroup under it (those with a thread still running)."""
    found: set[int] = set()
    for current, _, _ in os.walk(folder):
        try:
            with open(os.path.join(current, "cgroup.procs")) as procs:
                found.update(int(pid) for pid in procs.read().split())
        except (OSError, ValueError):
            continue
    return found


def kill_cgroup(folder: str) -> set[int]:
    """SIGKILL every process in the cgroup at `folder` and under it; the processes it held.

    `cgroup.kill` (Linux 5.14) has the kernel kill them all at once, one forking meanwhile too;
    then each pid read from `cgroup.procs` is killed as well: `cgroup.kill` passes over a process
    whose main thread has ended while another runs on (seen on Linux 6.18), which `kill` of its
    pid does not. A caller asks again until none is left (`populated`)."""
    pids = cgroup_pids(folder)
    try:
        with open(os.path.join(folder, "cgroup.kill"), "w") as kill:
            kill.write("1")
    except OSError:
        pass  # before Linux 5.14
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return pids


def populated(folder: str) -> bool:
    """Whether a process still runs in the cgroup at `folder` or under it (a zombie does not)."""
    try:
        with open(os.path.join(folder, "cgroup.events")) as events:
            for line in events:
                key, _, value = line.partition(" ")
                if key == "populated":
                    return value.strip() != "0"
    except OSError:
        if not os.path.isdir(folder):
            return False
    return bool(cgroup_pids(folder))


def remove_cgroup(folder: str) -> bool:
    """Remove the cgroup at `folder` and every cgroup under it, deepest first; whether it is gone (the kernel
    refuses while a process runs in it)."""
    for current, _, _ in os.walk(folder, topdown=False):
        try:
            os.rmdir(current)
        except OSError:
            pass
    return not os.path.exists(folder)


# --- the script -------------------------------------------------------------------------------------


def _start(argv: list[str], report: int) -> int:
    """Start the script in a process group of its own, with the signals Python ignores back at their defaults
    (as subprocess's `restore_signals` does); its pid. One it cannot start is reported, and the supervisor exits."""
    defaults = [getattr(signal, name) for name in ("SIGPIPE", "SIGXFSZ", "SIGTERM") if hasattr(signal, name)]
    try:
        return os.posix_spawn(argv[0], argv, os.environ, setpgroup=0, setsigdef=defaults)
    except OSError as exc:
        os.write(report, f"exec {exc.errno or 0}\n".encode())
        raise SystemExit(0) from None


def supervise(args: list[str]) -> None:
    report = int(args[1])
    os.set_inheritable(report, False)
    cgroup = args[2] if args[2] != "-" and join_cgroup(args[2]) else None
    parent = os.getppid()
    signal.signal(signal.SIGTERM, _stop)
    subreaper = _prctl(PR_SET_CHILD_SUBREAPER, 1)
    how = "cgroup" if cgroup is not None else "subreaper" if subreaper else "group"
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    child: int | None = None
    left: str | None = None  # the cgroup, once the supervisor is out of it and may kill it
    line = "stopped"
    try:
        if os.getppid() != parent:
            raise _Stop  # the harness died before the death signal was set
        child = _start(args[3:], report)
        if cgroup is not None and join_cgroup(os.path.dirname(cgroup)):
            left = cgroup  # else, still in it, it cannot kill it without itself: the harness kills it after
        _, status = os.waitpid(child, 0)
        line = f"exit {status}"
    except _Stop:
        pass
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        stopped = stop_all(child, left)
    os.write(report, f"{line} {stopped} {how}\n".encode())


if __name__ == "__main__":
    supervise(sys.argv)
