"""An MCP server (the official SDK's `MCPServer`) serving mounted skills.

Three ways in, over one set of skills:

- the Skills extension (`io.modelcontextprotocol/skills`): `skills/list`, `skills/get`, and
  every file of every skill as a resource at `skill://<name>/<path>`. Only the URIs listed
  are served, looked up as they are: a traversal (`..`, `%2E%2E`, `%2F`) or a file not in the
  skill's manifest matches nothing and is refused with Invalid params naming the URI;
- `activate_skill` and `read_skill_resource` as tools, for hosts without the extension: the
  harness's own tools (their definitions and their result texts, through `Skillset`);
- the catalog as the server's instructions, which hosts put in front of the model.

Nothing is done twice: each skill's entry is built once per process, the listing once, and each file
read from its source once (`contents.Contents`: kept within a byte budget, and only when it is the
listed bytes). At revision 2026-07-28 a host can skip the request too: `skills/list`, `skills/get`
and `resources/read` of a skill file carry `ttlMs` and `cacheScope: "public"` (the extension's
`CacheableResult`; the same skills for every caller), and a host that keeps a file by its digest
never needs it again (SEP-2640, "Lazy Retrieval": "A cached file whose digest matches the current
entry can be served without fetching it again").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import anyio.to_thread
from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding, ResourceBinding
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.server.mcpserver.resources import FunctionResource
from mcp.server.mcpserver.tools import Tool as MCPTool
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolRequestParams, CallToolResult, PaginatedRequestParams, RequestParams, TextContent
from mcp_types.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS
from mcp_types.version import is_version_at_least

from flue_runtime.agents.reading import is_text
from flue_runtime.agents.tools import Tool
from flue_runtime.errors import FlueError
from flue_runtime.format.records import SKILL_FILE, PackedFile
from flue_runtime.integrations.skillset import Skillset
from flue_runtime.mcp.contents import Contents
from flue_runtime.mcp.entries import EXTENSION_ID, check_servable, entry, file_uri, mime_type
from flue_runtime.mount.reference import SkillReference

#: How long a host may keep a listing or an entry: an installed bundle does not change while
#: the server runs, and its skills are the same for every user.
TTL_MS = 300_000
#: The protocol revision that defines `resultType` and the cache hints `ttlMs`/`cacheScope` (the
#: base schema's `Result` and `CacheableResult`), and the one the Skills extension is written against.
CACHEABLE_SINCE = "2026-07-28"
#: A file up to this size is read on the event loop (a SKILL.md, a reference page); a larger one in a thread.
INLINE_READ = 64 * 1024


class GetSkillParams(RequestParams):
    """`skills/get` params: the URI of a skill's SKILL.md."""

    uri: str


def skills_server(skills: Iterable[SkillReference], name: str = "flue-skills") -> MCPServer:
    """An MCP server serving `skills`; add your own tools and resources to it, or run it as it is."""
    skillset = Skillset(skills)
    for skill in skillset.skills:
        check_servable(skill)
    extension = SkillsExtension(skillset)
    return MCPServer(
        name,
        instructions=skillset.catalog or None,
        tools=[_mcp_tool(tool) for tool in skillset.tools],
        extensions=[extension],
        middleware=[extension.cache_hints],
    )


