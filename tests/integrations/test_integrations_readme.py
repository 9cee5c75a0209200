"""The site's integration snippets run as written: the MCP server over stdio with the SDK's client, each
adapter against a model API on 127.0.0.1, and the command lines and host configuration parse as given."""

from __future__ import annotations

import pytest
from support.optional import need

need("mcp", "mcp")

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcpclient import list_skills, tool_text, verified_skills
from support.fakeapi import FakeAPI
from support.site import section

from flue_build.cli import _parser
from flue_runtime import define_skill
from flue_runtime.integrations.skillset import Skillset
from flue_runtime.mcp.entries import entry
from flue_runtime.mount.disk import load_skill_dir

pytestmark = pytest.mark.slow  # the site's snippets in child processes

#: Where each integration is documented: a heading on a page of the site.
PARTS = {
    "MCP server": ("guides/mcp.md", "## MCP server"),
    "pydantic-ai": ("guides/pydantic-ai.md", "# pydantic-ai"),
    "OpenAI Agents SDK": ("guides/openai-agents.md", "# OpenAI Agents SDK"),
    "LangChain": ("guides/langchain.md", "# LangChain"),
    "Skills on disk": ("guides/export.md", "# Skills on disk: Claude Code, the Claude Agent SDK, Codex, deepagents"),
}
GREETER = define_skill(
    name="greeter",
    description="Greet people warmly. Use when someone says hello.",
    instructions="Greet the person by name, in one short sentence.\n",
)


def part(heading: str) -> str:
    return section(*PARTS[heading])


def blocks(heading: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", part(heading), re.DOTALL)


def test_the_mcp_snippet_is_a_stdio_server(tmp_path: Path) -> None:
    [source] = blocks("MCP server", "python")
    script = tmp_path / "server.py"
    script.write_text(source, encoding="utf-8")

    async def session() -> None:
        async with Client(StdioServerParameters(command=sys.executable, args=[str(script)])) as client:
            assert sorted(t.name for t in (await client.list_tools()).tools) == ["activate_skill", "shout"]
            [entry] = (await list_skills(client))["skills"]
            assert entry["frontmatter"] == {"name": "greeter", "description": GREETER.description}
            assert list(await verified_skills(client)) == ["skill://greeter/SKILL.md"]
            activated = tool_text(await client.call_tool("activate_skill", {"name": "greeter"}))
            assert activated == (Skillset([GREETER]).call("activate_skill", {"name": "greeter"}).text, False)
            assert tool_text(await client.call_tool("shout", {"text": "hi"})) == ("HI", False)

    anyio.run(session)


def test_the_command_lines_and_the_host_configuration_are_what_the_cli_takes() -> None:
    lines = [line.split("#")[0].split() for block in blocks("MCP server", "bash") for line in block.splitlines()]
    lines += [line.split("#")[0].split() for block in blocks("Skills on disk", "bash") for line in block.splitlines()]
    commands = [
        words[1:-1] if words[-1] == "&" else words[1:] for words in lines if words and words[0] == "flue-skills"
    ]
    parsed = [_parser().parse_args(words) for words in commands]
    assert [(a.command, a.target) for a in parsed] == [
        ("mcp", "acme_support"),
        ("mcp", "acme_support.agents:support"),
        ("mcp", "./skills"),
        ("mcp", "./skills"),  # (in the background, for the MCP Inspector)
        ("mcp", "acme_support"),
        ("export", "acme_support"),
    ]
    assert parsed[2].http == ("127.0.0.1", 8000) == parsed[3].http and parsed[0].http is None
    assert parsed[4].http == ("10.0.0.5", 8000) and parsed[4].allow_remote and not parsed[2].allow_remote
    [config] = [block for block in blocks("MCP server", "json") if "mcpServers" in block]
    [(name, server)] = json.loads(config)["mcpServers"].items()
    assert server["command"].endswith("/bin/flue-skills")
    hosted = _parser().parse_args(server["args"])
    assert (hosted.command, hosted.target, hosted.http) == ("mcp", "acme_support", None)


def _responses(*output: dict[str, Any]) -> dict[str, Any]:
    usage = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}
    usage |= {"input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}}
    return {"id": "resp", "object": "response", "created_at": 0, "model": "gpt-5-mini", "status": "completed",
            "output": list(output), "usage": usage}  # fmt: skip


def _chat(message: dict[str, Any]) -> dict[str, Any]:
    finish = "tool_calls" if message.get("tool_calls") else "stop"
    return {"id": "chat", "object": "chat.completion", "created": 0, "model": "gpt-5-mini",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}  # fmt: skip


ACTIVATE = {"name": "greeter"}
RESPONSES_API = [
    _responses({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "activate_skill",
                "arguments": json.dumps(ACTIVATE), "status": "completed"}),
    _responses({"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": "Hello Ada!", "annotations": []}]}),
]  # fmt: skip
CHAT_API = [
    _chat({"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "activate_skill", "arguments": json.dumps(ACTIVATE)}}
    ]}),
    _chat({"role": "assistant", "content": "Hello Ada!"}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("heading", "replies"),
    [("pydantic-ai", RESPONSES_API), ("OpenAI Agents SDK", RESPONSES_API), ("LangChain", CHAT_API)],
)
def test_an_adapter_snippet_runs_against_a_model_api(
    heading: str, replies: list[dict[str, Any]], fake_api: FakeAPI, tmp_path: Path
) -> None:
    [source] = blocks(heading, "python")
    [shown] = re.findall(r"e\.g\.\n\n```\n(.*?)```", part("LangChain"), re.DOTALL)
    script = tmp_path / "snippet.py"
    script.write_text(source, encoding="utf-8")
    for reply in replies:
        fake_api.reply(reply)
    env = dict(os.environ, OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=fake_api.url + "/v1")
    env["OPENAI_AGENTS_DISABLE_TRACING"] = "1"  # the Agents SDK would otherwise send traces to its platform

    run = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)

    assert run.returncode == 0, run.stderr
    assert run.stdout == shown
    first, second = fake_api.bodies
    skillset = Skillset([GREETER])
    assert any(skillset.catalog in text for text in strings(first))  # the catalog, in the instructions
    assert skillset.call("activate_skill", ACTIVATE).text in strings(second)  # the tool result, as the harness's


def strings(value: object) -> list[str]:
    """Every string in a JSON body."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in strings(item)]
    return []


def test_the_entry_example_is_what_the_server_lists(tmp_path: Path) -> None:
    """The MCP guide's example entry is the one the server makes of its SKILL.md (and the policy.md it names)."""
    [skill_md] = blocks("MCP server", "markdown")
    [example] = [block for block in blocks("MCP server", "json") if '"frontmatter"' in block]
    folder = tmp_path / "refunds"
    folder.mkdir()
    (folder / "SKILL.md").write_text(skill_md, encoding="utf-8")
    (folder / "policy.md").write_text("Refunds within 30 days.\n", encoding="utf-8")
    made = entry(load_skill_dir(folder))
    assert made == json.loads(example)
    assert list(made["frontmatter"]) == list(json.loads(example)["frontmatter"])
