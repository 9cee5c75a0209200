"""The same tool calls made through every surface, each driven by its own framework's test model.

Each `via_*` runs one model turn that makes all `calls` (as the model would: one tool call
each), then a final answer, and returns what the model was given: the catalog text, the
tool definitions, and each call's result text (with the framework's failure flag where it
has one).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import anyio
from agents import ModelResponse as AgentsResponse
from agents import Usage
from agents.models.interface import Model as AgentsModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.utils.function_calling import convert_to_openai_tool
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText
from pydantic import Field

from flue_runtime import Harness, agent, use_model, use_skill
from flue_runtime.models import ScriptedModel, ToolCall
from flue_runtime.mount.reference import SkillReference

Call = tuple[str, dict[str, Any]]


@dataclass
class Seen:
    """What a model received: the catalog, the tool definitions, each call's (text, failed) in call order."""

    catalog: str
    tools: list[dict[str, Any]]
    results: list[tuple[str, bool | None]]


def via_harness(skills: Sequence[SkillReference], calls: Sequence[Call]) -> Seen:
    model = ScriptedModel([[ToolCall(name, arguments) for name, arguments in calls], "done"])

    @agent
    def assistant() -> str:
        use_model(model)
        for skill in skills:
            use_skill(skill)
        return ""

    Harness(assistant).prompt_sync("go")
    last = model.requests[-1]
    results = [(m["content"], m["is_error"]) for m in last.messages if m["role"] == "tool"]
    return Seen(last.system.strip(), [dict(tool) for tool in last.tools], results)


def via_mcp(skills: Sequence[SkillReference], calls: Sequence[Call]) -> Seen:
    from mcp import Client
    from mcpclient import tool_text

    from flue_runtime.mcp import skills_server

    async def session() -> Seen:
        async with Client(skills_server(skills)) as client:
            tools = [
                {"name": t.name, "description": t.description, "parameters": t.input_schema}
                for t in (await client.list_tools()).tools
            ]
            results: list[tuple[str, bool | None]] = []
            for name, arguments in calls:
                results.append(tool_text(await client.call_tool(name, arguments)))
            return Seen(client.instructions or "", tools, results)

    return anyio.run(session)


def via_pydantic_ai(skills: Sequence[SkillReference], calls: Sequence[Call]) -> Seen:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from flue_runtime.integrations.pydantic_ai import skills_toolset

    received: list[tuple[list[ModelMessage], AgentInfo]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        received.append((messages, info))
        if len(received) == 1:
            return ModelResponse(parts=[ToolCallPart(name, arguments) for name, arguments in calls])
        return ModelResponse(parts=[TextPart("done")])

    Agent(FunctionModel(model), toolsets=[skills_toolset(skills)]).run_sync("go")
    messages, info = received[-1]
    returns = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
    tools = [
        {"name": d.name, "description": d.description, "parameters": d.parameters_json_schema}
        for d in info.function_tools
    ]
    return Seen(info.instructions or "", tools, [(str(p.content), p.outcome == "failed") for p in returns])


def via_openai_agents(skills: Sequence[SkillReference], calls: Sequence[Call]) -> Seen:
    from agents import Agent, RunConfig, Runner

    from flue_runtime.integrations.openai_agents import catalog, skill_tools

    model = ScriptedAgentsModel([[(name, json.dumps(arguments)) for name, arguments in calls], "done"])
    assistant = Agent(name="assistant", instructions=catalog(skills), tools=skill_tools(skills), model=model)
    Runner.run_sync(assistant, "go", run_config=RunConfig(tracing_disabled=True))
    system, items, tools = model.requests[-1]
    outputs = [item["output"] for item in items if item.get("type") == "function_call_output"]
    definitions = [{"name": t.name, "description": t.description, "parameters": t.params_json_schema} for t in tools]
    return Seen(system or "", definitions, [(text, None) for text in outputs])


def via_langchain(skills: Sequence[SkillReference], calls: Sequence[Call]) -> Seen:
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage, SystemMessage, ToolMessage

    from flue_runtime.integrations.langchain import catalog, skill_tools

    tool_calls = [{"name": name, "args": arguments, "id": f"call-{i}"} for i, (name, arguments) in enumerate(calls)]
    model = FakeToolCallingModel(messages=iter([AIMessage(content="", tool_calls=tool_calls), AIMessage("done")]))
    create_agent(model, tools=skill_tools(skills), system_prompt=catalog(skills)).invoke(
        {"messages": [{"role": "user", "content": "go"}]}
    )
    messages = model.requests[-1]
    [system] = [m for m in messages if isinstance(m, SystemMessage)]
    results = [(str(m.content), m.status == "error") for m in messages if isinstance(m, ToolMessage)]
    tools = [t["function"] for t in model.bound[-1]]
    return Seen(str(system.content), tools, results)


SURFACES = {
    "harness": via_harness,
    "mcp": via_mcp,
    "pydantic-ai": via_pydantic_ai,
    "openai-agents": via_openai_agents,
    "langchain": via_langchain,
}


# --- the frameworks' test models ------------------------------------------------------------


_ids = itertools.count()


class ScriptedAgentsModel(AgentsModel):
    """An OpenAI Agents SDK `Model` playing a script: a turn is a list of (tool, JSON arguments) or a final text."""

    def __init__(self, turns: list[Any]) -> None:
        self.turns = list(turns)
        self.requests: list[tuple[str | None, list[dict[str, Any]], list[Any]]] = []

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[Any],
        model_settings: Any,
        tools: list[Any],
        output_schema: Any,
        handoffs: list[Any],
        tracing: Any,
        *,
        previous_response_id: str | None = None,
        conversation_id: str | None = None,
        prompt: Any = None,
    ) -> AgentsResponse:
        items = [{"role": "user", "content": input}] if isinstance(input, str) else [dict(i) for i in input]
        self.requests.append((system_instructions, items, list(tools)))
        turn = self.turns.pop(0)
        if isinstance(turn, str):
            text = ResponseOutputText(type="output_text", text=turn, annotations=[])
            output: list[Any] = [
                ResponseOutputMessage(id="msg", type="message", role="assistant", status="completed", content=[text])
            ]
        else:
            output = []
            for name, arguments in turn:
                n = next(_ids)
                output.append(
                    ResponseFunctionToolCall(
                        type="function_call", call_id=f"call-{n}", id=f"fc-{n}", name=name, arguments=arguments
                    )
                )
        return AgentsResponse(output=output, usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("the tests run agents without streaming")


class FakeToolCallingModel(GenericFakeChatModel):
    """LangChain's `GenericFakeChatModel`, taking tools as a chat model does and recording what it was sent."""

    bound: list[list[dict[str, Any]]] = Field(default_factory=list)
    requests: list[list[Any]] = Field(default_factory=list)

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        self.bound.append([convert_to_openai_tool(tool) for tool in tools])
        return self

    def _generate(self, messages: list[Any], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
        self.requests.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)
