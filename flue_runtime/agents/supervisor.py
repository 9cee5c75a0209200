"""The supervisor `run_skill_script` runs each script under, so that no process the script starts outlives it.

Started as `python -I -S -c <this module's source> STATUS_FD ARGV...` in a session of its own;
standard library only, so it needs nothing on `sys.path`. On Linux it makes itself a child
subreaper (`prctl(PR_SET_CHILD_SUBREAPER)`): a process the script starts and leaves behind,
even one that forks twice and calls `setsid` to detach, is re-parented to the supervisor,
not to init. The script runs in a process group of its own. When the script ends, or the
supervisor is told to stop (SIGTERM: the call timed out or was cancelled; or the harness's
thread that started it died, through `PR_SET_PDEATHSIG`), it kills that group and every
child it has, again and again until none is left, reaps them, and only then exits. So when
`run_skill_script` sees it exit, every process of the script is gone.

What it found goes to STATUS_FD as one line: `exit <wait status> <processes stopped>`,
`exec <errno>` when the script could not be started, or `stopped <processes stopped>`.

Elsewhere (no `prctl`) only the process group is killed: a process that left the group
(`setsid`) may outlive the call there.
"""

from __future__ import annotations

import os
import sys
import time
from types import ModuleType

__all__ = ["PR_SET_CHILD_SUBREAPER", "PR_SET_PDEATHSIG", "children", "main", "signal", "stop_all"]


PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


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


def stop_all(group: int | None) -> int:
    """Kill the script's process group and every child until none is left; how many running processes were stopped
    besides the script itself (one that has already exited is only reaped)."""
    stopped: set[int] = set()
    _reap()  # those that have exited are not stopped
    while True:
        for pid in children():
            if pid not in stopped and _running(pid):
                try:
                    os.kill(pid, signal.SIGKILL)
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


def _running(pid: int) -> bool:
    """Not a zombie (one that has exited, not yet reaped): as far as /proc says."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rpartition(b")")[2].split()[:1] != [b"Z"]
    except OSError:
        return not os.path.isdir("/proc")  # gone, or no /proc to ask


def _reap() -> bool:
    """Reap every child that has exited; whether none is left."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return True
        if pid == 0:
            return False


def _start(argv: list[str], report: int) -> int:
    """Start the script in a process group of its own, with the signals Python ignores back at their defaults
    (as subprocess's `restore_signals` does); its pid. One it cannot start is reported, and the supervisor exits."""
    defaults = [getattr(signal, name) for name in ("SIGPIPE", "SIGXFSZ", "SIGTERM") if hasattr(signal, name)]
    try:
        return os.posix_spawn(argv[0], argv, os.environ, setpgroup=0, setsigdef=defaults)
    except OSError as exc:
        os.write(report, f"exec {exc.errno or 0}\n".encode())
        raise SystemExit(0) from None


def main(args: list[str]) -> None:
    report = int(args[1])
    os.set_inheritable(report, False)
    parent = os.getppid()
    signal.signal(signal.SIGTERM, _stop)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    child: int | None = None
    line = "stopped"
    try:
        if os.getppid() != parent:
            raise _Stop  # the harness died before the death signal was set
        child = _start(args[2:], report)
        _, status = os.waitpid(child, 0)
        line = f"exit {status}"
    except _Stop:
        pass
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        stopped = stop_all(child)
    os.write(report, f"{line} {stopped}\n".encode())


if __name__ == "__main__":
    main(sys.argv)
