"""The exit status of every `flue-skills` command, decided here once (docs/reference/cli.md: "Exit status of every command").

- 0: done, nothing wrong.
- 1: problems found in what the command was pointed at (a skill that breaks a rule, a project's
  invalid `[tool.flue]`, a damaged wheel, an agent that raises, a turn that failed).
- 2: usage or environment: the command could not do what was asked (an argument, a TARGET that
  names nothing, a missing package or extra, a store, a model or a file it cannot open). A bug in flue-skills itself ends here too, with its traceback, so that 1 always
  means problems found.
- 130 and 141: ended from outside, as a shell reports a process SIGINT or SIGPIPE ended (Ctrl-C;
  a reader that closed the pipe, `flue-skills ls pkg | head`).

A command's handler returns 0 or 1 itself and raises for the rest; what it raises is printed
here as one `flue-skills COMMAND: error: ...` line and mapped by `USAGE_OR_ENVIRONMENT`.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import traceback
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TextIO

from flue_build.errors import BackendNotInstalledError, UsageError
from flue_runtime.errors import (
    ConfigError,
    DestinationError,
    FlueError,
    HostedServiceError,
    LockFileError,
    ModelError,
    PublishError,
    StoreError,
)

__all__ = [
    "BROKEN_PIPE",
    "Handler",
    "INTERRUPTED",
    "OK",
    "PROBLEMS",
    "USAGE",
    "USAGE_OR_ENVIRONMENT",
    "ctrl_c_ends",
    "error_line",
    "report",
    "run_command",
    "status",
    "warning_line",
]


OK = 0
PROBLEMS = 1
USAGE = 2
INTERRUPTED = 128 + signal.SIGINT
BROKEN_PIPE = 128 + signal.SIGPIPE

#: Errors about the request or the machine rather than about what the command looked at: exit 2.
#: Every other `FlueError` reports problems found: exit 1. The CLI page's table is tested against it.
USAGE_OR_ENVIRONMENT: tuple[type[BaseException], ...] = (
    UsageError,  # an argument the parser cannot judge alone; a TARGET or MODULE:AGENT that names nothing
    BackendNotInstalledError,  # `check PROJECT`: the project's build backend is not installed where check runs
    DestinationError,  # `export`: DIR has a different folder in the way, or cannot be written
    StoreError,  # `run --store`, `--session`: the store cannot be opened (its extra missing among the causes), an id
    # no store can keep
    ModelError,  # `run`: a model that cannot be created (an unknown provider, a missing SDK or API key)
    HostedServiceError,  # `publish`: the hosted service refused the request (a key, a quota) or cannot be reached
    LockFileError,  # `publish`, `lock`: the lock file is not one (invalid TOML, another version)
    ImportError,  # a missing optional extra (`mcp` without flue-skills[mcp])
    OSError,  # a file or folder the command must read or write
)

Handler = Callable[[argparse.Namespace], int]


def status(exc: BaseException) -> int:
    return USAGE if isinstance(exc, USAGE_OR_ENVIRONMENT) else PROBLEMS


def run_command(command: str, handler: Handler, args: argparse.Namespace) -> int:
    """`handler(args)`, its failures and interruptions turned into one line and an exit status; every warning
    shown as one `flue-skills COMMAND: warning: ...` line, escaped (`warning_line`)."""
    try:
        with _warnings_shown(command):
            code = _handled(command, handler, args)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away: what it wanted was written; say nothing more. Python's own recipe:
        # point stdout at devnull so that the flush at exit does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return BROKEN_PIPE
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return INTERRUPTED
    return code


def _handled(command: str, handler: Handler, args: argparse.Namespace) -> int:
    try:
        return handler(args)
    except BrokenPipeError:
        raise
    except (FlueError, Warning, ImportError, OSError) as exc:  # a Warning: one the user's -W filter made an error
        report(command, exc)
        return status(exc)
    except Exception:
        traceback.print_exc()
        print(f"flue-skills {command}: internal error: a bug in flue-skills; please report it", file=sys.stderr)
        return USAGE


@contextmanager
def ctrl_c_ends(dropped: Callable[[], str]) -> Iterator[None]:
    """Ctrl-C ends the process at once with status 130, inside a tool that blocks too, saying `interrupted` and
    what `dropped()` says was dropped (`run`: ": the unfinished turn was not saved" while a turn runs).

    Neither alternative stops cleanly: asyncio's own handler cancels the running task, which
    waits for a tool that does not await; a KeyboardInterrupt can land anywhere, asyncio's
    own machinery included. Ending the process is safe for a session: the harness saves a
    turn in one transaction, and only once it is complete.
    """

    def interrupt(signum: int, frame: FrameType | None) -> None:
        try:
            sys.stdout.flush()
        except Exception:  # Ctrl-C came in the middle of a write: what was written stays written
            pass
        os.write(sys.stderr.fileno(), f"\ninterrupted{dropped()}\n".encode())
        os._exit(INTERRUPTED)

    try:
        previous = signal.signal(signal.SIGINT, interrupt)
    except ValueError:  # not the main thread: Ctrl-C stays Python's KeyboardInterrupt
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def report(command: str, exc: BaseException) -> None:
    """What went wrong, on stderr: a `ConfigError`'s or `PublishError`'s problems a line each first; then one line
    saying what."""
    if isinstance(exc, ConfigError):
        from flue_runtime.format.paths import display_path

        shown = display_path(exc.path)
        for line in exc.lines(shown):
            print(line, file=sys.stderr)
        message = f"{shown}: {exc.headline}"
    elif isinstance(exc, PublishError):
        for problem in exc.problems:
            print(error_line(command, problem), file=sys.stderr)
        message = exc.headline
    elif isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        message = f"{exc.filename}: {exc.strerror}"
    elif isinstance(exc, BackendNotInstalledError):
        message = exc.said_by(command)
    else:
        message = str(exc)
    print(error_line(command, message), file=sys.stderr)


@contextmanager
def _warnings_shown(command: str) -> Iterator[None]:
    """Python's warnings (a workspace folder skipped, a remote skill left out), shown as the command's own lines: a
    warning's text may quote what a model, a skill or a server wrote, so it goes through `printable` like the rest."""

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        print(warning_line(command, message, category, f"{filename}:{lineno}"), file=file or sys.stderr)

    previous = warnings.showwarning
    warnings.showwarning = show
    try:
        yield
    finally:
        warnings.showwarning = previous


def warning_line(command: str, message: Warning | str, category: type[Warning], where: str) -> str:
    """`flue-skills COMMAND: warning: ...`, escaped (`printable`); one not of flue-skills says its kind and place."""
    from flue_runtime.format.diagnostics import printable_lines

    text = str(message)
    if not category.__module__.startswith("flue_runtime"):
        text += f" ({category.__name__} at {where})"
    return f"flue-skills {command}: warning: {printable_lines(text)}"


def error_line(command: str, message: str) -> str:
    """`flue-skills COMMAND: error: ...`, what the error says of installed data or a path escaped
    (`printable`, line by line)."""
    from flue_runtime.format.diagnostics import printable_lines

    return f"flue-skills {command}: error: {printable_lines(message)}"
