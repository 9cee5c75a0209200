"""`remote_skills` against our own `flue-skills mcp` serving a real installed wheel: a token-guarded HTTP server,
reads from many threads over one connection, a server started at import time and stopped at interpreter exit.
(The same texts as the bundle through every surface: `test_same_results.py`; a hostile server:
`test_remote_hostile.py`; an independent server: `test_remote_agentskills.py`.)"""

from __future__ import annotations

import pytest
from support.optional import need

need("mcp", "mcp")

import os
import re
import subprocess
import sys
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from intsupport import PACKAGE, Installed
from mcp import StdioServerParameters
from mcpclient import running
from support import scripted_mcp
from support.scripted_mcp import entry, served, skill_md, write_config
from support.site import section

from flue_runtime import SkillWarning
from flue_runtime.errors import RemoteSkillsError
from flue_runtime.mcp import remote_skills
from flue_runtime.mcp.remote_connection import server_identity, server_of
from flue_runtime.mount.reference import SkillReference

TOKEN = "t0k3n-" + "x" * 40


def test_targets_that_are_no_server_are_refused_before_anything_runs() -> None:
    refused = {
        "ftp://example/mcp": "MCP server 'ftp://example/mcp': a target is an http(s):// URL",
        "http://": "MCP server 'http://': a target is an http(s):// URL",
        "skills_demo": "MCP server 'skills_demo': a target is an http(s):// URL",
    }
    for target, message in refused.items():
        with pytest.raises(RemoteSkillsError) as raised:
            remote_skills(target)
        assert str(raised.value).startswith(message), raised.value
    with pytest.raises(RemoteSkillsError, match="a command as a non-empty list of strings"):
        remote_skills([])
    with pytest.raises(RemoteSkillsError, match="a command as a non-empty list of strings"):
        remote_skills(["python", 3])  # type: ignore[list-item]
    with pytest.raises(RemoteSkillsError, match="headers= go with an http"):
        remote_skills(["python"], headers={"Authorization": "Bearer x"})
    with pytest.raises(RemoteSkillsError, match="timeout must be a positive number of seconds"):
        remote_skills("http://127.0.0.1:9/mcp", timeout=0)


@pytest.mark.slow
def test_a_token_guarded_server_is_reached_with_headers_and_refused_without(
    installed: Installed, demo: dict[str, SkillReference]
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkillWarning)  # the demo's SKILL.md has fields the spec lacks (FLU210)
        with running(PACKAGE, env=installed.env(FLUE_SKILLS_MCP_TOKEN=TOKEN)) as url:
            with pytest.raises(RemoteSkillsError) as raised:
                remote_skills(url, timeout=60)
            assert str(raised.value).startswith(f"MCP server {url}: cannot connect: ")
            assert "401" in str(raised.value) or "Unauthorized" in str(raised.value), raised.value
            with remote_skills(url, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60) as skills:
                assert [s.id for s in skills] == [demo["refunds"].id, demo["triage"].id]
                assert skills[0].read_bytes("policy.md") == demo["refunds"].read_bytes("policy.md")
            with pytest.raises(RemoteSkillsError) as raised:
                remote_skills(url, headers={"Authorization": "Bearer wrong-token-" + "y" * 40}, timeout=60)
            assert TOKEN not in str(raised.value) and "wrong-token" not in str(raised.value)


@pytest.mark.slow
def test_many_threads_read_over_one_connection(installed: Installed, demo: dict[str, SkillReference]) -> None:
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "flue_build", "mcp", PACKAGE], env=installed.env()
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkillWarning)
        skills = remote_skills(server, timeout=60)
    with skills:
        refunds = skills[0]
        paths = list(refunds.resources) * 8
        with ThreadPoolExecutor(8) as pool:
            got = list(pool.map(refunds.read_bytes, paths))
        assert got == [demo["refunds"].read_bytes(path) for path in paths]


@pytest.mark.slow
def test_skills_mounted_at_import_time_leave_no_server_behind_at_exit(tmp_path: Path) -> None:
    files = {"SKILL.md": skill_md("later", "Read later."), "notes.md": b"notes\n"}
    config = write_config(tmp_path, [[entry("later", files)]], served(files, "later"))
    command = [sys.executable, str(Path(scripted_mcp.__file__)), str(config)]
    pidfile = tmp_path / "server.pid"
    program = (
        "import atexit, pathlib\n"
        # Exit handlers run last registered first: this one runs after remote_skills' own.
        f"atexit.register(lambda: print('server left:', pathlib.Path('/proc', {str(pidfile)!r} and "
        f"pathlib.Path({str(pidfile)!r}).read_text()).exists()))\n"
        "from flue_runtime.mcp import remote_skills\n"
        f"SKILLS = remote_skills({command!r}, timeout=60)\n"
        "print(SKILLS[0].read_text('notes.md'), end='')\n"  # the connection stays open; nothing closes it
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (0, "notes\nserver left: False\n"), done.stderr


@pytest.mark.slow
def test_the_readme_snippet_prints_what_it_shows(tmp_path: Path) -> None:
    """The MCP guide, "Skills from a remote MCP server": run as written by the environment's python, its `bin` not
    on PATH (a venv used without activating it, issue 44 item 10); the command it starts shows as the guide says."""
    text = section("guides/mcp.md", "## Skills from a remote MCP server")
    [(code, shown)] = re.findall(r"```python\n(.*?)```\n\n```\n(.*?)```", text, re.DOTALL)
    (tmp_path / "snippet.py").write_text(code, encoding="utf-8")
    bin_folder = str(Path(sys.executable).parent)
    path = [folder for folder in os.environ.get("PATH", "").split(os.pathsep) if folder and folder != bin_folder]
    env = {**os.environ, "PATH": os.pathsep.join(path)}
    out = subprocess.run(
        [sys.executable, "snippet.py"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120
    )
    assert out.returncode == 0, out.stderr
    # The server's identity is of its whole command, so of where flue-skills is installed: the guide shows the one of
    # its /path/to/venv/bin/flue-skills.
    here, there = (identity(f"{folder}/flue-skills") for folder in (bin_folder, "/path/to/venv/bin"))
    assert out.stdout.replace(bin_folder, "/path/to/venv/bin").replace(here, there) == shown


def identity(program: str) -> str:
    return server_identity(server_of([program, "mcp", "skills"], None)[0])
