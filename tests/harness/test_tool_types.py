"""A typed function's parameters: the schema a model sees for each kind of annotation, and the arguments
reaching the function as the declared types (issue 21, item 2)."""

from __future__ import annotations

import dataclasses
import enum
import subprocess
import sys
from typing import Any, Literal, NotRequired, TypedDict

import pytest
from harness_support import tool_results

from flue_runtime import Harness, agent, use_model, use_tool
from flue_runtime.agents.tools import Tool, tool_from_function
from flue_runtime.errors import AgentError, ToolFailure
from flue_runtime.models import ScriptedModel, ToolCall


class Size(enum.Enum):
    SMALL = "s"
    LARGE = "l"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@dataclasses.dataclass(frozen=True)
class Point:
    x: int
    y: int = 0


@dataclasses.dataclass
class Route:
    name: str
    stops: list[Point]
    size: Size = Size.SMALL
    notes: dict[str, str] = dataclasses.field(default_factory=dict)


class Options(TypedDict):
    depth: int
    label: NotRequired[str]


def received(tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
    return tool.check_arguments(arguments)


def problem(tool: Tool, arguments: dict[str, Any]) -> str:
    with pytest.raises(ToolFailure) as info:
        tool.check_arguments(arguments)
    return str(info.value)


def one(annotation: Any) -> Tool:
    """A tool with a single parameter `v` of `annotation`."""

    def f(v: Any) -> str:
        """Take v."""
        return ""

    f.__annotations__ = {"v": annotation, "return": str}
    return tool_from_function(f)


def schema_of(annotation: Any) -> Any:
    return one(annotation).parameters["properties"]["v"]


# --- tuples -------------------------------------------------------------------------------------


def test_a_fixed_tuple_is_its_items_in_order() -> None:
    """Before: `tuple[int, str]` became "array of integer", so the right call was refused."""
    tool = one(tuple[int, str])
    assert tool.parameters["properties"]["v"] == {
        "type": "array",
        "prefixItems": [{"type": "integer"}, {"type": "string"}],
        "items": False,
        "minItems": 2,
        "maxItems": 2,
    }
    assert received(tool, {"v": [3.0, "a"]}) == {"v": (3, "a")}
    assert type(received(tool, {"v": [1, "a"]})["v"]) is tuple
    assert "argument 'v'[1] must be string, not integer" in problem(tool, {"v": [1, 2]})
    assert "argument 'v' must hold at most 2 items, not 3" in problem(tool, {"v": [1, "a", "b"]})
    assert "argument 'v' must hold at least 2 items, not 1" in problem(tool, {"v": [1]})


def test_a_variadic_tuple_is_an_array_of_its_item() -> None:
    tool = one(tuple[int, ...])
    assert tool.parameters["properties"]["v"] == {"type": "array", "items": {"type": "integer"}}
    assert received(tool, {"v": [1, 2.0, 3]}) == {"v": (1, 2, 3)}
    assert received(tool, {"v": []}) == {"v": ()}
    assert "argument 'v'[1] must be integer, not string" in problem(tool, {"v": [1, "x"]})


def test_the_empty_tuple() -> None:
    tool = one(tuple[()])
    assert tool.parameters["properties"]["v"] == {"type": "array", "minItems": 0, "maxItems": 0}
    assert received(tool, {"v": []}) == {"v": ()}
    assert "must hold at most 0 items" in problem(tool, {"v": [1]})


# --- sets ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", [set, frozenset])
def test_a_set_holds_no_duplicates_and_arrives_as_a_set(kind: type) -> None:
    """Before: `set[str]` let duplicates through, and the function got a list."""
    tool = one(kind[str])  # type: ignore[index]
    assert tool.parameters["properties"]["v"] == {"type": "array", "items": {"type": "string"}, "uniqueItems": True}
    got = received(tool, {"v": ["a", "b"]})["v"]
    assert got == {"a", "b"} and type(got) is kind
    assert "argument 'v' must not hold the same item twice" in problem(tool, {"v": ["a", "b", "a"]})


def test_a_set_of_enum_members() -> None:
    assert received(one(frozenset[Size]), {"v": ["s", "l"]}) == {"v": frozenset({Size.SMALL, Size.LARGE})}


def test_a_set_of_unhashable_items_is_refused_when_defined() -> None:
    with pytest.raises(AgentError, match=r"the items of a set must be hashable .* use list\[\.\.\.\]"):
        one(set[Route])  # a dataclass that is not frozen cannot go in a set


# --- choices ------------------------------------------------------------------------------------


def test_a_literal_is_an_enum_and_one_value_a_const() -> None:
    assert schema_of(Literal["eu", "us"]) == {"enum": ["eu", "us"]}
    tool = one(Literal["eu"])
    assert tool.parameters["properties"]["v"] == {"const": "eu"}
    assert 'argument \'v\' must be "eu", not "us"' in problem(tool, {"v": "us"})


def test_an_enum_is_its_values_and_arrives_as_the_member() -> None:
    """Before: the function got the raw value ("s"), not `Size.SMALL`."""
    tool = one(Size)
    assert tool.parameters["properties"]["v"] == {"enum": ["s", "l"]}
    got = received(tool, {"v": "s"})["v"]
    assert got is Size.SMALL
    assert received(one(Level), {"v": 2.0})["v"] is Level.HIGH
    assert received(one(Literal[Size.LARGE, 3]), {"v": "l"})["v"] is Size.LARGE
    assert 'must be one of "s", "l", not "m"' in problem(tool, {"v": "m"})


def test_a_choice_a_model_cannot_send_is_refused() -> None:
    class Shape(enum.Enum):
        DOT = (0, 0)

    with pytest.raises(AgentError, match=r"the value \(0, 0\) is not a JSON string, number, boolean or null"):
        one(Shape)


# --- records ------------------------------------------------------------------------------------


def test_a_typeddict_is_an_object_with_its_required_keys() -> None:
    """Before: a TypedDict could not be a parameter at all."""
    tool = one(Options)
    assert tool.parameters["properties"]["v"] == {
        "type": "object",
        "properties": {"depth": {"type": "integer"}, "label": {"type": "string"}},
        "required": ["depth"],
        "additionalProperties": False,
    }
    assert received(tool, {"v": {"depth": 2.0}}) == {"v": {"depth": 2}}
    assert received(tool, {"v": {"depth": 1, "label": "x"}}) == {"v": {"depth": 1, "label": "x"}}
    assert "argument 'v' is missing required property 'depth'" in problem(tool, {"v": {"label": "x"}})
    assert "argument 'v' has unknown property 'deep'" in problem(tool, {"v": {"depth": 1, "deep": 2}})


def test_a_dataclass_is_an_object_and_arrives_as_an_instance_nested_too() -> None:
    tool = one(Route)
    assert tool.parameters["properties"]["v"] == {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "stops": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
                    "required": ["x"],
                    "additionalProperties": False,
                },
            },
            "size": {"enum": ["s", "l"]},
            "notes": {"type": "object", "additionalProperties": {"type": "string"}},
        },
        "required": ["name", "stops"],
        "additionalProperties": False,
    }
    got = received(tool, {"v": {"name": "r", "stops": [{"x": 1}, {"x": 2, "y": 3.0}], "size": "l"}})["v"]
    assert got == Route("r", [Point(1), Point(2, 3)], Size.LARGE)
    assert type(got.stops[1].y) is int
    assert "argument 'v'['stops'][1] is missing required property 'x'" in problem(
        tool, {"v": {"name": "r", "stops": [{"x": 1}, {"y": 1}]}}
    )


