"""Issue 24.3: a host that lists skills again or reads a file again makes the server do nothing twice.

In process, through the MCP SDK's own client (both the initialize handshake and revision 2026-07-28):
the skill's source is a real `DiskSource` that counts its reads (a subclass, reading the real files),
so what is counted is what the server asked of the skill. Each entry is built once, each file read
once however often it is listed or read; memory does not grow with the number of reads; at 2026-07-28
the answers carry the extension's cache hints, which the SDK's client honours without asking again;
bytes that are no longer the listed ones are refused, never served.
"""

from __future__ import annotations

import pytest
from support.optional import need

need("mcp", "mcp")

import gc
import tracemalloc
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, types
from mcp.server.mcpserver.resources import TextResource
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import INTERNAL_ERROR
from mcpclient import get_skill, list_skills, read_bytes, verified_skills
from pydantic import TypeAdapter
from support.paths import ROOT
from support.projects import write_skill

from flue_runtime.format.records import PackedFile
from flue_runtime.format.skill_folder import vet_skill
from flue_runtime.mcp import skills_server
from flue_runtime.mcp.contents import Contents
from flue_runtime.mcp.host import verify_file
from flue_runtime.mount.disk import DiskSource
from flue_runtime.mount.reference import SkillReference

GUIDE = "references/guide.md"
REPEATS = 5


