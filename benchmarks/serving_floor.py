"""The serving benchmark's floor: the least an official-SDK server does to serve a folder of skills.

    python benchmarks/serving_floor.py FOLDER PORT
    python benchmarks/serving_floor.py FOLDER stdio
    python benchmarks/serving_floor.py FOLDER stdio --c-yaml    # frontmatter by libyaml: a stricter floor

Every file of every skill folder read into memory at start-up, each skill's Skills-extension entry
(frontmatter by PyYAML, SHA-256 digests) built once, then served over streamable HTTP on 127.0.0.1
(or over stdio) by the `mcp` SDK's own pieces, as `flue-skills mcp` serves (the SDK's `MCPServer`, an
`Extension` answering `skills/list` and `skills/get` with the prebuilt entries, each file a
`TextResource` holding its text, uvicorn at log level warning): no vetting, no digest checked at
read time, no tools, no catalog. What a server of skills cannot do with less. Not shipped: a
benchmark input, like `generate.py`.

The recorded floor parses with PyYAML's pure-Python `SafeLoader`, as issue 24 defined it, so runs compare;
`--c-yaml` parses with `CSafeLoader` (libyaml), what a careful implementer would use: the stricter floor
BENCHMARKS.md sets beside it for stdio start-up.
"""

from __future__ import annotations

import hashlib
import mimetypes
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import uvicorn
import yaml
from mcp.server.caching import CacheHint
from mcp.server.context import ServerRequestContext
from mcp.server.extension import Extension, MethodBinding, ResourceBinding
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resources import TextResource
from mcp.shared.exceptions import MCPError
from mcp_types import PaginatedRequestParams, RequestParams
from mcp_types.jsonrpc import INVALID_PARAMS
from mcp_types.version import is_version_at_least

TTL_MS = 300_000


class GetParams(RequestParams):
    uri: str


Loader = type[yaml.SafeLoader] | type[yaml.CSafeLoader]


def frontmatter(text: str, loader: Loader = yaml.SafeLoader) -> dict[str, Any]:
    _, block, _ = text.split("---\n", 2)
    data = yaml.load(block, Loader=loader)  # one of the two safe loaders
    assert isinstance(data, dict)
    return data


def load(folder: Path, loader: Loader = yaml.SafeLoader) -> tuple[list[dict[str, Any]], list[TextResource]]:
    entries: list[dict[str, Any]] = []
    resources: list[TextResource] = []
    for skill in sorted(p for p in folder.iterdir() if (p / "SKILL.md").is_file()):
        files = sorted(p.relative_to(skill).as_posix() for p in skill.rglob("*") if p.is_file())
        listed = []
        for path in files:
            data = (skill / path).read_bytes()
            uri = f"skill://{skill.name}/{quote(path, safe='/')}"
            listed.append({"uri": uri, "digest": "sha256:" + hashlib.sha256(data).hexdigest(), "size": len(data)})
            mime = "text/markdown" if path.endswith(".md") else mimetypes.guess_type(path)[0] or "text/plain"
            resources.append(TextResource(uri=uri, name=f"{skill.name}/{path}", text=data.decode(), mime_type=mime))
        front = frontmatter((skill / "SKILL.md").read_text(encoding="utf-8"), loader)
        entries.append({"uri": f"skill://{skill.name}/SKILL.md", "frontmatter": front, "resources": listed})
    return entries, resources


class Skills(Extension):
    identifier = "io.modelcontextprotocol/skills"

    def __init__(self, entries: list[dict[str, Any]], resources: list[TextResource]) -> None:
        self.entries = entries
        self.by_uri = {entry["uri"]: entry for entry in entries}
        self.files = resources

    def resources(self) -> list[ResourceBinding]:
        return [ResourceBinding(resource) for resource in self.files]

    def methods(self) -> list[MethodBinding]:
        return [
            MethodBinding("skills/list", PaginatedRequestParams, self.list),
            MethodBinding("skills/get", GetParams, self.get),
        ]

    async def list(self, ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams) -> dict[str, Any]:
        return {**envelope(ctx), "skills": self.entries}

    async def get(self, ctx: ServerRequestContext[Any, Any], params: GetParams) -> dict[str, Any]:
        found = self.by_uri.get(params.uri)
        if found is None:
            raise MCPError(code=INVALID_PARAMS, message=f"No skill is served at {params.uri!r}")
        return {**envelope(ctx), "skill": found}


def envelope(ctx: ServerRequestContext[Any, Any]) -> dict[str, Any]:
    if not is_version_at_least(ctx.protocol_version, "2026-07-28"):
        return {}
    return {"resultType": "complete", "ttlMs": TTL_MS, "cacheScope": "public"}


def main() -> None:
    # sys.argv by hand, not argparse: the recorded floor imports nothing it did not before the flag
    folder, port, *flags = sys.argv[1:]
    if set(flags) - {"--c-yaml"}:
        raise SystemExit(f"serving_floor.py: unknown flags {flags}; usage: FOLDER PORT|stdio [--c-yaml]")
    entries, resources = load(Path(folder), yaml.CSafeLoader if "--c-yaml" in flags else yaml.SafeLoader)
    server = MCPServer(
        "floor",
        extensions=[Skills(entries, resources)],
        cache_hints={"resources/read": CacheHint(TTL_MS, "public")},
    )
    if port == "stdio":
        server.run("stdio")
        return
    app = server.streamable_http_app(host="127.0.0.1")
    web = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=int(port), log_level="warning"))
    anyio.run(web.serve)


if __name__ == "__main__":
    main()
