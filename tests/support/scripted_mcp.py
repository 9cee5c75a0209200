"""A real MCP server (the official SDK's `MCPServer`) that serves whatever a test scripts: the hostile server of
the remote-skills tests, run as a child process (`python scripted_mcp.py CONFIG [--http PORT]`).

The config (JSON, written by `write_config`) holds the `skills/list` pages (entries as the test wrote them:
tampered digests, wrong sizes, mismatched frontmatter, hostile names), entries served by `skills/get` alone
(`unlisted`: `skills/get` answers the entry of any listed or unlisted URI, an error for another), what `resources/read` answers for each
URI (text or blob, an error, or never an answer), whether the Skills extension is offered at all, a file where
the server writes its pid, and a file where it logs every URI it was asked to read (a test checks what a host
read, and when).

The test side: `entry(...)` makes a skill's entry from its files (as an honest server would, then tampered as
asked), `served(...)` what `resources/read` answers, `write_config(...)`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

EXTENSION_ID = "io.modelcontextprotocol/skills"


# --- the test's side -----------------------------------------------------------------------------


def uri(skill: str, path: str = "SKILL.md") -> str:
    return f"skill://{skill}/{quote(path, safe='/')}"


def skill_md(name: str, description: str, body: str = "Do the thing.\n", **fields: str) -> bytes:
    extra = "".join(f"{key}: {value}\n" for key, value in fields.items())
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n{body}".encode()


def entry(
    skill: str,
    files: Mapping[str, bytes],
    *,
    frontmatter: Mapping[str, Any] | None = None,
    listed: Mapping[str, Mapping[str, Any]] | None = None,
    root: str | None = None,
) -> dict[str, Any]:
    """The `Skill` entry an honest server sends for `files` (size and digest of each), with `frontmatter` (the
    name and description of SKILL.md's by default) and `listed` overriding what the manifest says of a path."""
    front = dict(frontmatter) if frontmatter is not None else _frontmatter(files["SKILL.md"])
    base = root or skill
    resources = []
    for path, data in files.items():
        resource = {"uri": uri(base, path), "digest": "sha256:" + hashlib.sha256(data).hexdigest(), "size": len(data)}
        resource.update((listed or {}).get(path, {}))
        resources.append(resource)
    for path, extra in (listed or {}).items():
        if path not in files:
            resources.append({"uri": uri(base, path), **extra})
    return {"uri": uri(base), "frontmatter": front, "resources": resources}


def honest_listing(size: int) -> list[dict[str, Any]]:
    """Entries of skills with 40 files each, as an honest server lists them (their digests, sizes, frontmatter with
    metadata), `size` bytes of compact JSON in all; none lists a SKILL.md of its own, so none is mounted."""
    entries: list[dict[str, Any]] = []
    total, n = 0, 0
    while total < size:
        name = f"skill-{n:05d}"
        resources = [
            {
                "uri": uri(name, f"references/f{k:03d}.md"),
                "digest": "sha256:" + hashlib.sha256(b"%d" % k).hexdigest(),
                "size": 1234,
            }
            for k in range(40)
        ]
        front = {
            "name": name,
            "description": f"Do task {n}. Use when task {n} comes up.",
            "metadata": {"team": "billing"},
        }
        made = {"uri": uri(name), "frontmatter": front, "resources": resources}
        entries.append(made)
        total += len(json.dumps(made, separators=(",", ":")))
        n += 1
    return entries


def served(files: Mapping[str, bytes], skill: str, *, blob: bool = False) -> dict[str, dict[str, Any]]:
    """What `resources/read` answers for each file of `skill`: its bytes, as text when they are UTF-8."""
    out = {}
    for path, data in files.items():
        try:
            text = None if blob else data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        out[uri(skill, path)] = {"text": text} if text is not None else {"blob": base64.b64encode(data).decode()}
    return out


def write_config(
    folder: Path,
    pages: Sequence[Sequence[Mapping[str, Any]]],
    files: Mapping[str, Mapping[str, Any]],
    *,
    extension: bool = True,
    loop_cursor: bool = False,
    unlisted: Sequence[Mapping[str, Any]] = (),
) -> Path:
    """The server's config in `folder` (with its read log `reads.log` and pid file `server.pid` beside it)."""
    config = folder / "server.json"
    config.write_text(
        json.dumps(
            {
                "pages": list(pages),
                "files": dict(files),
                "extension": extension,
                "loop_cursor": loop_cursor,
                "unlisted": list(unlisted),
                "log": str(folder / "reads.log"),
                "pidfile": str(folder / "server.pid"),
            }
        )
    )
    return config


#: How a test reaches the server: over stdio; over streamable HTTP on 127.0.0.1 (each reply a JSON body, as the SDK's
#: server answers at the current protocol); or over HTTP through `event_streams`' proxy (each reply an event stream).
TRANSPORTS = ("stdio", "http", "events")


@contextmanager
def serving(config: Path, transport: str = "stdio") -> Iterator[list[str] | str]:
    """The server of `config`, as `remote_skills` takes it over `transport` (one of `TRANSPORTS`): its command, or
    its URL once it listens (the server stopped at the end)."""
    command = [sys.executable, str(Path(__file__)), str(config)]
    if transport == "stdio":
        yield command
        return
    from support.event_streams import FRAMES, event_streams

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([*command, "--http", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        url = f"http://127.0.0.1:{port}/mcp"
        if transport == "events":
            with event_streams(url, FRAMES["plain"]) as proxied:
                yield proxied
        else:
            yield url
    finally:
        server.terminate()
        server.wait(30)


def reads(folder: Path) -> list[str]:
    """Every URI the server was asked to read (`resources/read`), in order."""
    return [line for line in _log(folder) if not line.startswith(_GOT)]


def gets(folder: Path) -> list[str]:
    """Every URI the server was asked for by `skills/get`, in order."""
    return [line.removeprefix(_GOT) for line in _log(folder) if line.startswith(_GOT)]


_GOT = "skills/get "


def _log(folder: Path) -> list[str]:
    log = folder / "reads.log"
    return log.read_text().splitlines() if log.exists() else []


def _frontmatter(data: bytes) -> dict[str, Any]:
    head = data.decode().split("---\n")[1]
    return dict(line.split(": ", 1) for line in head.splitlines())


# --- the server ----------------------------------------------------------------------------------


def main(argv: list[str]) -> None:
    import anyio
    from mcp.server.extension import Extension, MethodBinding
    from mcp.server.lowlevel.helper_types import ReadResourceContents
    from mcp.server.mcpserver import MCPServer
    from mcp.shared.exceptions import MCPError
    from mcp_types import PaginatedRequestParams, RequestParams

    class GetParams(RequestParams):
        uri: str

    config = json.loads(Path(argv[0]).read_text())
    Path(config["pidfile"]).write_text(str(os.getpid()))
    pages: list[list[dict[str, Any]]] = config["pages"]
    everything = [*(e for page in pages for e in page), *config.get("unlisted", [])]
    by_uri = {e.get("uri"): e for e in everything if isinstance(e, dict)}  # (a hostile page holds other things too)

    class Skills(Extension):
        identifier = EXTENSION_ID

        def methods(self) -> Sequence[MethodBinding]:
            return [
                MethodBinding("skills/list", PaginatedRequestParams, self._list),
                MethodBinding("skills/get", GetParams, self._get),
            ]

        async def _get(self, ctx: Any, params: GetParams) -> dict[str, Any]:
            with open(config["log"], "a") as log:
                log.write(f"{_GOT}{params.uri}\n")
            found = by_uri.get(params.uri)
            if found is None:
                raise MCPError(-32602, f"no skill at {params.uri}")
            return {"skill": found}

        async def _list(self, ctx: Any, params: PaginatedRequestParams) -> dict[str, Any]:
            index = int(params.cursor or 0)
            result: dict[str, Any] = {"skills": pages[index]}
            if config["loop_cursor"]:
                result["nextCursor"] = "0"
            elif index + 1 < len(pages):
                result["nextCursor"] = str(index + 1)
            return result

    class Scripted(MCPServer):
        async def read_resource(self, uri: Any, context: Any = None) -> list[ReadResourceContents]:
            with open(config["log"], "a") as log:
                log.write(f"{uri}\n")
            answer = config["files"].get(str(uri))
            if answer is None or "error" in answer:
                raise MCPError(-32602, answer["error"] if answer else f"no resource {uri}")
            if answer.get("hang"):
                await anyio.sleep_forever()
            if answer.get("text") is not None:
                return [ReadResourceContents(content=answer["text"], mime_type="text/markdown")]
            return [
                ReadResourceContents(content=base64.b64decode(answer["blob"]), mime_type="application/octet-stream")
            ]

    server = Scripted("scripted-skills", extensions=[Skills()] if config["extension"] else [])
    if len(argv) > 2 and argv[1] == "--http":
        server.run(transport="streamable-http", host="127.0.0.1", port=int(argv[2]))
    else:
        server.run()


if __name__ == "__main__":
    main(sys.argv[1:])
