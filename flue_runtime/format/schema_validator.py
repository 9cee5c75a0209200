"""A small JSON Schema (draft 2020-12) validator for exactly the keywords flue's schemas use (`TABLE`).

The skill schema and the harness's own tool parameter schemas are checked at run time, where importing
jsonschema and checking its meta-schema would cost a fresh process more than the rest of a run (BENCHMARKS.md,
"Issue 35: hand-written code beside PyYAML and jsonschema"). This validator compiles a schema once, refuses
any keyword or dialect it does not implement (so no rule is ever silently skipped), and reports each failure
with where it is, which keyword failed and that keyword's value, so callers can word the problem for their
readers. The test suite proves it agrees with jsonschema, the reference, on generated schemas and instances
(tests/fuzz/test_fuzz_validator.py).
"""

from __future__ import annotations

import json
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from flue_runtime.errors import AgentError


class Keyword(NamedTuple):
    """A draft 2020-12 keyword: what its value holds, whether it can fail an instance, whether the compact validator
    reads it (an annotation it reads by ignoring it)."""

    holds: str  # "value" (a number, a type, a pattern, names), "data" (JSON), "schema", "schemas" or "named" schemas
    asserts: bool
    compact: bool


def _rows(holds: str, asserts: bool, compact: bool, *names: str) -> dict[str, Keyword]:
    return dict.fromkeys(names, Keyword(holds, asserts, compact))


#: The one keyword table: the compact validator implements the rows it reads and refuses every other keyword;
#: `agents.json_schema` reads it for which keywords hold data or named schemas, and whose failures are worded here.
TABLE: dict[str, Keyword] = {
    **_rows("value", False, True, "$schema", "$id", "$comment", "title", "description", "deprecated", "format"),
    **_rows("value", False, True, "readOnly", "writeOnly"),
    **_rows("data", False, True, "default", "examples"),
    **_rows("value", True, True, "type", "minLength", "maxLength", "pattern", "minItems", "maxItems", "required"),
    **_rows("value", True, True, "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"),
    **_rows("data", True, True, "enum", "const"),
    **_rows("schemas", True, True, "anyOf"),
    **_rows("schema", True, True, "items", "additionalProperties"),
    **_rows("named", True, True, "properties"),
    **_rows("named", True, False, "patternProperties", "dependentSchemas"),
    **_rows("named", False, False, "$defs", "definitions"),
}
#: Keywords that only annotate (draft 2020-12 treats `format` as an annotation by default).
ANNOTATIONS = frozenset(name for name, row in TABLE.items() if row.compact and not row.asserts)
#: Assertion and applicator keywords this validator implements, with draft 2020-12's meaning.
KEYWORDS = frozenset(name for name, row in TABLE.items() if row.compact and row.asserts)
#: The dialect this validator implements: a schema naming another in `$schema` is refused.
DIALECT = "https://json-schema.org/draft/2020-12/schema"
TYPES = ("null", "boolean", "object", "array", "number", "string", "integer")

Where = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Violation:
    """One failed keyword: at `path` in the instance, `keyword` with its schema value `expected`.

    For `required` and `additionalProperties: false`, `name` is the property concerned and
    `path` the object holding (or lacking) it, as in jsonschema.
    """

    path: Where
    keyword: str
    expected: Any
    instance: Any
    name: str | None = None

    @property
    def message(self) -> str:
        """The problem in words, without saying where (the caller knows how to name the place)."""
        keyword, expected, instance = self.keyword, self.expected, self.instance
        if keyword == "required":
            return f"is missing required property {self.name!r}"
        if keyword == "additionalProperties":
            return f"has unknown property {self.name!r}"
        if keyword in {"type", "enum", "const", "anyOf"}:
            shown = json_type(instance) if keyword == "type" else _json(instance)
            return f"must be {describe({keyword: expected})}, not {shown}"
        if keyword in {"minLength", "maxLength"}:
            bound = "at least" if keyword == "minLength" else "at most"
            return f"must be {bound} {_count(expected, 'character')} long, not {len(instance)}"
        if keyword in {"minItems", "maxItems", "items"}:
            bound = "at most" if keyword != "minItems" else "at least"
            return f"must hold {bound} {_count(0 if keyword == 'items' else expected, 'item')}, not {len(instance)}"
        if keyword == "pattern":
            return f"must match the pattern {expected}"
        if keyword == "false":  # a `false` subschema
            return "is not allowed here"
        comparison = {
            "minimum": "at least",
            "maximum": "at most",
            "exclusiveMinimum": "greater than",
            "exclusiveMaximum": "less than",
        }[keyword]
        return f"must be {comparison} {_json(expected)}, not {_json(instance)}"


