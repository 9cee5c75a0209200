"""Tokens the skill tools cost per request, for each integration and next to the frameworks' own skills support.

Every surface sends one real request (over HTTP, to a model API on 127.0.0.1 that answers
"ok") with the same skills; the tool definitions and the skills' part of the instructions
are taken from the request body as the provider would receive them (Chat Completions
format everywhere, so the figures compare), and counted with the o200k_base tokenizer
(`bpe-openai`, which works offline).

Run it with an interpreter that has the frameworks installed (they are not flue-skills'
dependencies), with this checkout on the path:

    python3 -m venv /tmp/benchtools
    /tmp/benchtools/bin/pip install bpe-openai pyyaml mcp pydantic-ai-slim openai-agents \\
        langchain langchain-openai pydantic-ai-skills deepagents
    PYTHONPATH=. /tmp/benchtools/bin/python benchmarks/integration_tokens.py [--skills 20]

It prints a markdown table (the "Integrations" section of BENCHMARKS.md). A framework
that is not installed is reported as such, not skipped silently.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from flue_runtime.mount.disk import load_skill_dir
from flue_runtime.mount.reference import SkillReference

WORDS = "refund invoice ticket report deploy review schema audit budget survey contract release incident".split()


# --- a model API on 127.0.0.1 that answers every request with "ok" ---------------------------------


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.bodies.append(body)  # type: ignore[attr-defined]
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        reply = {
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "m"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
            "usage": usage,
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


class ModelAPI:
    def __init__(self) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.server.bodies = []  # type: ignore[attr-defined]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def last(self) -> dict[str, Any]:
        bodies: list[dict[str, Any]] = self.server.bodies  # type: ignore[attr-defined]
        return bodies[-1]


# --- the skills --------------------------------------------------------------------------------


def write_skills(root: Path, count: int) -> list[Path]:
    """`count` skills (seeded), each with a reference file, so read_skill_resource is offered too."""
    rng = random.Random(7)
    folders = []
    for i in range(count):
        topic, other = rng.sample(WORDS, 2)
        name = f"{topic}-{other}-{i}"
        folder = root / name
        (folder / "references").mkdir(parents=True)
        description = (
            f"Handle {topic} work that involves {other}s: checks, summaries and follow-ups. "
            f"Use when the user mentions a {topic} or asks about {other} status."
        )
        body = f"# {name}\n\n1. Read references/guide.md.\n2. Check the {topic}.\n3. Summarise for the user.\n"
        (folder / "SKILL.md").write_text(f'---\nname: {name}\ndescription: "{description}"\n---\n{body}')
        (folder / "references" / "guide.md").write_text(f"How to handle a {topic}.\n")
        folders.append(folder)
    return folders


# --- each surface: (tool definitions, the skills' instructions text) as sent ---------------------


@dataclass
class Sent:
    tools: list[dict[str, Any]]
    skills_text: str
    note: str = ""


def chat_tools(body: dict[str, Any], names: set[str] | None = None) -> list[dict[str, Any]]:
    tools = body.get("tools", [])
    return [t for t in tools if names is None or t["function"]["name"] in names]


def system_text(body: dict[str, Any]) -> str:
    """The system messages' text (a content given as blocks: their text parts)."""
    texts = []
    for message in body["messages"]:
        if message["role"] in ("system", "developer"):
            content = message["content"]
            texts += [content] if isinstance(content, str) else [b["text"] for b in content if b.get("type") == "text"]
    return "\n".join(texts)


def flue_harness(api: ModelAPI, skills: list[SkillReference], folder: Path) -> Sent:
    from flue_runtime import Harness, agent, use_model, use_skill
    from flue_runtime.models.openai import OpenAIModel

    model = OpenAIModel("gpt-5-mini", api_key="sk-bench", base_url=api.url)

    @agent
    def assistant() -> str:
        use_model(model)
        for skill in skills:
            use_skill(skill)
        return ""

    Harness(assistant).prompt_sync("hi")
    body = api.last()
    return Sent(chat_tools(body), system_text(body))


def flue_mcp(api: ModelAPI, skills: list[SkillReference], folder: Path) -> Sent:
    from mcp import Client

    from flue_runtime.mcp import skills_server

    async def listing() -> tuple[list[dict[str, Any]], str]:
        async with Client(skills_server(skills)) as client:
            tools = [
                {
                    "type": "function",
                    "function": {"name": t.name, "description": t.description, "parameters": t.input_schema},
                }
                for t in (await client.list_tools()).tools
            ]
            return tools, client.instructions or ""

    tools, instructions = asyncio.run(listing())
    return Sent(tools, instructions, "tools/list as a host passes it on; the catalog is the server's instructions")


def flue_pydantic_ai(api: ModelAPI, skills: list[SkillReference], folder: Path) -> Sent:
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    from flue_runtime.integrations.pydantic_ai import skills_toolset

    model = OpenAIChatModel("gpt-5-mini", provider=OpenAIProvider(base_url=api.url, api_key="sk-bench"))
    Agent(model, toolsets=[skills_toolset(skills)]).run_sync("hi")
    body = api.last()
    return Sent(chat_tools(body), system_text(body))


