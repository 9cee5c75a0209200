"""agentskills-mcp-server, an MCP Skills-extension server independent of ours (from the package index), pinned,
in a Python 3.12 venv of its own (it needs Python >= 3.12), installed once into a cache folder.

`.ci/run` runs this file beside the tests (`.venv/bin/python tests/support/agentskills_server.py`); a test calls
`ensure()`, which makes the venv when it is missing, with uv from the test extra (it reaches the index from CI and
developers' machines), or waits for the install under way. The folder is
`$FLUE_AGENTSKILLS_SERVER`, by default `~/.cache/flue-skills-tests/agentskills-mcp-server-<version>`.

`config(...)` writes the server's config for folders of skills (its `fs` provider); `stdio_command(config)` is its
own CLI; `http_command(config, port)` runs the same server over streamable HTTP on 127.0.0.1:PORT through its
public API (its CLI's HTTP transport listens on a fixed port only).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from uv import find_uv_bin

PIN = "agentskills-mcp-server[fs]==0.7.0"
VERSION = PIN.rpartition("==")[2]


def folder() -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "flue-skills-tests"
    return Path(os.environ.get("FLUE_AGENTSKILLS_SERVER") or cache / f"agentskills-mcp-server-{VERSION}")


def python312() -> Path:
    """A Python 3.12 to make the venv with: pyenv's 3.12.1 (as `.ci/run` uses), else `python3.12` on PATH."""
    pyenv = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions" / "3.12.1" / "bin" / "python"
    found = pyenv if pyenv.exists() else shutil.which("python3.12")
    assert found, "agentskills-mcp-server needs Python 3.12 or newer: install pyenv's 3.12.1"
    return Path(found)


def ensure() -> Path:
    """The venv's python, with the pinned server installed (made now when missing or from another pin)."""
    venv = folder()
    python = venv / "bin" / "python"
    marker = venv / "installed.txt"
    venv.parent.mkdir(parents=True, exist_ok=True)
    # One install at a time (pytest-xdist's workers, other checkouts), and no look at a half-done one.
    with open(venv.parent / f".{venv.name}-lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (python.exists() and marker.exists() and marker.read_text() == PIN):
            shutil.rmtree(venv, ignore_errors=True)
            # uv (of the test extra): no pip seeded into the venv, which the server does not need.
            uv = find_uv_bin()
            env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
            for command in (
                [uv, "venv", "-q", "--python", str(python312()), str(venv)],
                [uv, "pip", "install", "-q", "--python", str(python), PIN],
            ):
                subprocess.run(command, check=True, stdin=subprocess.DEVNULL, env=env)
            marker.write_text(PIN)
    return python


def config(path: Path, root: Path, ids: Sequence[str], *, page_size: int = 100) -> Path:
    """The server's config at `path`: skills `ids`, each a folder under `root` read by its `fs` provider."""
    skills = [{"id": skill, "provider": "fs", "options": {"root": str(root)}} for skill in ids]
    path.write_text(json.dumps({"name": "agentskills", "page_size": page_size, "skills": skills}))
    return path


def demo_skills(root: Path) -> Path:
    """The integrations fixture's skill folders, copied to `root`, as this server takes them: it refuses a
    frontmatter value JSON cannot hold (a YAML date) and `metadata` values that are not strings, so refunds'
    SKILL.md says `reviewed` no more and quotes its metadata; its body and every other file are the fixture's."""
    from support.paths import PROJECTS

    shutil.copytree(PROJECTS / "integrations-demo" / "skills_demo" / "skills", root)
    skill_md = root / "refunds" / "SKILL.md"
    text = skill_md.read_text()
    for old, new in [
        ("reviewed: 2024-05-01\n", ""),
        ("  version: 1.0\n", '  version: "1.0"\n'),
        ("  build: 7\n", '  build: "7"\n'),
    ]:
        assert old in text, old
        text = text.replace(old, new)
    skill_md.write_text(text)
    return root


def stdio_command(config_file: Path) -> list[str]:
    """Its own CLI, speaking stdio."""
    return [str(ensure()), "-m", "agentskills_mcp_server", "--config", str(config_file)]


#: The server its CLI builds, run over streamable HTTP on 127.0.0.1 at a port of the caller's choosing.
_HTTP = """
import asyncio, json, sys
from pathlib import Path
from agentskills_core import Skill
from agentskills_fs import LocalFileSystemSkillProvider
from agentskills_mcp_server import create_mcp_server

config = json.loads(Path(sys.argv[1]).read_text())
handles = [Skill(s["id"], LocalFileSystemSkillProvider(root=Path(s["options"]["root"]))) for s in config["skills"]]
server = asyncio.run(create_mcp_server(handles, name=config["name"], page_size=config["page_size"]))
server.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
"""


def http_command(config_file: Path, port: int) -> list[str]:
    return [str(ensure()), "-c", _HTTP, str(config_file), str(port)]


if __name__ == "__main__":
    print(ensure(), file=sys.stderr)
