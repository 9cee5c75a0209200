"""`flue_runtime.mcp.server` at scale (issue 33.8, 33.9): `skills/list` pages, entries built at start-up, and
skills over the extension's limits left out unless the operator allows them.

Through the MCP SDK's own client, in process (both the initialize handshake and revision 2026-07-28), and
the CLI over stdio as a child process.
"""

from __future__ import annotations

import pytest
from support.optional import need

need("mcp", "mcp")

import base64
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any, Literal

import anyio
from mcp import Client, types
from mcp.shared.exceptions import MCPError
from mcpclient import ListSkills, every_page, list_skills, stdio, verified_skills
from pydantic import TypeAdapter
from support.projects import write_skill
from test_mcp_caching import counted

from flue_runtime import define_skill
from flue_runtime.errors import SkillWarning
from flue_runtime.mcp import skills_server
from flue_runtime.mcp.entries import MAX_FILES, MAX_SIZE
from flue_runtime.mcp.server import PAGE_SIZE
from flue_runtime.mount.reference import SkillReference

INVALID_PARAMS = -32602
MANY = 250


def many(count: int = MANY) -> list[SkillReference]:
    return [
        define_skill(
            name=f"skill-{n:04d}", description=f"Do task {n}. Use when task {n} comes up.", instructions="Go.\n"
        )
        for n in range(count)
    ]


def files_skill(name: str, count: int) -> SkillReference:
    """A skill of `count` files, SKILL.md included."""
    return define_skill(
        name=name,
        description="Many files. Use when many files are needed.",
        instructions="Read them.\n",
        files={f"references/f{n:04d}.md": f"{n}\n" for n in range(count - 1)},
    )


def sized_skill(name: str, total: int) -> SkillReference:
    """A skill whose files hold `total` bytes in all."""
    head = define_skill(name=name, description="One big file. Use when it is needed.", instructions="Read it.\n")
    data = b"\x00" * (total - head.files[0].size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkillWarning)  # FLU305: a large file packed, as meant
        return define_skill(
            name=name,
            description="One big file. Use when it is needed.",
            instructions="Read it.\n",
            files={"data/big.bin": data},
        )


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_skills_list_pages_every_entry_once_in_order_and_no_page_exceeds_the_size(mode: str) -> None:
    skills = many()
    server = skills_server(skills)

    async def session() -> None:
        async with Client(server, mode=mode, cache=None) as client:
            pages = await every_page(client)
            assert [len(page["skills"]) for page in pages] == [PAGE_SIZE, PAGE_SIZE, MANY - 2 * PAGE_SIZE]
            uris = [entry["uri"] for page in pages for entry in page["skills"]]
            assert uris == [f"skill://{skill.name}/SKILL.md" for skill in skills]
            assert "nextCursor" not in pages[-1]
            cursors = [page["nextCursor"] for page in pages[:-1]]
            assert len(set(cursors)) == len(cursors)
            assert not any(str(PAGE_SIZE) in cursor or "skill-" in cursor for cursor in cursors)  # opaque
            # Entries whole: each as `skills/get` gives it, and every file of it verified the way a host does.
            assert len(await verified_skills(client)) == MANY
            # The same cursor gives the same page again.
            assert (await list_skills(client, cursors[0]))["skills"] == pages[1]["skills"]

    anyio.run(session)


def test_a_few_skills_are_one_page_without_a_cursor() -> None:
    async def session() -> None:
        async with Client(skills_server(many(3)), cache=None) as client:
            assert [len(page["skills"]) for page in await every_page(client)] == [3]
        async with Client(skills_server([]), cache=None) as client:
            pages = await every_page(client)
            assert [page["skills"] for page in pages] == [[]] and "nextCursor" not in pages[0]

    anyio.run(session)