def test_collections_of_records() -> None:
    assert received(one(list[Point]), {"v": [{"x": 1}]}) == {"v": [Point(1)]}
    assert received(one(dict[str, Point]), {"v": {"a": {"x": 1, "y": 2}}}) == {"v": {"a": Point(1, 2)}}
    assert received(one(set[Point]), {"v": [{"x": 1}, {"x": 2}]}) == {"v": {Point(1), Point(2)}}
    assert received(one(tuple[Point, Size]), {"v": [{"x": 1}, "l"]}) == {"v": (Point(1), Size.LARGE)}


@dataclasses.dataclass
class Positive:
    n: int

    def __post_init__(self) -> None:
        if self.n <= 0:
            raise ValueError("n must be positive")


def test_a_dataclass_that_refuses_its_values_tells_the_model() -> None:
    assert "argument 'v' is not a valid Positive: n must be positive" in problem(one(Positive), {"v": {"n": 0}})


@dataclasses.dataclass
class Tree:
    label: str
    children: list[Tree]


def test_a_recursive_record_is_refused_with_the_way_out() -> None:
    with pytest.raises(AgentError, match=r"Tree contains itself.*make it a pydantic model"):
        one(Tree)


def test_a_mapping_with_keys_json_cannot_send_is_refused() -> None:
    with pytest.raises(AgentError, match=r"a JSON object's keys are strings; use dict\[str, \.\.\.\]"):
        one(dict[int, str])


# --- unions -------------------------------------------------------------------------------------