class Validator:
    """A compiled schema: `violations(instance)` lists every failed keyword, `is_valid` says whether none did."""

    __slots__ = ("schema", "_check")

    def __init__(self, schema: Mapping[str, Any] | bool) -> None:
        self.schema = schema
        self._check = _compile(schema, "#")

    def violations(self, instance: object) -> list[Violation]:
        found: list[Violation] = []
        self._check(instance, (), found)
        return found

    def is_valid(self, instance: object) -> bool:
        return _passes(self._check, instance, ())


def json_type(value: object) -> str:
    """The JSON type name of a decoded JSON value ("integer" for whole numbers, as draft 2020-12 counts them)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def describe(schema: Mapping[str, Any] | bool) -> str:
    """What a schema accepts, in a few words: `integer`, `one of "eu", "us"`, `string or null`."""
    if schema is True or schema == {}:
        return "any value"
    if schema is False:
        return "nothing"
    if "enum" in schema:
        return "one of " + ", ".join(_json(v) for v in schema["enum"])
    if "const" in schema:
        return _json(schema["const"])
    if "anyOf" in schema:
        return " or ".join(describe(option) for option in schema["anyOf"])
    types = schema.get("type")
    if types is None:
        return "any value"
    return " or ".join([types] if isinstance(types, str) else types)


def equal(one: object, two: object) -> bool:
    """JSON equality: `true` is not `1`, `1` is `1.0`, arrays and objects compare member by member."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return one == two
    if isinstance(one, list) and isinstance(two, list):
        return len(one) == len(two) and all(equal(a, b) for a, b in zip(one, two))
    if isinstance(one, dict) and isinstance(two, dict):
        return len(one) == len(two) and all(key in two and equal(value, two[key]) for key, value in one.items())
    if isinstance(one, bool) or isinstance(two, bool):
        return False  # `one is two` failed, so not the same boolean
    return one == two