def test_a_cursor_this_server_did_not_give_is_invalid_params() -> None:
    """The base protocol's pagination: "Invalid cursors SHOULD result in an error with code -32602"; a cursor of
    identical skills served elsewhere (a replica) is the same page, one of other skills is refused."""
    skills = many()
    server, replica, other = skills_server(skills), skills_server(many()), skills_server(many(MANY + 1))

    async def cursors_of(target: Any) -> list[str]:
        async with Client(target, cache=None) as client:
            return [page["nextCursor"] for page in (await every_page(client))[:-1]]

    async def session() -> None:
        mine, theirs = await cursors_of(replica), await cursors_of(other)
        forged = base64.urlsafe_b64encode(base64.urlsafe_b64decode(mine[0] + "==").replace(b" 1", b" 7")).decode()
        async with Client(server, cache=None) as client:
            assert (await list_skills(client, mine[1]))["skills"][0]["uri"] == "skill://skill-0200/SKILL.md"
            for bad in ["", "page-2", "0", theirs[0], forged, mine[0] + "x"]:
                with pytest.raises(MCPError) as refused:
                    await client.session.send_request(
                        ListSkills(params=types.PaginatedRequestParams(cursor=bad)), TypeAdapter(dict[str, Any])
                    )
                assert refused.value.code == INVALID_PARAMS, bad
                assert repr(bad) in refused.value.message

    anyio.run(session)


def test_entries_are_built_at_start_up_not_on_the_first_request(tmp_path: Path) -> None:
    skill, source = counted(write_skill(tmp_path / "guide", files={"references/guide.md": "# Guide\n"}))
    server = skills_server([skill])
    assert source.reads == {"SKILL.md": 1}  # before any client connected

    async def session() -> None:
        async with Client(server, cache=None) as client:
            await list_skills(client)
            assert source.reads == {"SKILL.md": 1}
            await verified_skills(client)
            assert source.reads == {"SKILL.md": 1, "references/guide.md": 1}

    anyio.run(session)


def listed(server: Any) -> list[str]:
    async def session() -> list[str]:
        async with Client(server, cache=None) as client:
            assert len(await verified_skills(client)) >= 1
            return [entry["uri"] for page in await every_page(client) for entry in page["skills"]]

    return anyio.run(session)


def test_a_skill_over_512_files_or_16_mib_is_left_out_with_a_warning_unless_allowed() -> None:
    """SEP-2640: "Servers SHOULD NOT serve a skill exceeding 512 resource entries" (SKILL.md included), nor one
    "whose total file size exceeds 16 MiB"; at the limits a skill is served."""
    at_files, over_files = files_skill("at-files", MAX_FILES), files_skill("over-files", MAX_FILES + 1)
    at_size, over_size = sized_skill("at-size", MAX_SIZE), sized_skill("over-size", MAX_SIZE + 1)
    assert (len(over_files.files), sum(f.size for f in over_size.files)) == (MAX_FILES + 1, MAX_SIZE + 1)
    skills = [at_files, over_files, at_size, over_size]

    with pytest.warns(SkillWarning) as said:
        server = skills_server(skills)
    notes = [str(w.message) for w in said]
    assert len(notes) == 2
    assert "'over-files'" in notes[0] and "513 files, more than the 512" in notes[0]
    assert "'over-size'" in notes[1] and "16,777,217 bytes in all" in notes[1]
    assert all("allow_oversize=True" in n and "--allow-oversize-skills" in n for n in notes)
    assert listed(server) == ["skill://at-files/SKILL.md", "skill://at-size/SKILL.md"]
    assert "over-files" not in (server.instructions or "") and "over-size" not in (server.instructions or "")

    with warnings.catch_warnings():
        warnings.simplefilter("error", SkillWarning)
        allowed = skills_server(skills, allow_oversize=True)
    assert listed(allowed) == [f"skill://{skill.name}/SKILL.md" for skill in skills]


