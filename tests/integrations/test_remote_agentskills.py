"""`remote_skills` against agentskills-mcp-server 0.7.0, a Skills-extension server independent of ours (from the
package index, in a Python 3.12 venv of its own: `support.agentskills_server`), over streamable HTTP and over stdio
through its own CLI: entries verified as a host must (its YAML reading of each frontmatter agrees with ours field by
field), every page of its listing read, support files read only when used and checked against its digests. (The
same texts as the bundle through every surface: `test_same_results.py`.)"""

from __future__ import annotations

import pytest
from support.optional import need

need("mcp", "mcp")

import socket
import subprocess
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

from support import agentskills_server
from support.paths import PROJECTS

from flue_runtime import SkillWarning
from flue_runtime.mcp import remote_skills
from flue_runtime.mcp.remote import FROM_LINE

pytestmark = pytest.mark.slow

FIXTURE = PROJECTS / "integrations-demo" / "skills_demo" / "skills"


@pytest.fixture
def config(tmp_path: Path) -> Path:
    """Its config: the fixture's skills, one a page (so a host must follow its cursors)."""
    root = agentskills_server.demo_skills(tmp_path / "skills")
    return agentskills_server.config(tmp_path / "server.json", root, ["refunds", "triage"], page_size=1)


@pytest.fixture
def url(config: Path) -> Iterator[str]:
    """The server over streamable HTTP on a free port of 127.0.0.1, stopped after."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        agentskills_server.http_command(config, port),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            assert process.poll() is None, "the server stopped before it listened"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not listen within 120 s"
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_its_skills_over_http_are_mounted_verified_and_read_when_used(url: str, config: Path) -> None:
    root = config.parent / "skills"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkillWarning)  # refunds has fields the spec lacks (FLU210)
        skills = remote_skills(url, timeout=120)
    with skills:
        assert skills.server == f"MCP server {url}"
        refunds, triage = skills
        assert (refunds.name, triage.name) == ("refunds", "triage")  # two pages, both read
        assert refunds.metadata == {"team": "payments", "version": "1.0", "build": "7"}
        assert refunds.resources == ("assets/stamp.png", "data/rates.csv", "policy.md", "templates/email (v2).md")
        body = (FIXTURE / "refunds" / "SKILL.md").read_text().split("---\n", 2)[2]
        assert (
            refunds.instructions == FROM_LINE.format(origin=refunds.origin, identity=skills.identity) + body
        )  # (its origin first)
        for path in refunds.resources:  # text and binary alike, each checked against its digest when read
            assert refunds.read_bytes(path) == (root / "refunds" / path).read_bytes()
        assert triage.read_bytes("SKILL.md") == (FIXTURE / "triage" / "SKILL.md").read_bytes()