class SkillsExtension(Extension):
    """SEP-2640: `skills/list`, `skills/get` and a resource per skill file."""

    identifier = EXTENSION_ID

    def __init__(self, skillset: Skillset, contents: Contents | None = None) -> None:
        self.skillset = skillset
        #: Every file read, kept for the next read (within a budget), as listed.
        self.contents = contents if contents is not None else Contents()
        self._skills = {file_uri(skill.name): skill for skill in skillset.skills}  # by SKILL.md URI
        self._files = {
            file_uri(skill.name, packed.path): (skill, packed) for skill in skillset.skills for packed in skill.files
        }
        self._entries: dict[str, dict[str, Any]] = {}  # by SKILL.md URI, made on first use
        self._listing: list[dict[str, Any]] | None = None
        self._tool_names = frozenset(tool.name for tool in skillset.tools)

    def resources(self) -> Sequence[ResourceBinding]:
        return [ResourceBinding(self._file_resource(uri, *found)) for uri, found in self._files.items()]

    def methods(self) -> Sequence[MethodBinding]:
        return [
            MethodBinding("skills/list", PaginatedRequestParams, self._list),
            MethodBinding("skills/get", GetSkillParams, self._get),
        ]

    def entry(self, skill: SkillReference) -> dict[str, Any]:
        """The skill's entry, built on first use from its SKILL.md read once (`contents`); blocks: call it in a
        worker thread."""
        uri = file_uri(skill.name)
        found = self._entries.get(uri)
        if found is None:
            try:
                packed = next(f for f in skill.files if f.path == SKILL_FILE)
                found = self._entries[uri] = entry(skill, self.contents.read(skill, packed, uri))
            except FlueError as exc:
                raise MCPError(code=INTERNAL_ERROR, message=f"{uri}: {exc}") from None
        return found

    @property
    def cache_hints(self) -> ServerMiddleware[Any]:
        """Server middleware giving a `resources/read` of one of these skill files, at 2026-07-28, the hints
        its listing carries: the files cannot change while the server runs, and are the same for everyone."""
        return _FileCacheHints(frozenset(self._files))

    async def intercept_tool_call(
        self, params: CallToolRequestParams, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """A call of a skill tool gets the harness's result; any other tool goes on to its handler."""
        if params.name not in self._tool_names:
            return await call_next(ctx)
        # Reads block: they run in a worker thread, so one large file does not stall other clients.
        result = await anyio.to_thread.run_sync(self.skillset.call, params.name, params.arguments or {})
        return CallToolResult(content=[TextContent(type="text", text=result.text)], is_error=result.is_error)

    async def _list(self, ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams) -> dict[str, Any]:
        if params.cursor is not None:
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"unknown cursor {params.cursor!r}: this server lists every skill in one page",
            )
        if self._listing is None:  # every entry built once, off the event loop
            self._listing = await anyio.to_thread.run_sync(lambda: [self.entry(s) for s in self.skillset.skills])
        return {**_envelope(ctx), "skills": self._listing}

    async def _get(self, ctx: ServerRequestContext[Any, Any], params: GetSkillParams) -> dict[str, Any]:
        skill = self._skills.get(params.uri)
        if skill is None:
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"No skill is served at {params.uri!r}; a skill's URI is skill://<name>/{SKILL_FILE}, "
                "and skills/list gives every one this server serves",
            )
        found = self._entries.get(params.uri) or await anyio.to_thread.run_sync(self.entry, skill)
        return {**_envelope(ctx), "skill": found}

    def _file_resource(self, uri: str, skill: SkillReference, packed: PackedFile) -> FunctionResource:
        is_skill_md = packed.path == SKILL_FILE

        async def read() -> str | bytes:
            """A kept file answers at once; another is read (then kept): a small one right here, as handing it to
            a worker thread costs more than the read; a large one in a worker thread, not to stall other clients."""
            data = self.contents.kept(skill, packed)
            if data is None:
                try:
                    if packed.size <= INLINE_READ:
                        data = self.contents.read(skill, packed, uri)
                    else:
                        data = await anyio.to_thread.run_sync(self.contents.read, skill, packed, uri)
                except FlueError as exc:
                    raise ResourceError(f"{uri}: {exc}") from None
            return _shown(data)

        return FunctionResource(
            uri=uri,
            name=skill.name if is_skill_md else f"{skill.name}/{packed.path}",
            description=skill.description if is_skill_md else None,
            mime_type=mime_type(packed.path),
            fn=read,
        )


class _FileCacheHints:
    """`ttlMs`/`cacheScope` on a 2026-07-28 `resources/read` of one of `uris` (other resources keep the SDK's)."""

    def __init__(self, uris: frozenset[str]) -> None:
        self.uris = uris

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        result = await call_next(ctx)
        if (
            ctx.method == "resources/read"
            and isinstance(result, dict)
            and isinstance(ctx.params, Mapping)
            and ctx.params.get("uri") in self.uris
            and is_version_at_least(ctx.protocol_version, CACHEABLE_SINCE)
        ):
            result = {**result, "ttlMs": TTL_MS, "cacheScope": "public"}
        return result


def _envelope(ctx: ServerRequestContext[Any, Any]) -> dict[str, Any]:
    """The result fields the negotiated revision defines: none before 2026-07-28, whose clients know no
    `resultType` and no cache hints (a stateless 2026-07-28 request names its revision in `_meta`)."""
    if not is_version_at_least(ctx.protocol_version, CACHEABLE_SINCE):
        return {}
    return {"resultType": "complete", "ttlMs": TTL_MS, "cacheScope": "public"}


def _shown(data: bytes) -> str | bytes:
    """Text when the file is UTF-8 text, so hosts can show it; its bytes (a blob) otherwise."""
    if is_text(data):
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:  # text at the head, not further on
            pass
    return data


def _mcp_tool(tool: Tool) -> MCPTool:
    """The harness's tool as the host sees it: its own name, description and JSON Schema.

    Calls never reach the SDK's argument model: `SkillsExtension.intercept_tool_call`
    answers them through `Skillset.call`, so arguments are checked as the harness checks them.
    """
    made = MCPTool.from_function(tool.function, name=tool.name, description=tool.description, structured_output=False)
    return made.model_copy(update={"parameters": tool.parameters})


__all__ = ["SkillsExtension", "skills_server"]
