"""Tool-call arguments are checked against the tool's schema with every keyword honoured (issue 11, part 5)."""

from __future__ import annotations

from typing import Any, Literal

import pytest

from flue_runtime import Harness, agent, define_skill, use_model, use_skill, use_tool
from flue_runtime.agents.tools import Tool, tool_from_function
from flue_runtime.errors import SchemaError, ToolArgumentError, ToolDefinitionError
from flue_runtime.models import ScriptedModel, ToolCall


def problem(tool: Tool, arguments: object) -> str:
    with pytest.raises(ToolArgumentError) as info:
        tool.check_arguments(arguments)
    return str(info.value)


def schedule(
    title: str,
    count: int,
    tags: list[int],
    scores: dict[str, float],
    region: Literal["eu", "us"] = "eu",
    size: int | str = 1,
) -> str:
    """Schedule something."""
    return title


SCHEDULE = tool_from_function(schedule)
GOOD = {"title": "t", "count": 2, "tags": [1], "scores": {"x": 1.5}}


@pytest.mark.parametrize(
    "overrides, words",
    [
        ({"count": "2"}, "argument 'count' must be integer, not string"),
        ({"count": True}, "argument 'count' must be integer, not boolean"),
        ({"tags": [1, "b"]}, "argument 'tags'[1] must be integer, not string"),
        ({"scores": {"x": "high"}}, "argument 'scores'['x'] must be number, not string"),
        ({"region": "fr"}, 'argument \'region\' must be one of "eu", "us", not "fr"'),
        ({"size": False}, "argument 'size' must be integer or string, not false"),
        ({"extra": 1}, "unknown argument 'extra'"),
    ],
)
def test_every_problem_is_named(overrides: dict[str, Any], words: str) -> None:
    message = problem(SCHEDULE, {**GOOD, **overrides})
    assert message.startswith("schedule: ") and words in message
    assert message.endswith(
        "(parameters: title: string, count: integer, tags: array, scores: object, region: one of "
        '"eu", "us", size: integer or string)'
    )


def test_all_problems_at_once() -> None:
    message = problem(SCHEDULE, {"count": -1.5, "tags": "x"})
    for words in ("missing required argument 'title'", "missing required argument 'scores'", "'count' must be"):
        assert words in message
    assert "argument 'tags' must be array, not string" in message


def test_whole_numbers_reach_an_int_parameter_as_int() -> None:
    """JSON Schema counts 3.0 as an integer (as jsonschema does); the function annotated `int` gets 3."""
    checked = SCHEDULE.check_arguments({**GOOD, "count": 3.0, "tags": [1.0, 2], "scores": {"x": 2.0}})
    assert checked["count"] == 3 and type(checked["count"]) is int
    assert [type(t) for t in checked["tags"]] == [int, int]
    assert type(checked["scores"]["x"]) is float  # a `float` parameter keeps its float


def test_a_hand_written_schema_is_honoured_keyword_by_keyword() -> None:
    tool = Tool(
        "rate",
        "Rate a thing.",
        {
            "type": "object",
            "properties": {
                "stars": {"type": "integer", "minimum": 1, "maximum": 5},
                "code": {"type": "string", "pattern": "^[A-Z]{3}$", "minLength": 3, "maxLength": 3},
                "labels": {"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 2},
                "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
                "kind": {"const": "review"},
            },
            "required": ["stars"],
            "additionalProperties": False,
        },
        lambda **kwargs: "ok",
    )
    assert tool.check_arguments({"stars": 5, "code": "ABC", "labels": ["a"], "ratio": 0.5, "kind": "review"})
    cases = {
        "argument 'stars' must be at least 1, not 0": {"stars": 0},
        "argument 'stars' must be at most 5, not 6": {"stars": 6},
        "argument 'code' must match the pattern ^[A-Z]{3}$": {"stars": 1, "code": "abc"},
        "argument 'code' must be at most 3 characters long, not 4": {"stars": 1, "code": "ABCD"},
        "argument 'labels' must hold at most 2 items, not 3": {"stars": 1, "labels": ["a", "a", "b"]},
        'argument \'labels\'[0] must be one of "a", "b", not "c"': {"stars": 1, "labels": ["c"]},
        "argument 'ratio' must be greater than 0, not 0": {"stars": 1, "ratio": 0},
        "argument 'ratio' must be less than 1, not 1.0": {"stars": 1, "ratio": 1.0},
        'argument \'kind\' must be "review", not "other"': {"stars": 1, "kind": "other"},
    }
    for words, arguments in cases.items():
        assert words in problem(tool, arguments)


@pytest.mark.parametrize(
    "parameters, words",
    [
        ({"type": "object", "properties": {"x": {"oneOf": [{"type": "string"}]}}}, "'oneOf' is not supported"),
        ({"type": "object", "properties": {"x": {"type": "strin"}}}, "#/properties/x/type: must be one of null"),
        ({"type": "object", "properties": {"x": {"pattern": "("}}}, "not a valid regular expression"),
        ({"type": "object", "required": "x"}, "#/required: must be an array of property names"),
    ],
)
def test_a_schema_the_validator_cannot_honour_is_refused_when_the_tool_is_made(
    parameters: dict[str, Any], words: str
) -> None:
    with pytest.raises(ToolDefinitionError, match=r"tool 'broken': its parameter schema ") as info:
        Tool("broken", "Broken.", parameters, lambda: "")
    assert words in str(info.value)
    assert isinstance(info.value.__cause__, SchemaError)


def test_annotations_are_not_checked() -> None:
    tool = Tool(
        "note",
        "Take a note.",
        {"type": "object", "properties": {"when": {"type": "string", "format": "date-time", "title": "When"}}},
        lambda **kwargs: "ok",
    )
    assert tool.check_arguments({"when": "not a date"}) == {"when": "not a date"}  # `format` annotates (2020-12)


def test_the_model_is_told_when_it_breaks_a_bound() -> None:
    """End to end: `read_skill_resource` declares `offset >= 0`; a negative offset comes back as an error result."""
    skill = define_skill(name="probe", description="A probe.", instructions="Read a.md.", files={"a.md": "alpha\n"})
    calls = [ToolCall("read_skill_resource", {"path": "/.flue/skills/probe/a.md", "offset": -1})]
    model = ScriptedModel([calls, "done"])

    @agent
    def helper() -> str:
        use_model(model)
        use_skill(skill)
        use_tool(schedule)
        return "Help."

    Harness(helper).session("s").prompt_sync("go")
    [result] = [m for m in model.requests[-1].messages if m["role"] == "tool"]
    assert result["is_error"]
    assert "argument 'offset' must be at least 0, not -1" in result["content"]
