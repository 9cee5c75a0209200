"""The run-time validator agrees with jsonschema, the reference, wherever flue validates.

Contract of `flue_runtime.format.schema_validator.Validator` (issue 35: one keyword table, `TABLE`): for every
schema built from the keywords it implements and the annotations it ignores, and every JSON value, it reports a
failure exactly where jsonschema's validator for that schema does (the same instance paths, the same keywords),
and so accepts exactly what jsonschema accepts, through a tool's compiled schema (`compact_schema`) too; any
other keyword or dialect it refuses when compiled (jsonschema then applies the schema). Checked on:

- generated schemas using every keyword the validator implements and every annotation it ignores, with
  instances drawn near each schema's boundaries (lengths, bounds, patterns, enums, required and extra keys);
- the shipped skill schema, with generated frontmatter: `check_fields` reports an error
  (FLU201-FLU209) exactly when jsonschema rejects the mapping;
- every tool parameter schema flue generates (the skill and sandbox tools, and
  `tool_from_function` over generated type annotations), with generated arguments:
  `check_arguments` raises exactly when jsonschema rejects them, and what it returns is of
  the declared types. The harness's own definitions use the compact validator (checked
  here); a signature needing a keyword it lacks (`prefixItems`, `uniqueItems`) uses
  jsonschema itself, so there the test proves the schema and the conversion.
"""

from __future__ import annotations

import enum
import inspect
import re
import types
import typing
from typing import Any, Literal, Optional, Union

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from flue_runtime.agents.configuration import HARNESS_TOOLS
from flue_runtime.agents.json_schema import compact_schema
from flue_runtime.agents.sandbox_tools import SPECS as SANDBOX_SPECS
from flue_runtime.agents.scripts import RUN_SKILL_SCRIPT
from flue_runtime.agents.skill_tools import ACTIVATE_SKILL, FIND_SKILLS, READ_SKILL_RESOURCE
from flue_runtime.agents.tools import Tool, check_arguments, defined_tool, tool_from_function
from flue_runtime.errors import AgentError, ToolFailure
from flue_runtime.format import schema, schema_validator
from flue_runtime.format.naming import is_valid_name, name_problems
from flue_runtime.format.schema_validator import DIALECT, KEYWORDS, TABLE, Validator
from flue_runtime.format.validate import check_fields

pytestmark = pytest.mark.slow  # hypothesis campaigns

Reference = jsonschema.Draft202012Validator

# --- JSON values ------------------------------------------------------------------------------

KEYS = st.sampled_from(["a", "b", "name", "x-y", "", "é"]) | st.text(max_size=4)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-5, 70)
    | st.floats(-5, 70, allow_nan=False)
    | st.sampled_from([0, 1, 0.0, 1.0, 3.0, -0.0, 2.5, True, False])
    | st.text(max_size=8)
)
JSON = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3), max_leaves=8
)

PATTERNS = [
    r"\S",
    r"^a",
    r"[0-9]{2}$",
    r"^[a-z0-9]+(-[a-z0-9]+)*(?!\n)$",
    r"^$",
    r"é",
]

# --- generated schemas with every keyword -----------------------------------------------------

TYPE_NAMES = ["null", "boolean", "object", "array", "number", "string", "integer"]
SMALL = st.integers(0, 6)
BOUND = st.integers(-3, 6) | st.floats(-3, 6, allow_nan=False, allow_infinity=False)


