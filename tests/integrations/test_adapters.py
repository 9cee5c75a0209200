"""Each adapter in its own framework, driven by that framework's test model (no network): the model activates
a bundled skill from the installed wheel, reads the support file the activation points it to, and answers
from it. The tests assert what the model received."""

from __future__ import annotations

import pytest
from support.optional import need

need("pydantic_ai", "pydantic-ai")
need("agents", "openai-agents")
need("langchain_core", "langchain")
need("langchain", "test")

import json
import subprocess
import sys

from agents import Agent as AgentsAgent
from agents import RunConfig, Runner
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, SystemMessage, ToolMessage
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from surfaces import FakeToolCallingModel, ScriptedAgentsModel

from flue_runtime.integrations.skillset import Skillset
from flue_runtime.mount.reference import SkillReference

POLICY = "/.flue/skills/refunds/policy.md"


def support_file(activation: str, name: str) -> str:
    """The virtual path the activation result lists for support file `name`, as a model would pick it."""
    [line] = [line for line in activation.splitlines() if line.startswith("- ") and line.endswith("/" + name)]
    return line[2:]


@pytest.mark.slow
def test_pydantic_ai_agent_activates_a_skill_and_reads_a_support_file(demo: dict[str, SkillReference]) -> None:
    from flue_runtime.integrations.pydantic_ai import skills_toolset

    skills = [demo["refunds"], demo["triage"]]
    expected = Skillset(skills)
    received: list[tuple[list[ModelMessage], AgentInfo]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        received.append((messages, info))
        returns = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
        if not returns:
            return ModelResponse(parts=[ToolCallPart("activate_skill", {"name": "refunds"})])
        if len(returns) == 1:
            path = support_file(str(returns[0].content), "policy.md")
            return ModelResponse(parts=[ToolCallPart("read_skill_resource", {"path": path})])
        return ModelResponse(parts=[TextPart("Policy says: " + str(returns[1].content).splitlines()[2].split("\t")[1])])

    result = Agent(FunctionModel(model), instructions="Answer support questions.", toolsets=[skills_toolset(skills)])
    answer = result.run_sync("Can I get my money back?")
    assert answer.output == "Policy says: Refunds within 30 days of purchase are granted in full."

    messages, info = received[-1]
    assert info.instructions is not None
    assert info.instructions.startswith("Answer support questions.") and info.instructions.endswith(expected.catalog)
    assert [(d.name, d.description, d.parameters_json_schema) for d in info.function_tools] == [
        (t.name, t.description, t.parameters) for t in expected.tools
    ]
    returns = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
    assert [p.content for p in returns] == [
        expected.call("activate_skill", {"name": "refunds"}).text,
        expected.call("read_skill_resource", {"path": POLICY}).text,
    ]
    assert all(p.outcome == "success" for p in returns)


@pytest.mark.slow
def test_pydantic_ai_failure_is_a_failed_tool_result_with_the_harness_text(demo: dict[str, SkillReference]) -> None:
    from flue_runtime.integrations.pydantic_ai import skills_toolset

    received: list[list[ModelMessage]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        received.append(messages)
        if len(received) == 1:
            return ModelResponse(parts=[ToolCallPart("read_skill_resource", {"path": "/.flue/skills/refunds/../x"})])
        return ModelResponse(parts=[TextPart("sorry")])

    Agent(FunctionModel(model), toolsets=[skills_toolset([demo["refunds"]])]).run_sync("read it")
    [failed] = [
        p for m in received[-1] if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)
    ]
    assert failed.outcome == "failed"
    assert (
        failed.content
        == Skillset([demo["refunds"]]).call("read_skill_resource", {"path": "/.flue/skills/refunds/../x"}).text
    )
    assert str(failed.content).startswith("Error: refused path '/.flue/skills/refunds/../x'")


@pytest.mark.slow
def test_openai_agents_sdk_agent_activates_a_skill_and_reads_a_support_file(demo: dict[str, SkillReference]) -> None:
    from flue_runtime.integrations.openai_agents import catalog, skill_tools

    skills = [demo["refunds"], demo["triage"]]
    expected = Skillset(skills)

    class Reader(ScriptedAgentsModel):
        """Reads the support file the activation result lists."""

        async def get_response(self, system_instructions, input, *args, **kwargs):  # type: ignore[no-untyped-def]
            outputs = [i["output"] for i in input if isinstance(i, dict) and i.get("type") == "function_call_output"]
            if len(outputs) == 1:
                self.turns.insert(
                    0, [("read_skill_resource", json.dumps({"path": support_file(outputs[0], "policy.md")}))]
                )
            return await super().get_response(system_instructions, input, *args, **kwargs)

    model = Reader([[("activate_skill", json.dumps({"name": "refunds"}))], "Refunds within 30 days."])
    assistant = AgentsAgent(
        name="support",
        instructions=f"Answer support questions.\n\n{catalog(skills)}",
        tools=skill_tools(skills),
        model=model,
    )
    answer = Runner.run_sync(assistant, "Can I get my money back?", run_config=RunConfig(tracing_disabled=True))
    assert answer.final_output == "Refunds within 30 days."

    system, items, tools = model.requests[-1]
    assert system == f"Answer support questions.\n\n{expected.catalog}"
    assert [(t.name, t.description, t.params_json_schema, t.strict_json_schema) for t in tools] == [
        (t.name, t.description, t.parameters, False) for t in expected.tools
    ]
    assert [i["output"] for i in items if i.get("type") == "function_call_output"] == [
        expected.call("activate_skill", {"name": "refunds"}).text,
        expected.call("read_skill_resource", {"path": POLICY}).text,
    ]


@pytest.mark.slow
def test_openai_agents_sdk_malformed_arguments_get_the_harness_message(demo: dict[str, SkillReference]) -> None:
    from flue_runtime.integrations.openai_agents import skill_tools

    model = ScriptedAgentsModel([[("read_skill_resource", '{"path": ')], "ok"])
    assistant = AgentsAgent(name="a", tools=skill_tools([demo["refunds"]]), model=model)
    Runner.run_sync(assistant, "go", run_config=RunConfig(tracing_disabled=True))
    [output] = [i["output"] for i in model.requests[-1][1] if i.get("type") == "function_call_output"]
    assert output == Skillset([demo["refunds"]]).call("read_skill_resource", '{"path": ').text
    assert output.startswith("Error: read_skill_resource: the arguments are not valid JSON")


@pytest.mark.slow
def test_langchain_agent_activates_a_skill_and_reads_a_support_file(demo: dict[str, SkillReference]) -> None:
    from flue_runtime.integrations.langchain import catalog, skill_tools

    skills = [demo["refunds"], demo["triage"]]
    expected = Skillset(skills)
    activation = expected.call("activate_skill", {"name": "refunds"}).text
    path = support_file(activation, "email (v2).md")
    model = FakeToolCallingModel(
        messages=iter(
            [
                AIMessage("", tool_calls=[{"name": "activate_skill", "args": {"name": "refunds"}, "id": "1"}]),
                AIMessage("", tool_calls=[{"name": "read_skill_resource", "args": {"path": path}, "id": "2"}]),
                AIMessage("Dear customer, your refund is on its way."),
            ]
        )
    )
    agent = create_agent(model, tools=skill_tools(skills), system_prompt=catalog(skills))
    state = agent.invoke({"messages": [{"role": "user", "content": "Write the refund email."}]})
    assert state["messages"][-1].content == "Dear customer, your refund is on its way."

    sent = model.requests[-1]
    assert isinstance(sent[0], SystemMessage) and sent[0].content == expected.catalog
    assert [t["function"] for t in model.bound[-1]] == [tool.spec() for tool in expected.tools]
    tool_messages = [m for m in sent if isinstance(m, ToolMessage)]
    assert [m.content for m in tool_messages] == [activation, expected.call("read_skill_resource", {"path": path}).text]
    assert "Your refund of {amount} is on its way." in str(tool_messages[1].content)
    assert [m.status for m in tool_messages] == ["success", "success"]


@pytest.mark.slow
def test_langchain_failure_is_an_error_tool_message_with_the_harness_text(demo: dict[str, SkillReference]) -> None:
    from flue_runtime.integrations.langchain import skill_tools

    [activate, read] = skill_tools([demo["refunds"]])
    message = read.invoke(
        {"type": "tool_call", "name": "read_skill_resource", "args": {"path": "/etc/passwd"}, "id": "9"}
    )
    assert isinstance(message, ToolMessage) and message.status == "error"
    assert message.content == Skillset([demo["refunds"]]).call("read_skill_resource", {"path": "/etc/passwd"}).text
    assert activate.invoke({"name": "nope"}).startswith("There is no skill named 'nope'.")


@pytest.mark.parametrize(
    ("module", "missing", "extra"),
    [
        ("flue_runtime.mcp", "mcp", "mcp"),
        ("flue_runtime.integrations.pydantic_ai", "pydantic_ai", "pydantic-ai"),
        ("flue_runtime.integrations.openai_agents", "agents", "openai-agents"),
        ("flue_runtime.integrations.langchain", "langchain_core", "langchain"),
    ],
)
def test_a_missing_extra_says_what_to_install(module: str, missing: str, extra: str) -> None:
    """Importing the module (an adapter) or taking its names (`flue_runtime.mcp` imports without the SDK: `mcp --help`
    lists its HTTP settings) says which extra to install."""
    code = f"import sys; sys.modules[{missing!r}] = None\ntry:\n    from {module} import *\nexcept ImportError as e:\n    print(e)"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert f"pip install 'flue-skills[{extra}]'" in shown


def test_importing_flue_runtime_imports_no_framework() -> None:
    code = (
        "import sys, flue_runtime, flue_runtime.integrations, flue_runtime.integrations.skillset\n"
        "print(sorted(m for m in ('mcp', 'pydantic_ai', 'agents', 'langchain_core') if m in sys.modules))"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert shown.strip() == "[]"
