"""User tools: schemas from signatures and docstrings, reserved names, concurrency of async tools."""

from __future__ import annotations

import asyncio
import enum
from typing import Literal

import pytest
from harness_support import tool_results

from flue_runtime import Harness, agent, use_model, use_tool
from flue_runtime.agents.tools import tool_from_function
from flue_runtime.errors import AgentError
from flue_runtime.models import ScriptedModel, ToolCall


class Priority(enum.Enum):
    LOW = "low"
    HIGH = "high"


def lookup_order(order_id: str, include_items: bool = False, region: Literal["eu", "us"] = "eu") -> dict[str, object]:
    """Look up an order by its id.

    Longer explanation that the model does not need.

    Args:
        order_id: The order number, like "A-1001".
        include_items: Whether to list the items too.
        region: Which store.
    """
    return {"id": order_id, "items": ["book"] if include_items else []}


def test_schema_from_signature_and_docstring() -> None:
    tool = tool_from_function(lookup_order)
    assert tool.spec() == {
        "name": "lookup_order",
        "description": "Look up an order by its id.",
        "parameters": {
            "type": "object",
            "properties": {
                "order_id": {"type": "string", "description": 'The order number, like "A-1001".'},
                "include_items": {"type": "boolean", "description": "Whether to list the items too.", "default": False},
                "region": {"enum": ["eu", "us"], "description": "Which store.", "default": "eu"},
            },
            "required": ["order_id"],
            "additionalProperties": False,
        },
    }


def test_more_types() -> None:
    def f(tags: list[str], scores: dict[str, float], level: Priority, note: str | None = None) -> str:
        """Do f."""
        return ""

    props = tool_from_function(f).parameters["properties"]
    assert props["tags"] == {"type": "array", "items": {"type": "string"}}
    assert props["scores"] == {"type": "object", "additionalProperties": {"type": "number"}}
    assert props["level"] == {"enum": ["low", "high"]}
    # the model may send null (as some do for an optional parameter), or leave it out
    assert props["note"] == {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}


@pytest.mark.parametrize(
    "source, words",
    [
        ("def f(x):\n    'Doc.'", "needs a type annotation"),
        ("def f(*args: int) -> None:\n    'Doc.'", "*args and **kwargs"),
        ("def f(x: int) -> None:\n    pass", "needs a docstring"),
        ("def f(x: object) -> None:\n    'Doc.'", "cannot be described"),
    ],
)
def test_functions_that_cannot_become_tools(source: str, words: str) -> None:
    namespace: dict[str, object] = {}
    exec(source, namespace)
    with pytest.raises(AgentError, match=words.replace("*", r"\*")):
        tool_from_function(namespace["f"])  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["activate_skill", "read_skill_resource", "read", "write", "ls"])
def test_reserved_names_raise(name: str) -> None:
    def fn() -> str:
        """Doc."""
        return ""

    fn.__name__ = name

    @agent
    def a() -> str:
        use_model(ScriptedModel(["x"]))
        use_tool(fn)
        return "x"

    with pytest.raises(AgentError, match=f"tool name '{name}' is reserved"):
        Harness(a).session("s").prompt_sync("x")


def test_sync_tool_round_trip_and_exception_reported_to_the_model() -> None:
    def divide(a: int, b: int) -> float:
        """Divide a by b."""
        return a / b

    model = ScriptedModel(
        [
            [
                ToolCall("divide", {"a": 6, "b": 3}),
                ToolCall("divide", {"a": 1, "b": 0}),
                ToolCall("divide", {"a": "x", "b": 1}),
            ],
            "ok",
        ]
    )

    @agent
    def a() -> str:
        use_model(model)
        use_tool(divide)
        return "x"

    Harness(a).session("s").prompt_sync("x")
    ok, crashed, wrong = tool_results(model)
    assert (ok["content"], ok["is_error"]) == ("2.0", False)
    assert crashed["is_error"] and "ZeroDivisionError" in crashed["content"]
    assert wrong["is_error"] and "argument 'a' must be integer, not string" in wrong["content"]


def test_async_tools_run_concurrently() -> None:
    events: list[str] = []

    async def wait(label: str, seconds: float) -> str:
        """Wait a while."""
        events.append(f"start {label}")
        await asyncio.sleep(seconds)
        events.append(f"end {label}")
        return label

    model = ScriptedModel(
        [[ToolCall("wait", {"label": "a", "seconds": 0.2}), ToolCall("wait", {"label": "b", "seconds": 0.01})], "ok"]
    )

    @agent
    def a() -> str:
        use_model(model)
        use_tool(wait)
        return "x"

    Harness(a).session("s").prompt_sync("x")
    # b started before a ended, and finished first: they overlapped
    assert events == ["start a", "start b", "end b", "end a"]
    assert [r["content"] for r in tool_results(model)] == ["a", "b"]  # results keep call order


def test_tool_offered_twice_raises() -> None:
    @agent
    def a() -> str:
        use_model(ScriptedModel(["x"]))
        use_tool(lookup_order)
        use_tool(lookup_order)
        return "x"

    with pytest.raises(AgentError, match="offered twice"):
        Harness(a).session("s").prompt_sync("x")


def test_tool_results_that_are_not_strings_become_json() -> None:
    model = ScriptedModel([[ToolCall("lookup_order", {"order_id": "A-1", "include_items": True})], "ok"])

    @agent
    def a() -> str:
        use_model(model)
        use_tool(lookup_order)
        return "x"

    Harness(a).session("s").prompt_sync("x")
    assert tool_results(model)[0]["content"] == '{"id": "A-1", "items": ["book"]}'