@st.composite
def leaf_schemas(draw: st.DrawFn) -> Any:
    kind = draw(st.sampled_from(["bool", "empty", "type", "enum", "const", "string", "number", "annotated"]))
    if kind == "bool":
        return draw(st.booleans())
    if kind == "empty":
        return {}
    if kind == "enum":
        return {"enum": draw(st.lists(SCALARS | st.lists(SCALARS, max_size=2), min_size=1, max_size=4))}
    if kind == "const":
        return {"const": draw(JSON)}
    out: dict[str, Any] = {}
    if kind in {"string", "number"} and draw(st.booleans()):
        out["type"] = "string" if kind == "string" else draw(st.sampled_from(["number", "integer"]))
    elif kind == "type" or draw(st.booleans()):
        types = draw(st.lists(st.sampled_from(TYPE_NAMES), min_size=1, max_size=3, unique=True))
        out["type"] = types[0] if len(types) == 1 and draw(st.booleans()) else types
    if kind == "string":
        for keyword in ("minLength", "maxLength"):
            if draw(st.booleans()):
                out[keyword] = draw(SMALL)
        if draw(st.booleans()):
            out["pattern"] = draw(st.sampled_from(PATTERNS))
    if kind == "number":
        for keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            if draw(st.booleans()):
                out[keyword] = draw(BOUND)
    if kind == "annotated":
        out.update(draw(st.fixed_dictionaries({}, optional=ANNOTATED)))
    return out


#: A value of each annotation the compact validator ignores (a nested `$schema` names its own dialect).
ANNOTATED: dict[str, st.SearchStrategy[Any]] = {
    "$schema": st.sampled_from([DIALECT, DIALECT + "#"]),
    "$id": st.sampled_from(["urn:example:s", "https://example.com/s.json"]),
    "$comment": st.text(max_size=3),
    "title": st.text(max_size=3),
    "description": st.text(max_size=3),
    "default": JSON,
    "examples": st.lists(JSON, max_size=2),
    "deprecated": st.booleans(),
    "readOnly": st.booleans(),
    "writeOnly": st.booleans(),
    "format": st.sampled_from(["date-time", "email", "uri", "ipv4"]),
}
#: Dialects a schema may name at its top: draft 2020-12 (the compact validator's) and two it refuses.
DIALECTS = st.sampled_from(
    [DIALECT, DIALECT + "#", "http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-04/schema#"]
)


