"""Issue 20 item 6 (the sandbox part): the model's `write` onto a FIFO, a socket or a device in the
sandbox fails at once with a clear error, and leaves the special file as it was. The session runs
in a child process bounded by a timeout: a write that waits for a reader is a failure, not a hang.
The device is the real /dev/null, in a sandbox made of /dev (no root needed)."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a session in a child process

PROBE = textwrap.dedent(
    """
    import json, sys
    from flue_runtime import Harness, LocalSandbox, agent, use_model
    from flue_runtime.models import ScriptedModel, ToolCall

    def write(root, path):
        model = ScriptedModel([[ToolCall("write", {"path": path, "content": "hello"})], "ok"])

        @agent
        def a():
            use_model(model)
            return "x"

        Harness(a, sandbox=LocalSandbox(root)).session("s").prompt_sync("go")
        return model.requests[-1].messages[-1]

    root = sys.argv[1]
    print(json.dumps([write(root, "pipe"), write(root, "sock"), write("/dev", "null"), write(root, "nested/pipe/x")]))
    """
)


def test_write_onto_a_fifo_socket_or_device_fails_at_once(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "nested").mkdir()
    os.mkfifo(tmp_path / "nested" / "pipe")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with server:
        server.bind(str(tmp_path / "sock"))
        server.listen()
        proc = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    fifo, sock, device, under = json.loads(proc.stdout)
    assert fifo["is_error"] and "'pipe' is not a regular file (a FIFO)" in fifo["content"], fifo
    assert sock["is_error"] and "'sock' is not a regular file (a socket)" in sock["content"], sock
    assert device["is_error"] and "'null' is not a regular file (a device)" in device["content"], device
    assert under["is_error"] and "'nested/pipe' is a file" in under["content"], under
    assert stat.S_ISFIFO(os.lstat(tmp_path / "pipe").st_mode) and stat.S_ISSOCK(os.lstat(tmp_path / "sock").st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nested", "pipe", "sock"]  # nothing else left there
