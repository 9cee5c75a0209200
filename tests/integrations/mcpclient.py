"""Drive a skills server with the MCP SDK's own client: the Skills extension's methods, resources, tools.

`verified_skills` is what a host does before it uses a skill: every entry listed, got again, and every
file read and checked against it by `flue_runtime.mcp.host` (size, digest, SKILL.md's frontmatter field
by field), so every test that reads skills over MCP checks the server the way the spec asks hosts to.
"""

from __future__ import annotations

import base64
import re
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any, Literal
from urllib.parse import urlsplit

from mcp import Client, StdioServerParameters, types
from mcp.client.client import ConnectMode
from pydantic import TypeAdapter

from flue_runtime.mcp.host import check_entry, verify_file, verify_skill_md
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


async def every_page(client: Client) -> list[dict[str, Any]]:
    """Every page of `skills/list`, as a host pages it: from no cursor, each `nextCursor` passed back until none."""
    pages = [await list_skills(client)]
    while pages[-1].get("nextCursor") is not None:
        pages.append(await list_skills(client, pages[-1]["nextCursor"]))
    return pages


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


async def verified_skills(client: Client) -> dict[str, dict[str, bytes]]:
    """Every skill the server lists, as a host loads it: by SKILL.md URI, every file's verified bytes by URI."""
    skills: dict[str, dict[str, bytes]] = {}
    for entry in [entry for page in await every_page(client) for entry in page["skills"]]:
        check_entry(entry)
        assert (await get_skill(client, entry["uri"]))["skill"] == entry
        files = {entry["uri"]: await read_bytes(client, entry["uri"])}
        verify_skill_md(entry, files[entry["uri"]])
        for resource in entry["resources"]:
            uri = resource["uri"]
            files[uri] = verify_file(entry, uri, files.get(uri) or await read_bytes(client, uri))
        skills[entry["uri"]] = files
    return skills


def tool_text(result: types.CallToolResult) -> tuple[str, bool]:
    [content] = result.content
    assert isinstance(content, types.TextContent)
    return content.text, bool(result.is_error)


def stdio(*args: str, env: dict[str, str]) -> Client:
    """A client of `flue-skills mcp ARGS` run as a child process speaking stdio."""
    return Client(StdioServerParameters(command=sys.executable, args=["-m", "flue_build", "mcp", *args], env=env))


@asynccontextmanager
async def http(*args: str, env: dict[str, str], mode: ConnectMode = "auto") -> AsyncIterator[Client]:
    """A client of `flue-skills mcp ARGS --http 127.0.0.1:0` over streamable HTTP; the server is stopped after.

    `mode` is the client's: "auto" negotiates the newest revision, "legacy" the initialize handshake's."""
    async with served(*args, env=env) as url, Client(url, mode=mode) as client:
        yield client


@asynccontextmanager
async def served(*args: str, env: dict[str, str]) -> AsyncIterator[str]:
    """`flue-skills mcp ARGS --http 127.0.0.1:0` running: its URL; the server is stopped after."""
    with running(*args, env=env) as url:
        yield url


@contextmanager
def running(*args: str, env: dict[str, str]) -> Iterator[str]:
    """`served`, for code without an event loop."""
    with mcp_process(*args, "--http", "127.0.0.1:0", env=env) as (_, url):
        yield url


@contextmanager
def mcp_process(
    *args: str, env: dict[str, str], said: list[str] | None = None
) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """`flue-skills mcp ARGS` (with an `--http` among them) running: the process and the URL it announced;
    stopped after. The lines it writes on stderr after the announcement go to `said`, when given."""
    from support import slow  # here: child processes import this module without the suite's path

    slow.check("starts an MCP server")
    process = subprocess.Popen(
        [sys.executable, "-m", "flue_build", "mcp", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        url = _announced_url(process)
        threading.Thread(target=_drain, args=(process, [] if said is None else said), daemon=True).start()
        yield process, url
    finally:
        process.terminate()
        process.wait(timeout=60)  # `--workers` stops each worker first


def _drain(process: subprocess.Popen[str], said: list[str]) -> None:
    """The server's stderr read as it comes (a full pipe would stop it), each line kept in `said`."""
    assert process.stderr is not None
    for line in process.stderr:
        said.append(line)


def port_of(url: str) -> int:
    port = urlsplit(url).port
    assert port is not None, url
    return port


def _announced_url(process: subprocess.Popen[str]) -> str:
    assert process.stderr is not None
    seen = []
    for line in process.stderr:
        seen.append(line)
        found = re.search(r" at (http://\S+?:\d+/mcp)( \(|$)", line.strip())
        if found:
            return found.group(1)
    raise AssertionError("the server stopped before serving:\n" + "".join(seen))