@pytest.mark.slow
def test_the_cli_leaves_an_oversize_skill_out_with_a_warning_unless_allow_oversize_skills(tmp_path: Path) -> None:
    write_skill(tmp_path / "skills" / "small")
    write_skill(tmp_path / "skills" / "huge", files={f"references/f{n:04d}.md": f"{n}\n" for n in range(MAX_FILES)})
    folder = str(tmp_path / "skills")
    env = dict(os.environ)
    done = subprocess.run(
        [sys.executable, "-m", "flue_build", "mcp", folder],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "flue-skills mcp: warning: skill 'huge'" in done.stderr and "513 files" in done.stderr
    assert "--allow-oversize-skills" in done.stderr

    async def served(*flags: str) -> list[str]:
        async with stdio(folder, *flags, env=env) as client:
            return sorted(entry["uri"] for page in await every_page(client) for entry in page["skills"])

    assert anyio.run(served) == ["skill://small/SKILL.md"]
    assert anyio.run(served, "--allow-oversize-skills") == ["skill://huge/SKILL.md", "skill://small/SKILL.md"]


# --- the server's own gaps (issue 40 item 10) -----------------------------------------------------


class ReadDirectoryParams(types.PaginatedRequestParams):
    uri: str


class ReadDirectory(types.Request[ReadDirectoryParams, Literal["resources/directory/read"]]):
    method: Literal["resources/directory/read"] = "resources/directory/read"


def test_the_server_gives_flue_skills_version_as_its_own() -> None:
    """`serverInfo.version` is flue-skills' version (the SDK's default is empty: a host then records no version)."""
    import flue_runtime

    async def session() -> None:
        async with Client(skills_server(many(1)), cache=None) as client:
            assert client.server_info is not None
            assert (client.server_info.name, client.server_info.version) == ("flue-skills", flue_runtime.__version__)

    anyio.run(session)


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_directory_read_lists_the_direct_children_of_every_folder_of_a_skill(mode: str) -> None:
    """The extension's optional `resources/directory/read`, declared (`directoryRead: true`): every folder of a
    skill served as files is a directory resource (the root `skill://<name>`, each subfolder, no trailing slash)
    whose result lists its direct children, files with their resource metadata and folders as `inode/directory`;
    a file, an unknown URI or a cursor this server never gave is -32602 (Invalid params)."""
    refunds = define_skill(
        name="refunds",
        description="Refunds. Use when a refund is asked for.",
        instructions="Pick a template from templates/.\n",
        files={"policy.md": "30 days.\n", "templates/a.md": "A\n", "templates/regional/eu.md": "EU\n"},
    )

    async def read(client: Client, uri: str, cursor: str | None = None) -> dict[str, Any]:
        request = ReadDirectory(params=ReadDirectoryParams(uri=uri, cursor=cursor))
        return await client.session.send_request(request, TypeAdapter(dict[str, Any]))

    def children(result: dict[str, Any]) -> list[tuple[str, str, str]]:
        return [(r["uri"], r["name"], r["mimeType"]) for r in result["resources"]]

    async def session() -> None:
        server = skills_server([refunds, *many(1)])
        async with Client(server, cache=None) as client:  # (the SDK's client shows extensions when it discovers)
            assert client.server_capabilities.extensions == {"io.modelcontextprotocol/skills": {"directoryRead": True}}
            assert client.server_capabilities.resources is not None
        async with Client(server, mode=mode, cache=None) as client:
            root = await read(client, "skill://refunds")
            assert children(root) == [
                ("skill://refunds/SKILL.md", "refunds", "text/markdown"),
                ("skill://refunds/policy.md", "refunds/policy.md", "text/markdown"),
                ("skill://refunds/templates", "templates", "inode/directory"),
            ]
            assert root["resources"][0]["description"] == refunds.description
            assert "nextCursor" not in root
            assert ("resultType" in root) == (mode != "legacy") and root.get("resultType", "complete") == "complete"
            assert children(await read(client, "skill://refunds/templates")) == [
                ("skill://refunds/templates/a.md", "refunds/templates/a.md", "text/markdown"),
                ("skill://refunds/templates/regional", "regional", "inode/directory"),
            ]
            assert children(await read(client, "skill://refunds/templates/regional")) == [
                ("skill://refunds/templates/regional/eu.md", "refunds/templates/regional/eu.md", "text/markdown")
            ]
            for uri, cursor, said in [
                ("skill://refunds/SKILL.md", None, "is not a directory resource"),
                ("skill://refunds/templates/a.md", None, "is not a directory resource"),
                ("skill://refunds/", None, "is not a directory resource"),
                ("skill://missing", None, "is not a directory resource"),
                ("skill://refunds", "page-2", "Invalid cursor"),
            ]:
                with pytest.raises(MCPError) as refused:
                    await read(client, uri, cursor)
                assert refused.value.code == INVALID_PARAMS and said in refused.value.message, (uri, refused.value)

    anyio.run(session)