def flue_openai_agents(api: ModelAPI, skills: list[SkillReference], folder: Path) -> Sent:
    from agents import Agent, OpenAIChatCompletionsModel, RunConfig, Runner
    from openai import AsyncOpenAI

    from flue_runtime.integrations.openai_agents import catalog, skill_tools

    model = OpenAIChatCompletionsModel("gpt-5-mini", AsyncOpenAI(base_url=api.url, api_key="sk-bench"))
    agent = Agent(name="a", instructions=catalog(skills), tools=skill_tools(skills), model=model)
    Runner.run_sync(agent, "hi", run_config=RunConfig(tracing_disabled=True))
    body = api.last()
    return Sent(chat_tools(body), system_text(body))


def flue_langchain(api: ModelAPI, skills: list[SkillReference], folder: Path) -> Sent:
    from langchain.agents import create_agent
    from langchain_openai import ChatOpenAI

    from flue_runtime.integrations.langchain import catalog, skill_tools

    model = ChatOpenAI(model="gpt-5-mini", base_url=api.url, api_key="sk-bench")  # type: ignore[arg-type]
    create_agent(model, tools=skill_tools(skills), system_prompt=catalog(skills)).invoke(
        {"messages": [{"role": "user", "content": "hi"}]}
    )
    body = api.last()
    return Sent(chat_tools(body), system_text(body))


def pydantic_ai_skills(api: ModelAPI, skills: list[SkillReference], folder: Path) -> Sent:
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider
    from pydantic_ai_skills import SkillsCapability

    model = OpenAIChatModel("gpt-5-mini", provider=OpenAIProvider(base_url=api.url, api_key="sk-bench"))
    Agent(model, capabilities=[SkillsCapability(str(folder))]).run_sync("hi")
    body = api.last()
    return Sent(chat_tools(body), system_text(body), "SkillsCapability over the same folders (deferred capabilities)")


def deepagents_skills(api: ModelAPI, skills: list[SkillReference], folder: Path) -> Sent:
    from deepagents import create_deep_agent
    from deepagents.backends import FilesystemBackend
    from langchain_openai import ChatOpenAI

    model = ChatOpenAI(model="gpt-5-mini", base_url=api.url, api_key="sk-bench")  # type: ignore[arg-type]
    backend = FilesystemBackend(root_dir=str(folder.parent), virtual_mode=True)
    agent = create_deep_agent(model=model, skills=[f"/{folder.name}/"], backend=backend)
    agent.invoke({"messages": [{"role": "user", "content": "hi"}]})
    body = api.last()
    # Its skills are read with its file tools; count read_file (what reading a skill needs) and the
    # skills section of its system prompt, not the rest of its built-in tools.
    system = system_text(body)
    start = system.index("## Skills System")
    end = system.find("\n## ", start + 1)
    return Sent(
        chat_tools(body, {"read_file"}),
        system[start : end if end >= 0 else None],
        f"create_deep_agent(skills=...); read_file only, of its {len(chat_tools(body))} built-in tools",
    )


SURFACES: dict[str, Callable[[ModelAPI, list[SkillReference], Path], Sent]] = {
    "flue harness (OpenAIModel)": flue_harness,
    "flue MCP server (tools/list)": flue_mcp,
    "flue → pydantic-ai (skills_toolset)": flue_pydantic_ai,
    "flue → OpenAI Agents SDK (skill_tools)": flue_openai_agents,
    "flue → LangChain (skill_tools)": flue_langchain,
    "pydantic-ai-skills (its own)": pydantic_ai_skills,
    "deepagents (its own)": deepagents_skills,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills", type=int, default=20, help="how many skills (default 20)")
    args = parser.parse_args()
    try:
        import bpe_openai

        encoding = bpe_openai.get_encoding("o200k_base")
        tokenizer = f"bpe-openai {getattr(bpe_openai, '__version__', '?')}, o200k_base"

        def count(text: str) -> int:
            return len(encoding.encode(text))
    except ImportError:
        tokenizer = "characters / 4 (bpe-openai is not installed)"

        def count(text: str) -> int:
            return round(len(text) / 4)

    logging.disable(logging.INFO)  # the MCP SDK turns on INFO logging, httpx's request lines among it
    rows: dict[str, list[str]] = {}
    figures: dict[int, dict[str, tuple[int, int, int, str]]] = {}
    with tempfile.TemporaryDirectory() as temp:
        for size in (1, args.skills):
            folder = Path(temp) / f"skills-{size}"
            skills = [load_skill_dir(path) for path in write_skills(folder, size)]
            api = ModelAPI()
            figures[size] = {}
            for name, run in SURFACES.items():
                try:
                    sent = run(api, skills, folder)
                except ImportError as exc:
                    rows[name] = [f"not installed ({exc.name})", "", "", "", ""]
                    continue
                tools = count(json.dumps(sent.tools, ensure_ascii=False, separators=(",", ":")))
                figures[size][name] = (tools, len(sent.tools), count(sent.skills_text), sent.note)
    print(f"Tokenizer: {tokenizer}. Skills: seeded, each with one support file; descriptions of ~30 words.\n")
    print(
        "| surface | tool definitions, as sent | skills' instructions, 1 skill "
        f"| skills' instructions, {args.skills} skills | per added skill | note |"
    )
    print("|---|---|---|---|---|---|")
    for name in SURFACES:
        if name in rows:
            print(f"| {name} | {' | '.join(rows[name])} |")
            continue
        tools, n, one, _ = figures[1][name]
        _, _, many, note = figures[args.skills][name]
        per = (many - one) / max(args.skills - 1, 1)
        print(f"| {name} | {tools} tokens ({n} tools) | {one} | {many} | {per:.1f} | {note} |")


if __name__ == "__main__":
    main()
