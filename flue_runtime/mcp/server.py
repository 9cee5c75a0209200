"""An MCP server (the official SDK's `MCPServer`) serving mounted skills.

Three ways in, over one set of skills:

- the Skills extension (`io.modelcontextprotocol/skills`): `skills/list`, `skills/get`, and
  every file of every skill as a resource at `skill://<name>/<path>`. Only the URIs listed
  are served, looked up as they are: a traversal (`..`, `%2E%2E`, `%2F`) or a file not in the
  skill's manifest matches nothing and is refused with Invalid params naming the URI;
- `activate_skill` and `read_skill_resource` as tools, for hosts without the extension: the
  harness's own tools (their definitions and their result texts, through `Skillset`);
- the catalog as the server's instructions, which hosts put in front of the model.

`skills/list` pages (`PAGE_SIZE` entries a page, an entry never split): the first page without a
cursor, each next one by the opaque `nextCursor` the page before gave; any other cursor is refused
with Invalid params (-32602), as the base protocol's pagination asks. A cursor names the page and
the skills served (a digest of their names and content ids), so identical replicas behind a load
balancer accept each other's, and a server serving other skills refuses them. Skills over the
extension's limits (`entries.MAX_FILES` files, `entries.MAX_SIZE` bytes) are left out with a
`SkillWarning` unless the operator allows them (`allow_oversize=True`).

Nothing is done twice: every entry, and every page, is built once at start-up, and each file
read from its source once (`contents.Contents`: kept within a byte budget, and only when it is the
listed bytes). At revision 2026-07-28 a host can skip the request too: `skills/list`, `skills/get`
and `resources/read` of a skill file carry `ttlMs` and `cacheScope: "public"` (the extension's
`CacheableResult`; the same skills for every caller), and a host that keeps a file by its digest
never needs it again (SEP-2640, "Lazy Retrieval": "A cached file whose digest matches the current
entry can be served without fetching it again").
"""

from __future__ import annotations

import base64
import hashlib
import warnings
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
from mcp_types.jsonrpc import INVALID_PARAMS
from mcp_types.version import is_version_at_least

from flue_runtime import __version__
from flue_runtime.agents.tools import Tool
from flue_runtime.errors import FlueError, SkillWarning
from flue_runtime.format.records import SKILL_FILE, PackedFile
from flue_runtime.format.text_files import is_text
from flue_runtime.integrations.skillset import Skillset
from flue_runtime.mcp.contents import Contents
from flue_runtime.mcp.entries import EXTENSION_ID, SCHEME, check_servable, entry, file_uri, mime_type, servable
from flue_runtime.mount.reference import SkillReference

#: How long a host may keep a listing or an entry: an installed bundle does not change while
#: the server runs, and its skills are the same for every user.
TTL_MS = 300_000
#: The protocol revision that defines `resultType` and the cache hints `ttlMs`/`cacheScope` (the
#: base schema's `Result` and `CacheableResult`), and the one the Skills extension is written against.
CACHEABLE_SINCE = "2026-07-28"
#: Entries in one page of `skills/list`: the page size of agentskills-mcp-server, the peer implementation, so
#: a host sees the same pages from either. A typical entry is 0.5-1 KB of JSON, so a page is some 70 KB, parsed
#: at once; 10,000 skills are 100 requests. An entry is never split: a skill of 512 files is one large entry.
PAGE_SIZE = 100
#: The MIME type of a directory resource (the extension's "Directory Resources").
DIRECTORY = "inode/directory"
#: A file up to this size is read on the event loop (a SKILL.md, a reference page); a larger one in a thread.
INLINE_READ = 64 * 1024


class GetSkillParams(RequestParams):
    """`skills/get` params: the URI of a skill's SKILL.md."""

    uri: str


class ReadDirectoryParams(PaginatedRequestParams):
    """`resources/directory/read` params: the URI of a directory resource (a skill's folder), and a cursor."""

    uri: str


