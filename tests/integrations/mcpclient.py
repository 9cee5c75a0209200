"""Drive a skills server with the MCP SDK's own client: the Skills extension's methods, resources, tools."""

from __future__ import annotations

import base64
import re
import subprocess
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Literal

from mcp import Client, StdioServerParameters, types
from pydantic import TypeAdapter

from flue_runtime.mcp.server import GetSkillParams

_ANY = TypeAdapter(dict[str, Any])


class ListSkills(types.Request[types.PaginatedRequestParams | None, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"
    params: types.PaginatedRequestParams | None = None


class GetSkill(types.Request[GetSkillParams, Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"


async def list_skills(client: Client, cursor: str | None = None) -> dict[str, Any]:
    params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
    return await client.session.send_request(ListSkills(params=params), _ANY)


async def get_skill(client: Client, uri: str) -> dict[str, Any]:
    return await client.session.send_request(GetSkill(params=GetSkillParams(uri=uri)), _ANY)


async def read_bytes(client: Client, uri: str) -> bytes:
    """A resource's bytes, however the server sent them (text or base64 blob)."""
    result = await client.read_resource(uri)
    [content] = result.contents
    assert content.uri == uri
    if isinstance(content, types.TextResourceContents):
        return content.text.encode("utf-8")
    return base64.b64decode(content.blob)


def tool_text(result: types.CallToolResult) -> tuple[str, bool]:
    [content] = result.content
    assert isinstance(content, types.TextContent)
    return content.text, bool(result.is_error)


def stdio(*args: str, env: dict[str, str]) -> Client:
    """A client of `flue-skills mcp ARGS` run as a child process speaking stdio."""
    return Client(StdioServerParameters(command=sys.executable, args=["-m", "flue_build", "mcp", *args], env=env))


@asynccontextmanager
async def http(*args: str, env: dict[str, str]) -> AsyncIterator[Client]:
    """A client of `flue-skills mcp ARGS --http 127.0.0.1:0` over streamable HTTP; the server is stopped after."""
    process = subprocess.Popen(
        [sys.executable, "-m", "flue_build", "mcp", *args, "--http", "127.0.0.1:0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        url = _announced_url(process)
        threading.Thread(target=process.stderr.read, daemon=True).start()  # keep the pipe drained  # type: ignore[union-attr]
        async with Client(url) as client:
            yield client
    finally:
        process.terminate()
        process.wait(timeout=30)


def _announced_url(process: subprocess.Popen[str]) -> str:
    assert process.stderr is not None
    seen = []
    for line in process.stderr:
        seen.append(line)
        found = re.search(r"at (http://127\.0\.0\.1:\d+/mcp)$", line.strip())
        if found:
            return found.group(1)
    raise AssertionError("the server stopped before serving:\n" + "".join(seen))
