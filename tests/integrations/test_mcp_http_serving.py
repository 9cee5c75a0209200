"""The HTTP serving of skills is the run time's (issue 42 item 1): `flue_runtime.mcp.http_serving.http_app` is the app
`flue-skills mcp --http` runs, built from Python and driven here in this process through its ASGI interface: the
health endpoint with the catalog's digest, the guard in front of it, MCP behind it."""

from __future__ import annotations

import pytest
from support.optional import need

need("mcp", "mcp")

import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
from starlette.types import ASGIApp
from support.projects import write_skill

from flue_runtime.mcp.http_guard import TOKEN_ENV
from flue_runtime.mcp.http_serving import HEALTH, PATH, Serving, catalog_digest, http_app
from flue_runtime.mount.disk import load_skill_dir


def test_the_app_is_built_from_python_and_guarded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    skills = [load_skill_dir(write_skill(tmp_path / name)) for name in ("alpha", "beta")]
    app = http_app(Serving("(python)", "skills", "127.0.0.1", "127.0.0.1", 8123, stateless=True), skills)

    async def ask() -> tuple[httpx2.Response, httpx2.Response, httpx2.Response]:
        transport = httpx2.ASGITransport(app=app)
        async with running(app), httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1:8123") as client:
            health = await client.get(HEALTH)
            foreign = await client.get(HEALTH, headers={"Host": "attacker.example:8123"})
            listed = await client.post(
                PATH,
                json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
                headers={"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"},
            )
        return health, foreign, listed

    health, foreign, listed = anyio.run(ask)
    assert health.status_code == 200 and health.json()["catalog"] == catalog_digest(skills)
    assert health.json()["skills"] == 2
    assert foreign.status_code == 421  # a host name pointed at the loopback address (DNS rebinding)
    assert listed.status_code == 200 and "activate_skill" in listed.text


@asynccontextmanager
async def running(app: ASGIApp) -> AsyncIterator[None]:
    """The app's lifespan, as a server runs it around the requests (the SDK's session manager starts there)."""
    to_app, app_receives = anyio.create_memory_object_stream[dict[str, Any]](4)
    app_sends, from_app = anyio.create_memory_object_stream[dict[str, Any]](4)
    async with anyio.create_task_group() as group:
        group.start_soon(
            app, {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, app_receives.receive, app_sends.send
        )
        await to_app.send({"type": "lifespan.startup"})
        assert (await from_app.receive())["type"] == "lifespan.startup.complete"
        yield
        await to_app.send({"type": "lifespan.shutdown"})
        assert (await from_app.receive())["type"] == "lifespan.shutdown.complete"


def test_mcp_help_needs_no_sdk() -> None:
    """The command's options (their defaults the serving's own) are listed where the `mcp` extra is not installed."""
    code = "import sys; sys.modules['mcp'] = None\nfrom flue_build.cli import main\nmain(['mcp', '--help'])"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "--body-timeout" in done.stdout and "default 10" in done.stdout