def skills_server(
    skills: Iterable[SkillReference], name: str = "flue-skills", *, allow_oversize: bool = False
) -> MCPServer:
    """An MCP server serving `skills`; add your own tools and resources to it, or run it as it is.

    A skill of more than 512 files or 16 MiB in all (SEP-2640: servers SHOULD NOT serve one) is left out, with a
    `SkillWarning` naming it, unless `allow_oversize`. Every entry is built here, reading each SKILL.md once:
    a `FlueError` when one can no longer be read as mounted."""
    skills = list(skills)
    for skill in skills:
        check_servable(skill)
    served, notes = servable(skills, allow_oversize)
    for note in notes:
        warnings.warn(note, SkillWarning, stacklevel=2)
    skillset = Skillset(served)
    for skill in skillset.skills:  # (a skill labelled for a name another origin shares: served under its own only)
        check_servable(skill)
    extension = SkillsExtension(skillset)
    return MCPServer(
        name,
        version=__version__,
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
        # Every entry, by SKILL.md URI, and every page of the listing, built now: no request waits for them.
        self._entries = {uri: self._build(skill) for uri, skill in self._skills.items()}
        listing = list(self._entries.values())
        self._pages = [listing[start : start + PAGE_SIZE] for start in range(0, len(listing), PAGE_SIZE)] or [[]]
        served = hashlib.sha256("".join(f"{s.name}\t{s.id}\n" for s in skillset.skills).encode()).hexdigest()
        self._cursors = [_cursor(served, index) for index in range(len(self._pages))]
        self._page_of = {cursor: index for index, cursor in enumerate(self._cursors) if index}
        self._tool_names = frozenset(tool.name for tool in skillset.tools)
        self._folders = _folders(self._files)

    def settings(self) -> dict[str, Any]:
        """The extension's settings, as `capabilities.extensions[...]` declares them: `resources/directory/read`."""
        return {"directoryRead": True}

    def resources(self) -> Sequence[ResourceBinding]:
        return [ResourceBinding(self._file_resource(uri, *found)) for uri, found in self._files.items()]

    def methods(self) -> Sequence[MethodBinding]:
        return [
            MethodBinding("skills/list", PaginatedRequestParams, self._list),
            MethodBinding("skills/get", GetSkillParams, self._get),
            MethodBinding("resources/directory/read", ReadDirectoryParams, self._read_directory),
        ]

    def entry(self, skill: SkillReference) -> dict[str, Any]:
        """The entry of `skill`, one of the skills served (built when the extension was)."""
        return self._entries[file_uri(skill.name)]

    def _build(self, skill: SkillReference) -> dict[str, Any]:
        """The skill's entry, from its SKILL.md read once (`contents`, which keeps it for the first reads)."""
        uri = file_uri(skill.name)
        packed = next(f for f in skill.files if f.path == SKILL_FILE)
        return entry(skill, self.contents.read(skill, packed, uri))

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
        index = 0 if params.cursor is None else self._page_of.get(params.cursor)
        if index is None:
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"Invalid cursor {params.cursor!r}: pass back a nextCursor this server's skills/list gave, "
                "or none for the first page",
            )
        result = {**_envelope(ctx), "skills": self._pages[index]}
        if index + 1 < len(self._pages):
            result["nextCursor"] = self._cursors[index + 1]
        return result

    async def _get(self, ctx: ServerRequestContext[Any, Any], params: GetSkillParams) -> dict[str, Any]:
        found = self._entries.get(params.uri)
        if found is None:
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"No skill is served at {params.uri!r}; a skill's URI is skill://<name>/{SKILL_FILE}, "
                "and skills/list gives every one this server serves",
            )
        return {**_envelope(ctx), "skill": found}

    async def _read_directory(self, ctx: ServerRequestContext[Any, Any], params: ReadDirectoryParams) -> dict[str, Any]:
        """The direct children of a skill's folder (the extension's "Reading Directories"): every file with its
        resource metadata, every subfolder as a directory resource; one page, so a cursor is never one it gave."""
        children = self._folders.get(params.uri)
        if children is None:
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"{params.uri!r} is not a directory resource: a directory is a skill's folder, "
                "skill://<name> or a folder inside it, without a trailing slash",
            )
        if params.cursor is not None:
            raise MCPError(code=INVALID_PARAMS, message=f"Invalid cursor {params.cursor!r}: this listing is one page")
        listed = []
        for child in children:
            found = self._files.get(child)
            if found is None:
                listed.append({"uri": child, "name": child.rpartition("/")[2], "mimeType": DIRECTORY})
            else:
                listed.append(_metadata(child, *found))
        return {**_result_type(ctx), "resources": listed}

    def _file_resource(self, uri: str, skill: SkillReference, packed: PackedFile) -> FunctionResource:
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

        said = _metadata(uri, skill, packed)
        return FunctionResource(
            uri=uri, name=said["name"], description=said.get("description"), mime_type=said["mimeType"], fn=read
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


def _metadata(uri: str, skill: SkillReference, packed: PackedFile) -> dict[str, str]:
    """A skill file's resource metadata, as `resources/list` and a directory read give it: SKILL.md named and
    described as its skill (the extension's SHOULDs), another file by the skill's name and its path."""
    if packed.path == SKILL_FILE:
        return {"uri": uri, "name": skill.name, "description": skill.description, "mimeType": mime_type(packed.path)}
    return {"uri": uri, "name": f"{skill.name}/{packed.path}", "mimeType": mime_type(packed.path)}


def _folders(files: Mapping[str, tuple[SkillReference, PackedFile]]) -> dict[str, list[str]]:
    """Every folder of every skill served, by its URI (`skill://<name>`, `skill://<name>/templates`): the URIs of
    its direct children, files and folders alike, sorted."""
    folders: dict[str, set[str]] = {}
    for uri in files:
        child = uri
        parent = uri.rpartition("/")[0]
        while parent != f"{SCHEME}:/":
            folders.setdefault(parent, set()).add(child)
            child, parent = parent, parent.rpartition("/")[0]
    return {folder: sorted(children) for folder, children in folders.items()}


def _result_type(ctx: ServerRequestContext[Any, Any]) -> dict[str, Any]:
    """`resultType` where the negotiated revision defines it (2026-07-28 and later), on a result that is no
    `CacheableResult` (a directory read's)."""
    return {"resultType": "complete"} if is_version_at_least(ctx.protocol_version, CACHEABLE_SINCE) else {}


def _cursor(served: str, index: int) -> str:
    """The opaque cursor of page `index` of the listing of the skills whose digest is `served`."""
    return base64.urlsafe_b64encode(f"skills/list {served[:32]} {index}".encode()).decode().rstrip("=")


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


__all__ = ["PAGE_SIZE", "SkillsExtension", "skills_server"]