def test_optional_and_unions_are_any_of_and_convert_by_the_first_that_fits() -> None:
    """Before: `Optional[int]` dropped the `None`, so a model sending null was refused."""
    tool = one(int | None)
    assert tool.parameters["properties"]["v"] == {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    assert received(tool, {"v": None}) == {"v": None}
    assert received(tool, {"v": 4.0}) == {"v": 4}
    assert received(one(Point | Size), {"v": "s"}) == {"v": Size.SMALL}
    assert received(one(Point | Size), {"v": {"x": 5}}) == {"v": Point(5)}
    assert received(one(tuple[int, int] | str), {"v": [1, 2]}) == {"v": (1, 2)}
    assert received(one(float | str), {"v": 2}) == {"v": 2.0}
    assert "argument 'v' must be integer or null, not \"x\"" in problem(tool, {"v": "x"})


# --- the whole loop -----------------------------------------------------------------------------


def plan(route: Route, window: tuple[int, int], tags: set[str], size: Size = Size.SMALL) -> str:
    """Plan a route.

    Args:
        route: Where to go.
        window: Earliest and latest hour.
    """
    assert isinstance(route.stops[0], Point) and isinstance(window, tuple) and isinstance(tags, set)
    return f"{route.name}: {len(route.stops)} stops {window[0]}-{window[1]}h {sorted(tags)} {size.name}"


def test_a_model_calls_a_typed_tool_through_the_harness() -> None:
    good = {"route": {"name": "north", "stops": [{"x": 1}, {"x": 2}]}, "window": [8, 17], "tags": ["a", "b"]}
    model = ScriptedModel(
        [
            [
                ToolCall("plan", good),
                ToolCall("plan", {**good, "window": [8, "late"], "tags": ["a", "a"]}),
                ToolCall("plan", {**good, "size": "xl"}),
            ],
            "done",
        ]
    )

    @agent
    def planner() -> str:
        use_model(model)
        use_tool(plan)
        return "Plan routes."

    Harness(planner).session("s").prompt_sync("go")
    [spec] = model.requests[0].tools
    window = spec["parameters"]["properties"]["window"]
    assert window["prefixItems"] == [{"type": "integer"}, {"type": "integer"}] and window["items"] is False
    assert window["description"] == "Earliest and latest hour."
    assert spec["parameters"]["properties"]["tags"]["uniqueItems"] is True
    ok, wrong, unknown = tool_results(model)
    assert (ok["content"], ok["is_error"]) == ("north: 2 stops 8-17h ['a', 'b'] SMALL", False)
    assert wrong["is_error"]
    assert "argument 'window'[1] must be integer, not string" in wrong["content"]
    assert "argument 'tags' must not hold the same item twice" in wrong["content"]
    assert unknown["is_error"] and 'argument \'size\' must be one of "s", "l", not "xl"' in unknown["content"]


# --- which validator, which imports ---------------------------------------------------------------


def test_simple_signatures_keep_the_compact_validator() -> None:
    """Only a keyword the compact validator lacks (here `prefixItems`) brings in jsonschema."""

    def simple(a: int, b: list[str], c: Literal["x", "y"] = "x", d: Point | None = None) -> str:
        """Simple."""
        return ""

    def richer(a: tuple[int, str]) -> str:
        """Richer."""
        return ""

    simple_tool, richer_tool = tool_from_function(simple), tool_from_function(richer)
    assert simple_tool.validator is not None and simple_tool.validator.compact
    assert richer_tool.validator is not None and not richer_tool.validator.compact


def test_a_compact_validator_given_to_a_tool_still_works_with_a_deprecation_warning() -> None:
    """`Tool(validator=Validator(schema))`, as in 0.1: wrapped into the one validator type, with a warning."""
    from flue_runtime.format.schema_validator import Validator

    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    with pytest.warns(DeprecationWarning, match=r"compact_schema\(schema\)"):
        tool = Tool("count", "Count.", schema, lambda n: str(n), validator=Validator(schema))
    assert tool.validator is not None and tool.validator.compact
    assert tool.check_arguments({"n": 2.0}) == {"n": 2}
    with pytest.raises(ToolFailure, match="missing required argument 'n'"):
        tool.check_arguments({})


def test_typed_tools_import_pydantic_never_and_jsonschema_only_when_needed() -> None:
    code = """
import dataclasses, sys
from flue_runtime.agents.tools import tool_from_function
@dataclasses.dataclass
class P:
    x: int
def f(p: P, q: list[P]) -> str:
    "F."
    return ""
tool_from_function(f).check_arguments({"p": {"x": 1}, "q": []})
print("jsonschema" in sys.modules, "pydantic" in sys.modules)
def g(pair: tuple[int, str], tags: set[str]) -> str:
    "G."
    return ""
tool_from_function(g).check_arguments({"pair": [1, "a"], "tags": []})
print("jsonschema" in sys.modules, "pydantic" in sys.modules)
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.split() == ["False", "False", "True", "False"]
