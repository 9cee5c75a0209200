"""Tool-call arguments are checked against the tool's schema with every keyword honoured (issue 11, part 5), all of
JSON Schema for a schema the user supplies (issue 21, item 2)."""

from __future__ import annotations

import http.server
import subprocess
import sys
import threading
import urllib.request
from typing import Any, Literal

import pytest

from flue_runtime import Harness, agent, define_skill, use_model, use_skill, use_tool
from flue_runtime.agents.tools import Tool, tool_from_function
from flue_runtime.errors import AgentError, ToolFailure
from flue_runtime.models import ScriptedModel, ToolCall


def problem(tool: Tool, arguments: object) -> str:
    with pytest.raises(ToolFailure) as info:
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
        ({"type": "object", "properties": {"x": {"type": "strin"}}}, "#/properties/x/type: 'strin' is not valid"),
        ({"type": "object", "properties": {"x": {"pattern": "("}}}, "#/properties/x/pattern: '(' is not a 'regex'"),
        ({"type": "object", "required": "x"}, "#/required: 'x' is not of type 'array'"),
        ({"type": "array", "items": {"type": "string"}}, '#: must describe an object ("type": "object" at the top)'),
        ({"properties": {"x": {"type": "string"}}}, '#: must describe an object ("type": "object" at the top)'),
        (
            {"type": "object", "properties": {"x": {"$ref": "https://schemas.example/x.json"}}},
            "#/properties/x/$ref: 'https://schemas.example/x.json' is not in the schema, and flue never fetches",
        ),
        (
            {"type": "object", "properties": {"x": {"$ref": "other.json#/$defs/x"}}},
            "#/properties/x/$ref: 'other.json#/$defs/x' is not in the schema",
        ),
        (
            {"type": "object", "properties": {"x": {"$ref": "#/$defs/Missing"}}, "$defs": {"Other": {}}},
            "#/properties/x/$ref: '#/$defs/Missing' points at nothing in the schema",
        ),
        (
            {"$schema": "https://schemas.example/dialect", "type": "object"},
            "#/$schema: 'https://schemas.example/dialect' is not a JSON Schema dialect jsonschema knows",
        ),
    ],
)
def test_a_schema_that_is_not_json_schema_is_refused_when_the_tool_is_made(
    parameters: dict[str, Any], words: str
) -> None:
    """Checked once, at definition, against the dialect's meta-schema: the error names the tool and the place."""
    with pytest.raises(AgentError, match=r"tool 'broken': its parameter schema ") as info:
        Tool("broken", "Broken.", parameters, lambda: "")
    assert words in str(info.value)
    assert isinstance(info.value.__cause__, AgentError)


