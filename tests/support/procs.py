"""A child process, bounded by a timeout, its output captured."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

#: Every child is bounded: a hang is a failure, not a stuck CI run.
TIMEOUT = 300


def run(
    command: list[str],
    *,
    cwd: Path,
    env: dict[str, str] | None = None,
    check: bool = True,
    merged: bool = False,
    timeout: float = TIMEOUT,
    preexec_fn: Callable[[], None] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`command` in `cwd` (`env`: the whole environment, None for this one's). With `check`, a non-zero exit
    is an AssertionError showing the output; with `merged`, stderr goes into stdout in the order a terminal
    shows them."""
    proc = subprocess.run(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if merged else subprocess.PIPE,
        text=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
        preexec_fn=preexec_fn,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(command)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc
