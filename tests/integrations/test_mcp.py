"""`flue-skills mcp` serving the skills of a real installed wheel, driven by the MCP SDK's own client over
stdio and over streamable HTTP on 127.0.0.1: the Skills extension, every file as a resource, both tools,
and the bad inputs."""

from __future__ import annotations

import pytest
from support.optional import need

need("mcp", "mcp")

import hashlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from intsupport import PACKAGE, Installed
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcpclient import get_skill, http, list_skills, read_bytes, stdio, tool_text, verified_skills

from flue_runtime.integrations.skillset import Skillset
from flue_runtime.mcp import EXTENSION_ID
from flue_runtime.mount.reference import SkillReference

pytestmark = pytest.mark.slow  # the fixture project built and installed (`installed`), servers as child processes

INVALID_PARAMS = -32602

#: refunds' frontmatter as a YAML loader types it, in the order written: 1.0 a number, 7 an integer, false a
#: boolean, a flow list a list, and a date the text written (JSON has no dates).
REFUNDS_FRONTMATTER = {
    "name": "refunds",
    "description": "Handle refund requests: eligibility, amounts, the customer email. "
    "Use when a customer asks for money back.",
    "license": "MIT",
    "compatibility": "Needs no network.",
    "metadata": {"team": "payments", "version": 1.0, "build": 7},
    "allowed-tools": "Read",
    "x-owner": "payments-oncall",
    "user-invocable": False,
    "tags": ["payments", "refunds"],
    "reviewed": "2024-05-01",
}

#: URIs that must never be served: not a skill, not in the manifest, traversals plain and encoded,
#: a file of the package outside the skill, and a listed file under a spelling that is not its URI.
REFUSED = [
    "skill://nope/SKILL.md",
    "skill://refunds/secret.md",
    "skill://refunds/../triage/SKILL.md",
    "skill://refunds/%2E%2E/triage/SKILL.md",
    "skill://refunds/%2e%2e%2f%2e%2e%2f__init__.py",
    "skill://refunds/..%2F..%2F..%2F__init__.py",
    "skill://refunds/../../../__init__.py",
    "skill://refunds//etc/passwd",
    "skill://refunds/./policy.md",
    "skill://refunds/templates/email (v2).md",
    "skill://../skills_demo/__init__.py",
    "file:///etc/passwd",
]