def _json(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def _count(n: object, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


# --- compiling ------------------------------------------------------------------------------
#
# A schema compiles to one function `check(value, path, out)` that appends what `value` fails
# to `out`: the keywords present, grouped by the type they apply to, and nothing else.

Check = Callable[[Any, Where, list[Violation]], None]


def _accept(value: object, path: Where, out: list[Violation]) -> None:
    return None


def _reject(value: object, path: Where, out: list[Violation]) -> None:
    out.append(Violation(path, "false", False, value))


def _passes(check: Check, value: object, path: Where) -> bool:
    found: list[Violation] = []
    check(value, path, found)
    return not found


_NUMBER_TYPES = frozenset({"number"})
_INTEGER_TYPES = frozenset({"integer", "number"})
_TYPES_BY_CLASS = {
    str: frozenset({"string"}),
    dict: frozenset({"object"}),
    list: frozenset({"array"}),
    bool: frozenset({"boolean"}),
    int: _INTEGER_TYPES,
    type(None): frozenset({"null"}),
}


def _types_of(value: object) -> frozenset[str]:
    """The JSON types a value has: a whole number is both an integer and a number (draft 2020-12)."""
    found = _TYPES_BY_CLASS.get(type(value))
    if found is not None:
        return found
    if isinstance(value, float):
        return _INTEGER_TYPES if value.is_integer() else _NUMBER_TYPES
    for kind, types in _TYPES_BY_CLASS.items():  # subclasses (str enums, OrderedDict, ...)
        if isinstance(value, kind):
            return types
    return frozenset()


def _compile(schema: object, where: str) -> Check:
    if schema is True:
        return _accept
    if schema is False:
        return _reject
    if not isinstance(schema, Mapping):
        raise AgentError(f"{where}: a schema must be an object or a boolean, not {type(schema).__name__}")
    unknown = sorted(set(schema) - KEYWORDS - ANNOTATIONS)
    if unknown:
        raise AgentError(
            f"{where}: keyword {', '.join(map(repr, unknown))} is not supported by flue's run-time validator; "
            f"use {', '.join(sorted(KEYWORDS))}"
        )
    dialect = schema.get("$schema", DIALECT)
    if not isinstance(dialect, str) or dialect.rstrip("#") != DIALECT:
        raise AgentError(f"{where}/$schema: flue's run-time validator implements {DIALECT} only, not {dialect!r}")
    checks = [
        check
        for check in (
            _type(schema, where),
            _enum(schema, where),
            _const(schema),
            _any_of(schema, where),
            _string(schema, where),
            _number(schema, where),
            _array(schema, where),
            _object(schema, where),
        )
        if check is not None
    ]
    if not checks:
        return _accept
    if len(checks) == 1:
        return checks[0]
    every = tuple(checks)

    def check_all(value: Any, path: Where, out: list[Violation]) -> None:
        for check in every:
            check(value, path, out)

    return check_all


def _type(schema: Mapping[str, Any], where: str) -> Check | None:
    if "type" not in schema:
        return None
    expected = schema["type"]
    names = [expected] if isinstance(expected, str) else list(expected) if _is_list(expected, str) else []
    if not names or any(name not in TYPES for name in names):
        raise AgentError(f"{where}/type: must be one of {', '.join(TYPES)} or a list of them, not {expected!r}")
    allowed = frozenset(names)

    def check_type(value: Any, path: Where, out: list[Violation]) -> None:
        if allowed.isdisjoint(_types_of(value)):
            out.append(Violation(path, "type", expected, value))

    return check_type


def _enum(schema: Mapping[str, Any], where: str) -> Check | None:
    if "enum" not in schema:
        return None
    options = schema["enum"]
    if not isinstance(options, list):
        raise AgentError(f"{where}/enum: must be an array, not {options!r}")

    def check_enum(value: Any, path: Where, out: list[Violation]) -> None:
        if not any(equal(value, option) for option in options):
            out.append(Violation(path, "enum", options, value))

    return check_enum


def _const(schema: Mapping[str, Any]) -> Check | None:
    if "const" not in schema:
        return None
    const = schema["const"]

    def check_const(value: Any, path: Where, out: list[Violation]) -> None:
        if not equal(value, const):
            out.append(Violation(path, "const", const, value))

    return check_const


def _any_of(schema: Mapping[str, Any], where: str) -> Check | None:
    if "anyOf" not in schema:
        return None
    options = schema["anyOf"]
    if not isinstance(options, list) or not options:
        raise AgentError(f"{where}/anyOf: must be a non-empty array of schemas")
    compiled = [_compile(option, f"{where}/anyOf/{index}") for index, option in enumerate(options)]

    def check_any_of(value: Any, path: Where, out: list[Violation]) -> None:
        if not any(_passes(option, value, path) for option in compiled):
            out.append(Violation(path, "anyOf", options, value))

    return check_any_of


def _string(schema: Mapping[str, Any], where: str) -> Check | None:
    low = _count_value(schema, "minLength", where)
    high = _count_value(schema, "maxLength", where)
    pattern = schema.get("pattern")
    if low is None and high is None and pattern is None:
        return None
    compiled = None
    if pattern is not None:
        if not isinstance(pattern, str):
            raise AgentError(f"{where}/pattern: must be a string, not {pattern!r}")
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            raise AgentError(f"{where}/pattern: {pattern!r} is not a valid regular expression: {exc}") from exc

    def check_string(value: Any, path: Where, out: list[Violation]) -> None:
        if not isinstance(value, str):
            return
        if low is not None and len(value) < low:
            out.append(Violation(path, "minLength", low, value))
        if high is not None and len(value) > high:
            out.append(Violation(path, "maxLength", high, value))
        if compiled is not None and compiled.search(value) is None:
            out.append(Violation(path, "pattern", pattern, value))

    return check_string


#: Each bound keyword and when a number breaks it.
_BOUNDS: dict[str, Callable[[Any, Any], bool]] = {
    "minimum": operator.lt,
    "maximum": operator.gt,
    "exclusiveMinimum": operator.le,
    "exclusiveMaximum": operator.ge,
}


def _number(schema: Mapping[str, Any], where: str) -> Check | None:
    bounds = [(keyword, schema[keyword], broken) for keyword, broken in _BOUNDS.items() if keyword in schema]
    if not bounds:
        return None
    for keyword, limit, _ in bounds:
        if not isinstance(limit, (int, float)) or isinstance(limit, bool):
            raise AgentError(f"{where}/{keyword}: must be a number, not {limit!r}")

    def check_number(value: Any, path: Where, out: list[Violation]) -> None:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            for keyword, limit, broken in bounds:
                if broken(value, limit):
                    out.append(Violation(path, keyword, limit, value))

    return check_number


def _array(schema: Mapping[str, Any], where: str) -> Check | None:
    low = _count_value(schema, "minItems", where)
    high = _count_value(schema, "maxItems", where)
    items = schema.get("items", True)
    if low is None and high is None and items is True:
        return None
    each = None if items is False else _compile(items, f"{where}/items")

    def check_array(value: Any, path: Where, out: list[Violation]) -> None:
        if not isinstance(value, list):
            return
        if low is not None and len(value) < low:
            out.append(Violation(path, "minItems", low, value))
        if high is not None and len(value) > high:
            out.append(Violation(path, "maxItems", high, value))
        if each is None:
            if value:
                out.append(Violation(path, "items", False, value))
        elif each is not _accept:
            for index, item in enumerate(value):
                each(item, (*path, index), out)

    return check_array


def _object(schema: Mapping[str, Any], where: str) -> Check | None:
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    extra = schema.get("additionalProperties", True)
    if not properties and not required and extra is True:
        return None
    if not isinstance(properties, Mapping):
        raise AgentError(f"{where}/properties: must be an object of schemas")
    if not _is_list(required, str):
        raise AgentError(f"{where}/required: must be an array of property names, not {required!r}")
    named = tuple(
        (name, check)
        for name, check in ((name, _compile(sub, f"{where}/properties/{name}")) for name, sub in properties.items())
        if check is not _accept
    )
    known = frozenset(properties)
    others = extra if isinstance(extra, bool) else _compile(extra, f"{where}/additionalProperties")

    def check_object(value: Any, path: Where, out: list[Violation]) -> None:
        if not isinstance(value, dict):
            return
        for name, check in named:
            if name in value:
                check(value[name], (*path, name), out)
        for name in required:
            if name not in value:
                out.append(Violation(path, "required", required, value, name))
        if others is True or others is _accept:
            return
        for name, item in value.items():
            if name in known:
                continue
            if others is False:
                out.append(Violation(path, "additionalProperties", False, value, name))
            else:
                others(item, (*path, name), out)

    return check_object


def _count_value(schema: Mapping[str, Any], keyword: str, where: str) -> int | None:
    value = schema.get(keyword)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise AgentError(f"{where}/{keyword}: must be a non-negative integer, not {value!r}")
    return int(value)


def _is_list(value: object, kind: type) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str) and all(isinstance(v, kind) for v in value)


__all__ = [
    "ANNOTATIONS",
    "DIALECT",
    "KEYWORDS",
    "TABLE",
    "Keyword",
    "Validator",
    "Violation",
    "describe",
    "equal",
    "json_type",
]