@pytest.mark.slow  # a server on loopback
def test_a_remote_ref_is_never_fetched() -> None:
    """A schema (an MCP server's, say) referring to a URL: refused when the Tool is made, and nothing is asked of
    the URL's server, even though it is up and would serve a schema."""
    requests: list[str] = []

    class Schemas(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            requests.append(self.path)
            body = b'{"type": "string"}'
            self.send_response(200)
            self.send_header("Content-Type", "application/schema+json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Schemas)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/name.json"
        assert urllib.request.urlopen(url, timeout=5).read() == b'{"type": "string"}'  # it would serve
        requests.clear()
        for reference in (url, f"{url}#/$defs/x"):
            parameters = {"type": "object", "properties": {"name": {"$ref": reference}}}
            with pytest.raises(AgentError, match="is not in the schema, and flue never fetches schemas"):
                Tool("lookup", "Look up.", parameters, lambda **kwargs: "")
        with_id = {"$id": url, "type": "object", "properties": {"name": {"$ref": "other.json"}}}
        with pytest.raises(AgentError, match="'other.json' is not in the schema"):
            Tool("lookup", "Look up.", with_id, lambda **kwargs: "")
    finally:
        server.shutdown()
        server.server_close()
    assert requests == []


#: What pydantic's `model_json_schema()` and MCP servers write: `$defs` and `$ref`, `oneOf`, `allOf`, `const`,
#: `format`, titles. None of these was accepted before issue 21.
PAYMENT = {
    "type": "object",
    "title": "payArguments",
    "$defs": {
        "Card": {
            "type": "object",
            "properties": {"kind": {"const": "card"}, "number": {"type": "string", "pattern": "^[0-9]{12,19}$"}},
            "required": ["kind", "number"],
            "additionalProperties": False,
        },
        "Bank": {
            "type": "object",
            "properties": {"kind": {"const": "bank"}, "iban": {"type": "string"}},
            "required": ["kind", "iban"],
        },
        "Money": {"type": "integer", "exclusiveMinimum": 0, "multipleOf": 5},
    },
    "properties": {
        "amount": {"allOf": [{"$ref": "#/$defs/Money"}, {"maximum": 1000}]},
        "method": {"oneOf": [{"$ref": "#/$defs/Card"}, {"$ref": "#/$defs/Bank"}]},
        "when": {"type": "string", "format": "date-time"},
        "contact": {"anyOf": [{"type": "string", "format": "email"}, {"type": "null"}]},
        "tags": {"type": "array", "items": {"enum": ["gift", "rush"]}, "uniqueItems": True},
        "extra": {"not": {"type": "null"}},
    },
    "required": ["amount", "method"],
    "additionalProperties": False,
}
PAY = Tool("pay", "Pay.", PAYMENT, lambda **kwargs: "paid")
PAID = {"amount": 15, "method": {"kind": "card", "number": "4111111111111111"}}


def test_a_schema_uses_all_of_json_schema() -> None:
    assert PAY.check_arguments(PAID) == PAID
    full = {
        **PAID,
        "method": {"kind": "bank", "iban": "DE02"},
        "when": "2025-03-01T10:00:00+01:00",
        "contact": None,
        "tags": ["gift"],
        "extra": 0,
    }
    assert PAY.check_arguments(full) == full
    assert PAY.spec()["parameters"] is PAYMENT  # the model sees the schema as given


@pytest.mark.parametrize(
    "overrides, words",
    [
        ({"amount": 12}, "argument 'amount' must be a multiple of 5, not 12"),
        ({"amount": 0}, "argument 'amount' must be greater than 0, not 0"),
        ({"amount": 1005}, "argument 'amount' must be at most 1000, not 1005"),
        (
            {"method": {"kind": "card", "number": "12"}},
            "argument 'method' must be Card or Bank, not "
            '{"kind": "card", "number": "12"} (as Card: argument \'method\'[\'number\'] must match the pattern',
        ),
        ({"method": {"kind": "bank"}}, "(as Bank: argument 'method' is missing required property 'iban')"),
        ({"method": "card"}, "argument 'method' must be Card or Bank, not \"card\" (parameters: "),
        ({"when": "2025-03-01"}, "argument 'when' must be a valid date-time, not \"2025-03-01\""),
        ({"when": "2025-02-30T10:00:00Z"}, "argument 'when' must be a valid date-time"),
        ({"contact": "nobody"}, "argument 'contact' must be string or null, not \"nobody\""),
        ({"tags": ["gift", "gift"]}, "argument 'tags' must not hold the same item twice"),
        ({"tags": ["soon"]}, 'argument \'tags\'[0] must be one of "gift", "rush", not "soon"'),
        ({"extra": None}, "argument 'extra' must not be null"),
        (
            {"method": {"kind": "card", "number": "4111111111111111", "cvv": "1"}},
            "(as Card: argument 'method' has unknown property 'cvv')",
        ),
    ],
)
def test_each_keyword_is_applied_and_named(overrides: dict[str, Any], words: str) -> None:
    message = problem(PAY, {**PAID, **overrides})
    assert message.startswith("pay: ") and words in message, message
    assert message.endswith(
        "(parameters: amount: Money, method: Card or Bank, when: string, contact: string or null, "
        "tags: array, extra: any value)"
    )


def test_every_problem_is_named_and_the_list_is_bounded() -> None:
    message = problem(PAY, {"method": {"kind": "bank", "iban": 5}, "when": "x", **{f"x{i}": i for i in range(40)}})
    assert message.startswith("pay: argument 'method' must be Card or Bank")
    for words in ("argument 'when' must be a valid date-time", "missing required argument 'amount'", "'x0'"):
        assert words in message
    assert message.count("unknown argument") == 7  # 10 problems named, then how many more
    assert "; and 33 more problems (parameters:" in message
    assert len(message) < 2_000


def test_a_long_list_of_bad_items_does_not_hide_another_bad_argument() -> None:
    message = problem(PAY, {**PAID, "tags": ["x"] * 30, "when": "soon"})
    assert "argument 'tags'[0] must be one of" in message and "argument 'when' must be a valid date-time" in message
    assert message.count("argument 'tags'") == 9  # 10 problems in all: `when`'s, then as many of the rest as fit
    assert "; and 22 more problems (parameters:" in message  # the 30 bad items and a repeat in `uniqueItems`


def test_a_long_value_is_cut_in_the_message() -> None:
    message = problem(PAY, {**PAID, "contact": "x" * 10_000})
    assert "argument 'contact' must be string or null" in message and len(message) < 600
    message = problem(SCHEDULE, {**GOOD, "region": "x" * 10_000})  # the compact validator's words too
    assert 'argument \'region\' must be one of "eu", "us", not "xxx' in message and len(message) < 600


def test_a_schema_in_an_older_dialect_is_applied_in_its_own_terms() -> None:
    """draft-07 (what many MCP servers send): `definitions`, and a `$ref`'s siblings ignored as that draft says."""
    tool = Tool(
        "legacy",
        "Legacy.",
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "definitions": {"Id": {"type": "string", "minLength": 2}},
            "properties": {
                "id": {"$ref": "#/definitions/Id", "maxLength": 1},
                "pair": {"items": [{}, {}], "additionalItems": False},
            },
        },
        lambda **kwargs: "ok",
    )
    assert tool.check_arguments({"id": "abc", "pair": [1, 2]}) == {"id": "abc", "pair": [1, 2]}
    assert "argument 'id' must be at least 2 characters long, not 1" in problem(tool, {"id": "a"})
    assert "argument 'pair'" in problem(tool, {"pair": [1, 2, 3]})


def test_a_ref_into_a_nested_id_resolves_inside_the_schema() -> None:
    tool = Tool(
        "nested",
        "Nested.",
        {
            "$id": "https://schemas.example/root.json",
            "type": "object",
            "properties": {"a": {"$ref": "item.json"}},
            "$defs": {"item": {"$id": "item.json", "type": "integer"}},
        },
        lambda **kwargs: "ok",
    )
    assert tool.check_arguments({"a": 1}) == {"a": 1}
    assert "argument 'a' must be integer, not string" in problem(tool, {"a": "x"})


def test_annotations_are_not_checked() -> None:
    tool = Tool(
        "note",
        "Take a note.",
        {
            "type": "object",
            "properties": {"when": {"type": "string", "title": "When", "examples": [1], "deprecated": True}},
        },
        lambda **kwargs: "ok",
    )
    assert tool.check_arguments({"when": "whenever"}) == {"when": "whenever"}


def test_a_user_schema_imports_jsonschema_only_when_compiled() -> None:
    code = """
import sys
from flue_runtime.agents.tools import Tool
before = "jsonschema" in sys.modules
Tool("t", "T.", {"type": "object", "properties": {"a": {"oneOf": [{"type": "string"}]}}}, lambda **kw: "")
print(before, "jsonschema" in sys.modules)
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.split() == ["False", "True"]


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