@asynccontextmanager
async def connect(transport: str, installed: Installed) -> AsyncIterator[Client]:
    if transport == "stdio":
        async with stdio(PACKAGE, env=installed.env()) as client:
            yield client
    else:
        async with http(PACKAGE, env=installed.env()) as client:
            yield client


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_serves_the_installed_skills(transport: str, installed: Installed, demo: dict[str, SkillReference]) -> None:
    refunds, triage = demo["refunds"], demo["triage"]
    skillset = Skillset([refunds, triage])

    async def session() -> None:
        async with connect(transport, installed) as client:
            capabilities = client.server_capabilities
            assert capabilities.extensions is not None and EXTENSION_ID in capabilities.extensions
            assert capabilities.resources is not None
            assert client.instructions == skillset.catalog

            listing = await list_skills(client)
            assert client.protocol_version == "2026-07-28"
            assert listing["resultType"] == "complete" and listing["cacheScope"] == "public"
            assert [s["uri"] for s in listing["skills"]] == ["skill://refunds/SKILL.md", "skill://triage/SKILL.md"]
            entry = listing["skills"][0]
            assert entry["frontmatter"] == REFUNDS_FRONTMATTER
            assert list(entry["frontmatter"]) == list(REFUNDS_FRONTMATTER)
            assert [type(v) for v in entry["frontmatter"].values()] == [type(v) for v in REFUNDS_FRONTMATTER.values()]
            # As a host loads them: every file read and checked against its entry, SKILL.md's frontmatter too.
            loaded = await verified_skills(client)
            assert {uri: sorted(files) for uri, files in loaded.items()} == {
                listed["uri"]: sorted(r["uri"] for r in listed["resources"]) for listed in listing["skills"]
            }
            assert listing["skills"][1]["frontmatter"] == {"name": "triage", "description": triage.description}
            assert entry["resources"] == [
                {
                    "uri": "skill://refunds/" + f.path.replace(" ", "%20").replace("(", "%28").replace(")", "%29"),
                    "digest": "sha256:" + f.sha256,
                    "size": f.size,
                }
                for f in refunds.files
            ]
            for listed in listing["skills"]:
                got = await get_skill(client, listed["uri"])
                assert got["resultType"] == "complete" and got["skill"] == listed

            # Every file of every skill, read as a resource, is the bundle's bytes and matches its digest.
            by_uri = {r.uri: r for r in (await client.list_resources()).resources}
            for listed, skill in zip(listing["skills"], (refunds, triage)):
                for resource, packed in zip(listed["resources"], skill.files):
                    data = await read_bytes(client, resource["uri"])
                    assert data == skill.read_bytes(packed.path)
                    assert resource["digest"] == "sha256:" + hashlib.sha256(data).hexdigest()
                    assert len(data) == resource["size"]
                    assert resource["uri"] in by_uri
            assert len(by_uri) == len(refunds.files) + len(triage.files)
            skill_md = by_uri["skill://refunds/SKILL.md"]
            assert (skill_md.name, skill_md.description, skill_md.mime_type) == (
                "refunds",
                refunds.description,
                "text/markdown",
            )
            assert by_uri["skill://refunds/assets/stamp.png"].mime_type == "image/png"

            # The tools: the harness's definitions, and its result texts for the same calls.
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert sorted(tools) == ["activate_skill", "read_skill_resource"]
            for tool in skillset.tools:
                assert (tools[tool.name].description, tools[tool.name].input_schema) == (
                    tool.description,
                    tool.parameters,
                )
            calls = [
                ("activate_skill", {"name": "refunds"}),
                ("activate_skill", {"name": "triage"}),
                ("activate_skill", {"name": "billing"}),
                ("read_skill_resource", {"path": "/.flue/skills/refunds/policy.md"}),
                ("read_skill_resource", {"path": "/.flue/skills/refunds/data/rates.csv", "offset": 2, "limit": 1}),
                ("read_skill_resource", {"path": "/.flue/skills/refunds/assets/stamp.png"}),
            ]
            for name, arguments in calls:
                got_text = tool_text(await client.call_tool(name, arguments))
                assert got_text == (skillset.call(name, arguments).text, False)
            activated, _ = tool_text(await client.call_tool("activate_skill", {"name": "refunds"}))
            assert "/.flue/skills/refunds/templates/email (v2).md" in activated
            page, _ = tool_text(
                await client.call_tool("read_skill_resource", {"path": "/.flue/skills/refunds/policy.md"})
            )
            assert page.splitlines()[0] == "     1\tRefund policy"

            # Bad input: an MCP error naming what was asked, never another file's bytes.
            for uri in REFUSED:
                with pytest.raises(MCPError) as refused:
                    await client.read_resource(uri)
                assert refused.value.code == INVALID_PARAMS and uri in refused.value.message
            for uri in ["skill://billing/SKILL.md", "skill://refunds/policy.md", "skill://refunds", "refunds"]:
                with pytest.raises(MCPError) as unknown:
                    await get_skill(client, uri)
                assert unknown.value.code == INVALID_PARAMS and repr(uri) in unknown.value.message
            with pytest.raises(MCPError) as cursor:
                await list_skills(client, cursor="page-2")
            assert cursor.value.code == INVALID_PARAMS and "'page-2'" in cursor.value.message

            for name, arguments in [
                ("read_skill_resource", {"path": "/.flue/skills/refunds/../triage/SKILL.md"}),
                ("read_skill_resource", {"path": "/.flue/skills/refunds/%2e%2e/triage/SKILL.md"}),
                ("read_skill_resource", {"path": "/.flue/skills/refunds/secret.md"}),
                ("read_skill_resource", {"path": "/etc/passwd"}),
                ("read_skill_resource", {"path": "/.flue/skills/refunds/policy.md", "offset": "1"}),
                ("activate_skill", {}),
            ]:
                text, failed = tool_text(await client.call_tool(name, arguments))
                assert failed and text == skillset.call(name, arguments).text and text.startswith("Error: ")

    anyio.run(session)


def test_an_older_revision_gets_entries_without_the_fields_it_does_not_define(
    installed: Installed, demo: dict[str, SkillReference]
) -> None:
    """A client that negotiated 2025-11-25 (the initialize handshake) over HTTP: the same typed entries, verified
    as a host verifies them, and no `resultType`, `ttlMs` or `cacheScope`, which that revision does not define."""

    async def session() -> None:
        async with http(PACKAGE, env=installed.env(), mode="legacy") as client:
            assert client.protocol_version == "2025-11-25"
            listing = await list_skills(client)
            assert sorted(listing) == ["skills"]
            assert listing["skills"][0]["frontmatter"] == REFUNDS_FRONTMATTER
            got = await get_skill(client, "skill://triage/SKILL.md")
            assert sorted(got) == ["skill"]
            loaded = await verified_skills(client)
            assert loaded["skill://refunds/SKILL.md"]["skill://refunds/SKILL.md"] == demo["refunds"].read_bytes(
                "SKILL.md"
            )

    anyio.run(session)