def composite_schemas(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    array = st.fixed_dictionaries(
        {"type": st.just("array")},
        optional={"items": inner, "minItems": SMALL, "maxItems": SMALL},
    )
    obj = st.fixed_dictionaries(
        {},
        optional={
            "type": st.just("object"),
            "properties": st.dictionaries(KEYS, inner, max_size=3),
            "required": st.lists(KEYS, max_size=3, unique=True),
            "additionalProperties": st.booleans() | inner,
        },
    )
    any_of = st.builds(lambda options: {"anyOf": options}, st.lists(inner, min_size=1, max_size=3))
    return array | obj | any_of


SCHEMAS = st.recursive(leaf_schemas(), composite_schemas, max_leaves=6)
#: Sometimes with a dialect named at the top.
TOP_SCHEMAS = st.one_of(
    SCHEMAS,
    st.tuples(SCHEMAS.filter(lambda node: isinstance(node, dict)), DIALECTS).map(
        lambda pair: {**pair[0], "$schema": pair[1]}
    ),
)


def instances_for(node: Any, depth: int = 0) -> st.SearchStrategy[Any]:
    """Mostly values shaped like what `node` accepts, at the edges of its rules; sometimes anything at all."""
    near = near_values(node, depth)
    return st.one_of(near, near, near, JSON)


def near_values(node: Any, depth: int) -> st.SearchStrategy[Any]:
    if depth > 4 or not isinstance(node, dict) or not node:
        return JSON
    options: list[st.SearchStrategy[Any]] = []
    if "enum" in node:
        options.append(st.sampled_from(node["enum"]))
    if "const" in node:
        options.append(st.just(node["const"]))
    for option in node.get("anyOf", []):
        options.append(near_values(option, depth + 1))
    declared = node.get("type", TYPE_NAMES)
    for kind in [declared] if isinstance(declared, str) else declared:
        options.append(_shaped(kind, node, depth))
    return st.one_of(options)


def _shaped(kind: str, node: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
    if kind == "string":
        low = node.get("minLength", 0)
        high = max(low, node.get("maxLength", low + 3))
        edges = st.integers(max(0, low - 1), high + 1)
        text = edges.flatmap(lambda n: st.text(st.sampled_from("a-é 9\n"), min_size=n, max_size=n))
        return st.one_of(text, st.from_regex(node["pattern"])) if "pattern" in node else text
    if kind in {"integer", "number"}:
        bounds = [node[k] for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum") if k in node] or [0]
        near = st.sampled_from(bounds).flatmap(
            lambda b: st.sampled_from([b, b - 1, b + 1, float(b), b + 0.5, int(b), int(b) + 1, int(b) - 1])
        )
        return near if kind == "number" else near.map(lambda v: int(v) if isinstance(v, float) and v % 1 else v)
    if kind == "array":
        low = node.get("minItems", 0)
        high = max(low, node.get("maxItems", low + 2))
        arrays = st.integers(max(0, low - 1), high + 1).flatmap(
            lambda n: st.lists(instances_for(node.get("items", {}), depth + 1), min_size=n, max_size=n)
        )
        if "prefixItems" in node:  # a fixed tuple: its items in order, sometimes one more
            prefix = st.tuples(*(instances_for(sub, depth + 1) for sub in node["prefixItems"])).map(list)
            return prefix | prefix.flatmap(lambda items: JSON.map(lambda extra: [*items, extra])) | arrays
        return arrays
    if kind == "object":
        properties = node.get("properties", {})
        required = node.get("required", [])
        named = {key: instances_for(sub, depth + 1) for key, sub in properties.items()}
        for key in required:
            named.setdefault(key, JSON)
        extra = node.get("additionalProperties", {})
        return st.builds(
            lambda present, optional, extras: {**extras, **optional, **present},
            st.fixed_dictionaries({k: named[k] for k in required if k in named}) | st.just({}),
            st.fixed_dictionaries({}, optional=named),
            st.dictionaries(KEYS, instances_for(extra, depth + 1), max_size=1) | st.just({}),
        )
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    raise AssertionError(kind)


@st.composite
def schema_and_instance(draw: st.DrawFn, schemas: st.SearchStrategy[Any] = TOP_SCHEMAS) -> tuple[Any, Any]:
    node = draw(schemas)
    return node, draw(instances_for(node))


def reference_failures(node: Any, instance: Any) -> set[tuple[tuple[Any, ...], str]]:
    """Where jsonschema says the instance fails, and which keyword: (instance path, keyword)."""
    return {
        (tuple(error.absolute_path), "false" if error.validator is None else str(error.validator))
        for error in Reference(node).iter_errors(instance)
    }


def our_failures(validator: Validator, instance: Any) -> set[tuple[tuple[Any, ...], str]]:
    """Ours in the reference's terms: jsonschema drops the last step of the path to a `false` subschema's
    failure (its `descend` returns before adding it), so that one is compared without it."""
    return {(v.path[:-1] if v.keyword == "false" else v.path, v.keyword) for v in validator.violations(instance)}


BOUNDARIES: list[tuple[Any, Any]] = [  # each keyword just failing and just passing, whatever the draw
    ({"minLength": 2}, "é"),
    ({"minLength": 2}, "éa"),
    ({"maxLength": 1}, "ab"),
    ({"maxLength": 1}, "\n"),
    ({"pattern": r"^[a-z0-9]+(-[a-z0-9]+)*(?!\n)$"}, "a-b\n"),
    ({"pattern": r"\S"}, " \t"),
    ({"minimum": 0}, -0.5),
    ({"minimum": 0}, False),
    ({"maximum": 1}, 1.0),
    ({"exclusiveMinimum": 1}, 1),
    ({"exclusiveMaximum": 1}, 0.999),
    ({"type": "integer"}, 3.0),
    ({"type": "integer"}, True),
    ({"type": ["number", "null"]}, None),
    ({"enum": [1, "a"]}, True),
    ({"enum": [[1]]}, [1.0]),
    ({"const": {"a": [False]}}, {"a": [0]}),
    ({"anyOf": [{"type": "string"}, {"minimum": 3}]}, 2),
    ({"items": False}, []),
    ({"items": False}, [1]),
    ({"items": {"type": "string"}, "minItems": 1, "maxItems": 2}, ["a", 1, "b"]),
    ({"properties": {"a": False}, "required": ["a", "b"], "additionalProperties": {"type": "null"}}, {"a": 1, "c": 2}),
    ({"type": "object", "additionalProperties": False}, {"x": 1, "y": 2}),
    (False, None),
    (True, None),
]


@given(schema_and_instance() | schema_and_instance(leaf_schemas()))
def test_validator_agrees_with_jsonschema(case: tuple[Any, Any]) -> None:
    assert_agrees(*case)


@pytest.mark.parametrize("node, instance", BOUNDARIES)
def test_validator_agrees_at_each_keywords_boundary(node: Any, instance: Any) -> None:
    assert_agrees(node, instance)


def assert_agrees(node: Any, instance: Any) -> None:
    """The compact verdict is jsonschema's wherever the compact validator compiles the schema; it refuses only
    another dialect."""
    if isinstance(node, dict) and node.get("$schema", DIALECT).rstrip("#") != DIALECT:
        with pytest.raises(AgentError, match=r"#/\$schema: .* implements .*2020-12"):
            Validator(node)
        return
    Reference.check_schema(node)  # the generator writes only valid schemas
    ours = Validator(node)
    assert our_failures(ours, instance) == reference_failures(node, instance), (node, instance)
    valid = Reference(node).is_valid(instance)
    assert ours.is_valid(instance) is valid
    if isinstance(node, dict):  # a tool's compiled schema: no problem exactly when jsonschema accepts
        assert (not list(compact_schema(node).problems(instance))) is valid, (node, instance)


#: Keywords the compact validator does not implement: from the table, and draft 2020-12's others.
NOT_COMPACT = sorted(
    {name for name, row in TABLE.items() if not row.compact}
    | {"$ref", "allOf", "oneOf", "not", "if", "prefixItems", "contains", "uniqueItems", "multipleOf", "unknown"}
)


@pytest.mark.parametrize("keyword", NOT_COMPACT)
def test_the_compact_validator_refuses_what_it_does_not_implement(keyword: str) -> None:
    """No rule is silently skipped: a keyword outside its rows of the table is refused, at any depth."""
    for node in ({keyword: {}}, {"type": "object", "properties": {"a": {keyword: {}}}}):
        with pytest.raises(AgentError, match=f"'{re.escape(keyword)}' is not supported"):
            Validator(node)


def test_the_generated_schemas_use_every_keyword() -> None:
    """The agreement above covers every keyword the validator implements or ignores (collected over a fixed sample)."""
    seen: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            seen.update(node)
            for key, value in node.items():
                if key == "properties":
                    for sub in value.values():
                        walk(sub)
                elif key in {"items", "additionalProperties"}:
                    walk(value)
                elif key == "anyOf":
                    for sub in value:
                        walk(sub)

    @given(TOP_SCHEMAS)
    def collect(node: Any) -> None:
        walk(node)

    collect()
    every = KEYWORDS | schema_validator.ANNOTATIONS
    assert every <= seen, every - seen


# --- the skill schema ---------------------------------------------------------------------------

SKILL_SCHEMA = schema.schema()
FIELD_TEXT = st.one_of(
    st.text(max_size=12),
    st.text(st.sampled_from("abc-9 "), min_size=60, max_size=70),  # around the name's 64
    st.text(st.sampled_from("é \n"), min_size=495, max_size=505),  # around compatibility's 500
    st.text(st.sampled_from("x é"), min_size=1020, max_size=1030),  # around the description's 1024
    st.from_regex(SKILL_SCHEMA["properties"]["name"]["pattern"]),
    st.sampled_from(["pdf-tools", "PDF-Tools", "-a", "a-", "a--b", "", " ", "\n", "my-skill\n", "café"]),
)
FIELD_VALUE = FIELD_TEXT | JSON | st.dictionaries(KEYS, FIELD_TEXT | JSON, max_size=3)
FIELD_NAMES = st.sampled_from(sorted(SKILL_SCHEMA["properties"])) | st.sampled_from(["version", "author", "x"])
NAMES = st.from_regex(SKILL_SCHEMA["properties"]["name"]["pattern"]) | FIELD_TEXT
FRONTMATTER = st.builds(
    lambda required, rest: {**rest, **required},
    st.fixed_dictionaries({"name": NAMES, "description": st.text(min_size=1, max_size=30) | FIELD_TEXT}) | st.just({}),
    st.dictionaries(FIELD_NAMES, FIELD_TEXT | FIELD_VALUE, max_size=5),
)
SCHEMA_CODES = {f"FLU20{i}" for i in range(1, 10)}  # the codes the schema decides; FLU205/210/211 are not its


@given(FRONTMATTER)
def test_skill_schema_agrees_with_jsonschema(data: dict[str, Any]) -> None:
    assert our_failures(schema.validator(), data) == reference_failures(SKILL_SCHEMA, data), data
    reported = {d.code for d in check_fields(data, "s/SKILL.md", None) if d.is_error} & SCHEMA_CODES
    assert bool(reported - {"FLU205"}) is not Reference(SKILL_SCHEMA).is_valid(data), (data, reported)


@given(FIELD_TEXT)
def test_name_rule_is_the_schemas(name: str) -> None:
    valid = Reference(SKILL_SCHEMA["properties"]["name"]).is_valid(name)
    assert is_valid_name(name) is valid
    assert (name_problems(name) == []) is valid  # a rejected name is always explained


def test_reference_sees_the_shipped_schema_as_valid() -> None:
    Reference.check_schema(SKILL_SCHEMA)


# --- tool parameter schemas -------------------------------------------------------------------


class Colour(enum.Enum):
    RED = "red"
    ONE = 1


HASHABLE = st.sampled_from([str, int, bool, Literal["eu", "us"], Colour])
ANNOTATIONS = st.recursive(
    st.sampled_from([str, int, float, bool, Any, Literal["eu", "us"], Literal[1, True], Colour]),
    lambda inner: st.one_of(
        inner.map(lambda t: list[t]),  # type: ignore[valid-type]
        inner.map(lambda t: dict[str, t]),  # type: ignore[valid-type]
        inner.map(lambda t: Optional[t]),  # noqa: UP045 (what users write)
        st.tuples(inner, inner).map(
            lambda pair: pair[0] | pair[1] if all(isinstance(p, type) for p in pair) else pair[0]
        ),
        st.tuples(inner, inner).map(lambda pair: tuple[pair[0], pair[1]]),  # type: ignore[misc]
        inner.map(lambda t: tuple[t, ...]),  # type: ignore[valid-type]
        st.tuples(st.sampled_from([set, frozenset]), HASHABLE).map(lambda kind: kind[0][kind[1]]),
    ),
    max_leaves=4,
)


@st.composite
def generated_tools(draw: st.DrawFn) -> Tool:
    """A typed function with generated parameters, made a tool the way `use_tool` does."""
    names = draw(st.lists(st.sampled_from(["a", "b", "count", "tags"]), min_size=0, max_size=3, unique=True))
    parameters = [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            annotation=draw(ANNOTATIONS),
            **({"default": None} if draw(st.booleans()) else {}),
        )
        for name in names
    ]

    def function(**kwargs: Any) -> str:
        """A generated tool."""
        return ""

    function.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    function.__annotations__ = {p.name: p.annotation for p in parameters}
    return tool_from_function(function, name="generated")


def builtin_tools() -> list[Tool]:
    """Every tool the harness itself offers, from the definitions it sends (a new one fails here until added)."""
    specs = {spec["name"]: spec for spec in (ACTIVATE_SKILL, READ_SKILL_RESOURCE, FIND_SKILLS, RUN_SKILL_SCRIPT)}
    specs.update(SANDBOX_SPECS)
    assert set(specs) == set(HARNESS_TOOLS), set(HARNESS_TOOLS) ^ set(specs)
    return [defined_tool(spec, lambda **kwargs: "") for spec in specs.values()]


BUILTIN = builtin_tools()
TOOLS = st.sampled_from(BUILTIN) | generated_tools()


@st.composite
def tool_calls(draw: st.DrawFn) -> tuple[Tool, Any]:
    tool = draw(TOOLS)
    return tool, draw(instances_for(tool.parameters))


@given(tool_calls())
def test_tool_arguments_agree_with_jsonschema(call: tuple[Tool, Any]) -> None:
    tool, arguments = call
    Reference.check_schema(tool.parameters)
    valid = isinstance(arguments, dict) and Reference(tool.parameters).is_valid(arguments)
    try:
        checked = tool.check_arguments(arguments)
    except ToolFailure as exc:
        assert not valid, (tool.parameters, arguments, exc)
        # every argument jsonschema finds a problem with is named (each one's first problem comes first)
        for path, _ in reference_failures(tool.parameters, arguments) if isinstance(arguments, dict) else set():
            if path:
                assert repr(path[0]) in str(exc)
    else:
        assert valid, (tool.parameters, arguments)
        assert set(checked) == set(arguments)
        for key, value in checked.items():
            assert conforms(value, _declared(tool, key)), (tool.parameters, key, value)
    if tool.validator is None or not tool.validator.compact:
        return  # jsonschema itself: nothing more to compare
    # the module-level function compiles the same rules from the plain schema
    try:
        check_arguments(tool.name, tool.parameters, arguments)
    except ToolFailure:
        assert not valid
    else:
        assert valid


def _declared(tool: Tool, key: str) -> Any:
    """The annotation a generated tool's parameter was declared with (the function's), or Any for the harness's."""
    annotations = getattr(tool.function, "__annotations__", {})
    return annotations.get(key, Any)


def conforms(value: Any, annotation: Any) -> bool:
    """Whether a converted argument is of its declared type (as deep as the annotation goes)."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation is Any:
        return True
    if origin in (Union, types.UnionType):
        return any(conforms(value, arg) for arg in args)
    if annotation is type(None):
        return value is None
    if origin is Literal:
        return any(value == arg and type(value) is type(arg) for arg in args)
    if annotation in (int, float, str, bool, Colour):
        return type(value) is annotation
    if origin is list:
        return type(value) is list and all(conforms(item, args[0]) for item in value)
    if origin is dict:
        return type(value) is dict and all(conforms(item, args[1]) for item in value.values())
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return type(value) is tuple and all(conforms(item, args[0]) for item in value)
    if origin is tuple:
        return type(value) is tuple and len(value) == len(args) and all(map(conforms, value, args))
    if origin in (set, frozenset):
        return type(value) is origin and all(conforms(item, args[0]) for item in value)
    raise AssertionError(annotation)


TYPED = st.recursive(
    st.sampled_from([str, int, float, bool, Literal["eu", "us"], Literal[1, True], Colour]),
    lambda inner: st.one_of(
        inner.map(lambda t: list[t]),  # type: ignore[valid-type]
        inner.map(lambda t: dict[str, t]),  # type: ignore[valid-type]
        inner.map(lambda t: Optional[t]),  # noqa: UP045
        st.tuples(inner, inner).map(lambda pair: tuple[pair[0], pair[1]]),  # type: ignore[misc]
        inner.map(lambda t: tuple[t, ...]),  # type: ignore[valid-type]
        st.tuples(st.sampled_from([set, frozenset]), HASHABLE).map(lambda kind: kind[0][kind[1]]),
        st.tuples(inner, inner).map(lambda pair: Union[pair[0], pair[1]]),  # noqa: UP007
    ),
    max_leaves=4,
)


def values_of(annotation: Any) -> st.SearchStrategy[Any]:
    """Python values of a declared type, as a function would be glad to receive them."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is Union:
        return st.one_of([values_of(arg) for arg in args])
    if annotation is type(None):
        return st.none()
    if origin is Literal:
        return st.sampled_from(args)
    if annotation is float:
        return st.floats(-1e6, 1e6, allow_nan=False)
    if annotation in (int, str, bool, Colour):
        return st.from_type(annotation)
    if origin is list:
        return st.lists(values_of(args[0]), max_size=3)
    if origin is dict:
        return st.dictionaries(st.text(max_size=3), values_of(args[1]), max_size=3)
    if origin is tuple and args[-1] is Ellipsis:
        return st.lists(values_of(args[0]), max_size=3).map(tuple)
    if origin is tuple:
        return st.tuples(*map(values_of, args))
    if origin in (set, frozenset):
        return st.sets(values_of(args[0]), max_size=3).map(origin)
    raise AssertionError(annotation)


def as_json(value: Any) -> Any:
    """What a model sends for a value: an Enum's value, tuples and sets as arrays."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (list, tuple)):
        return [as_json(item) for item in value]
    if isinstance(value, (set, frozenset)):
        return sorted((as_json(item) for item in value), key=repr)
    if isinstance(value, dict):
        return {key: as_json(item) for key, item in value.items()}
    return value


@st.composite
def typed_calls(draw: st.DrawFn) -> tuple[Any, Any]:
    annotation = draw(TYPED)
    return annotation, draw(values_of(annotation))


@given(typed_calls())
def test_a_typed_value_survives_the_trip_through_json(call: tuple[Any, Any]) -> None:
    """A value of the declared type, sent as JSON, is valid under the schema (jsonschema's verdict) and
    reaches the function as a value of the declared type that sends the same JSON (a union takes the
    first alternative that fits: `Colour | str` makes "red" a Colour)."""
    annotation, value = call

    def function(v: Any) -> str:
        """A typed tool."""
        return ""

    function.__annotations__ = {"v": annotation}
    tool = tool_from_function(function, name="typed")
    sent = as_json(value)
    assert Reference(tool.parameters).is_valid({"v": sent}), (tool.parameters, sent)
    received = tool.check_arguments({"v": sent})["v"]
    assert conforms(received, annotation), (annotation, received)
    assert sends(received, sent), (annotation, received, sent)


def sends(received: Any, sent: Any) -> bool:
    """Whether the received value is what `sent` says: the same JSON, a set's items in any order."""
    if isinstance(received, (set, frozenset)):
        return isinstance(sent, list) and sorted(map(repr, as_json(list(received)))) == sorted(map(repr, sent))
    if isinstance(received, (list, tuple)):
        return isinstance(sent, list) and len(received) == len(sent) and all(map(sends, received, sent))
    if isinstance(received, dict):
        return (
            isinstance(sent, dict) and received.keys() == sent.keys() and all(sends(received[k], sent[k]) for k in sent)
        )
    return bool(as_json(received) == sent) and isinstance(as_json(received), bool) is isinstance(sent, bool)


def test_builtin_tools_use_the_compact_validator() -> None:
    """The harness's own schemas stay on the compact validator, which the agreement tests above hold to jsonschema."""
    assert all(tool.validator is not None and tool.validator.compact for tool in BUILTIN)


def test_builtin_tools_use_the_bounds_they_declare() -> None:
    """`minimum` is honoured: the reason issue 11 asked for one validator."""
    read = next(tool for tool in BUILTIN if tool.name == "read_skill_resource")
    assert read.parameters["properties"]["offset"]["minimum"] == 0
    assert re.search(r"'offset' must be at least 0, not -1", _problem(read, {"path": "x", "offset": -1}))


def _problem(tool: Tool, arguments: dict[str, Any]) -> str:
    try:
        tool.check_arguments(arguments)
    except ToolFailure as exc:
        return str(exc)
    raise AssertionError(f"{arguments} passed")