class CountingSource(DiskSource):
    """The folder's own source, reading the real files, counting every read by path."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.reads: Counter[str] = Counter()

    def read(self, path: str) -> bytes:
        self.reads[path] += 1
        return super().read(path)


def counted(folder: Path) -> tuple[SkillReference, CountingSource]:
    vetted = vet_skill(folder)
    assert vetted.ok and vetted.metadata is not None
    source = CountingSource(vetted)
    return SkillReference(vetted.metadata, source, known_id=vetted.id), source


@pytest.fixture
def skill_folder(tmp_path: Path) -> Path:
    return write_skill(tmp_path / "guide", files={GUIDE: "# Guide\n\n" + "Step by step.\n" * 1500})


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_each_file_is_read_once_however_often_it_is_listed_or_read(skill_folder: Path, mode: str) -> None:
    skill, source = counted(skill_folder)
    server = skills_server([skill])
    skill_md, guide = "skill://guide/SKILL.md", f"skill://guide/{GUIDE}"

    async def session() -> None:
        # `cache=None`: the SDK's client keeps nothing, so every request reaches the server.
        async with Client(server, mode=mode, cache=None) as client:
            for _ in range(REPEATS):
                listed = await list_skills(client)
                assert (await get_skill(client, skill_md))["skill"] == listed["skills"][0]
                await verified_skills(client)  # as a host loads it: every file read and verified
                assert await read_bytes(client, guide) == (skill_folder / GUIDE).read_bytes()
            assert source.reads == {"SKILL.md": 1, GUIDE: 1}

            # Memory stays flat in the number of reads: what the reads allocate is released.
            async def reads(count: int) -> None:
                for _ in range(count):
                    await read_bytes(client, guide)
                    await read_bytes(client, skill_md)

            await reads(20)  # warm: whatever the SDK allocates once
            gc.collect()
            tracemalloc.start()
            try:
                await reads(10)
                gc.collect()
                after_some = tracemalloc.get_traced_memory()[0]
                await reads(200)
                gc.collect()
                after_many = tracemalloc.get_traced_memory()[0]
            finally:
                tracemalloc.stop()
            assert after_many - after_some < 64 * 1024, (after_some, after_many)
            assert source.reads == {"SKILL.md": 1, GUIDE: 1}

    anyio.run(session)


def with_request_counter(server: Any) -> Counter[str]:
    """A count of the requests that reach `server`, by method and URI (server middleware, the SDK's own hook)."""
    seen: Counter[str] = Counter()

    async def count(ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        if ctx.request_id is not None:
            params = ctx.params if isinstance(ctx.params, dict) else {}
            seen[f"{ctx.method} {params.get('uri', '')}".strip()] += 1
        return await call_next(ctx)

    server.middleware.append(count)
    return seen


def test_at_2026_07_28_a_host_keeps_what_it_read_and_does_not_ask_again(skill_folder: Path) -> None:
    """The extension's results are `CacheableResult`s: `skills/list` and `skills/get` carry `ttlMs` and
    `cacheScope`, and so does `resources/read` of a skill file; the SDK's client (its default response cache)
    honours them, so reading a file again, or listing again, sends nothing."""
    skill, source = counted(skill_folder)
    server = skills_server([skill])
    requests = with_request_counter(server)
    guide = f"skill://guide/{GUIDE}"

    async def session() -> None:
        async with Client(server, mode="2026-07-28") as client:
            listed = await list_skills(client)
            for _ in range(REPEATS):
                result = await client.read_resource(guide)
                assert (result.ttl_ms, result.cache_scope) == (300_000, "public")
                verify_file(listed["skills"][0], guide, await read_bytes(client, guide))
        assert requests[f"resources/read {guide}"] == 1
        assert source.reads[GUIDE] == 1

    anyio.run(session)


def test_cache_hints_are_given_only_where_the_revision_defines_them_and_only_for_skill_files(
    skill_folder: Path,
) -> None:
    """A 2025-11-25 client gets no `ttlMs`/`cacheScope` (its revision has none); a resource the application
    added to the same server keeps the SDK's own default (no caching): it may change, or differ by caller."""
    skill, _ = counted(skill_folder)
    server = skills_server([skill])
    server.add_resource(TextResource(uri="app://status", name="status", text="live"))

    async def session() -> None:
        async with Client(server, mode="2026-07-28", cache=None) as client:
            result = await client.read_resource(f"skill://guide/{GUIDE}")
            assert (result.ttl_ms, result.cache_scope) == (300_000, "public")
            other = await client.read_resource("app://status")
            assert (other.ttl_ms, other.cache_scope) == (0, "private")
        async with Client(server, mode="legacy", cache=None) as client:
            read = types.ReadResourceRequest(params=types.ReadResourceRequestParams(uri=f"skill://guide/{GUIDE}"))
            wire = await client.session.send_request(read, TypeAdapter(dict[str, Any]))  # as sent, no model
            assert sorted(wire) == ["contents"]

    anyio.run(session)


def test_a_file_changed_after_the_listing_is_refused_not_served(skill_folder: Path) -> None:
    """The listing is the truth while the server runs: bytes that are not the listed ones are an error (the
    host would have to refuse them anyway), and the server says to restart it."""
    skill, _ = counted(skill_folder)
    server = skills_server([skill])
    guide = f"skill://guide/{GUIDE}"

    async def session() -> None:
        async with Client(server, mode="2026-07-28", cache=None) as client:
            await list_skills(client)
            original = (skill_folder / GUIDE).read_bytes()
            (skill_folder / GUIDE).write_bytes(original.replace(b"Step", b"Stop"))  # same size, other bytes
            with pytest.raises(MCPError) as refused:
                await client.read_resource(guide)
            assert refused.value.code == INTERNAL_ERROR
            assert guide in refused.value.message and "changed since this server listed it" in refused.value.message
            (skill_folder / GUIDE).write_bytes(original)
            assert await read_bytes(client, guide) == original

    anyio.run(session)


def test_what_is_kept_is_bounded_by_the_budget_least_recently_read_first(tmp_path: Path) -> None:
    files = {f"f{n}.md": f"{n}" * 1000 for n in range(6)}  # six files of 1,000 bytes
    skill, source = counted(write_skill(tmp_path / "many", files={**files, "big.md": "x" * 5000}))
    contents = Contents(budget=3000)
    packed = {f.path: f for f in skill.files}

    def read(path: str) -> bytes:
        return contents.read(skill, packed[path], f"skill://many/{path}")

    for path in files:
        assert read(path) == files[path].encode()
        assert contents.used <= contents.budget
    assert contents.used == 3000
    read("f3.md")  # kept: no read, and now the most recently read
    read("f0.md")  # dropped long ago: read again, dropping f4 (the least recently read)
    assert source.reads["f3.md"] == 1 and source.reads["f0.md"] == 2
    assert contents.kept(skill, packed["f4.md"]) is None and contents.kept(skill, packed["f3.md"]) is not None
    for _ in range(3):
        read("big.md")  # larger than the budget: never kept, read each time
    assert source.reads["big.md"] == 3 and contents.used <= contents.budget
    assert isinstance(packed["big.md"], PackedFile)


def test_one_byte_budget_cache_for_the_server_and_the_host() -> None:
    """What a server keeps (`Contents`) and what a host keeps of a remote server's files (`Connection.verified`) are
    one thing, `mcp.contents.Kept` (issue 42 item 5): a least-recently-read cache within a byte budget, written by
    no one else."""
    import inspect

    from flue_runtime.mcp import contents, remote_connection

    assert "Kept(" in inspect.getsource(remote_connection.Connection)
    keep = contents.Kept(budget=10)
    keep.keep(("a", "1"), b"12345")
    keep.keep(("b", "1"), b"123")
    assert keep.get(("a", "1")) == b"12345"  # read: now the most recent
    keep.keep(("c", "1"), b"1234")  # over the budget: the least recently read goes
    assert keep.get(("b", "1")) is None and keep.used == 9
    keep.keep(("d", "1"), b"x" * 11)  # larger than the budget: never kept
    assert keep.get(("d", "1")) is None and keep.used == 9
    keep.clear()
    assert keep.used == 0 and keep.get(("a", "1")) is None
    hand_written = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "flue_runtime" / "mcp").rglob("*.py"))
        if "popitem(last=False)" in path.read_text(encoding="utf-8")
    ]
    assert not hand_written
