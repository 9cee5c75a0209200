"""A small JSON Schema (draft 2020-12) validator for exactly the keywords flue's schemas use.

The skill schema and the tool parameter schemas are checked at run time, where importing
jsonschema and checking its meta-schema would cost a fresh process 100-400 ms. This
validator compiles a schema once, refuses any assertion keyword it does not implement
(so no rule is ever silently skipped), and reports each failure with where it is, which
keyword failed and that keyword's value, so callers can word the problem for their readers.
The test suite proves it agrees with jsonschema, the reference, on generated schemas and
instances (tests/test_schema_validator.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from flue_runtime.errors import SchemaError

#: Keywords that only annotate (draft 2020-12 treats `format` as an annotation by default).
ANNOTATIONS = frozenset(
    {
        "$schema",
        "$id",
        "$comment",
        "title",
        "description",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "format",
    }
)
#: Assertion and applicator keywords this validator implements, with draft 2020-12's meaning.
KEYWORDS = frozenset(
    {
        "type",
        "enum",
        "const",
        "anyOf",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "items",
        "minItems",
        "maxItems",
        "properties",
        "required",
        "additionalProperties",
    }
)
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
        comparison = {
            "minimum": "at least",
            "maximum": "at most",
            "exclusiveMinimum": "greater than",
            "exclusiveMaximum": "less than",
        }[keyword]
        return f"must be {comparison} {_json(expected)}, not {_json(instance)}"


class Validator:
    """A compiled schema: `violations(instance)` lists every failed keyword, `is_valid` says whether none did."""

    __slots__ = ("schema", "_node")

    def __init__(self, schema: Mapping[str, Any] | bool) -> None:
        self.schema = schema
        self._node = _compile(schema, "#")

    def violations(self, instance: object) -> list[Violation]:
        found: list[Violation] = []
        self._node.collect(instance, (), found)
        return found

    def is_valid(self, instance: object) -> bool:
        return self._node.valid(instance, ())


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


class _Node:
    """One compiled (sub)schema: its keywords in the order they are checked."""

    __slots__ = (
        "reject",
        "types",
        "enum",
        "const",
        "any_of",
        "string",
        "number",
        "array",
        "properties",
        "required",
        "extra",
        "known",
    )

    def __init__(self) -> None:
        self.reject = False  # the `false` schema
        self.types: tuple[frozenset[str], Any] | None = None  # the names, and the keyword as written
        self.enum: list[Any] | None = None
        self.const: tuple[Any] | None = None
        self.any_of: tuple[list[Any], list[_Node]] | None = None  # the options as written, and compiled
        self.string: list[tuple[str, Any, Any]] = []  # (keyword, value, compiled pattern or None)
        self.number: list[tuple[str, Any]] = []
        self.array: list[tuple[str, Any]] = []
        self.properties: dict[str, _Node] = {}
        self.required: list[str] = []
        self.extra: _Node | bool = True  # additionalProperties
        self.known: frozenset[str] = frozenset()

    def collect(self, value: object, path: Where, out: list[Violation]) -> None:
        """Append every keyword `value` fails (at `path`) to `out`."""
        if self.reject:
            out.append(Violation(path, "false", False, value))
            return
        if self.types is not None and self.types[0].isdisjoint(_types_of(value)):
            out.append(Violation(path, "type", self.types[1], value))
        if self.enum is not None and not any(equal(value, option) for option in self.enum):
            out.append(Violation(path, "enum", self.enum, value))
        if self.const is not None and not equal(value, self.const[0]):
            out.append(Violation(path, "const", self.const[0], value))
        if self.any_of is not None and not any(option.valid(value, path) for option in self.any_of[1]):
            out.append(Violation(path, "anyOf", self.any_of[0], value))
        if isinstance(value, str):
            for keyword, limit, pattern in self.string:
                if pattern is not None:
                    failed = pattern.search(value) is None
                else:
                    failed = len(value) < limit if keyword == "minLength" else len(value) > limit
                if failed:
                    out.append(Violation(path, keyword, limit, value))
        elif isinstance(value, dict):
            self._collect_object(value, path, out)
        elif isinstance(value, list):
            self._collect_array(value, path, out)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            for keyword, limit in self.number:
                if _out_of_bounds(keyword, value, limit):
                    out.append(Violation(path, keyword, limit, value))

    def valid(self, value: object, path: Where) -> bool:
        found: list[Violation] = []
        self.collect(value, path, found)
        return not found

    def _collect_array(self, value: list[Any], path: Where, out: list[Violation]) -> None:
        for keyword, limit in self.array:
            if keyword == "items":
                if limit is False:
                    if value:
                        out.append(Violation(path, "items", False, value))
                else:
                    for index, item in enumerate(value):
                        limit.collect(item, (*path, index), out)
            elif len(value) < limit if keyword == "minItems" else len(value) > limit:
                out.append(Violation(path, keyword, limit, value))

    def _collect_object(self, value: dict[Any, Any], path: Where, out: list[Violation]) -> None:
        for name, node in self.properties.items():
            if name in value:
                node.collect(value[name], (*path, name), out)
        for name in self.required:
            if name not in value:
                out.append(Violation(path, "required", self.required, value, name))
        extra = self.extra
        if extra is True:
            return
        for name, item in value.items():
            if name in self.known:
                continue
            if extra is False:
                out.append(Violation(path, "additionalProperties", False, value, name))
            else:
                extra.collect(item, (*path, name), out)


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


def _out_of_bounds(keyword: str, value: float, limit: float) -> bool:
    if keyword == "minimum":
        return value < limit
    if keyword == "maximum":
        return value > limit
    if keyword == "exclusiveMinimum":
        return value <= limit
    return value >= limit  # exclusiveMaximum


def _compile(schema: object, where: str) -> _Node:
    node = _Node()
    if schema is True:
        return node
    if schema is False:
        node.reject = True
        return node
    if not isinstance(schema, Mapping):
        raise SchemaError(f"{where}: a schema must be an object or a boolean, not {type(schema).__name__}")
    unknown = sorted(set(schema) - KEYWORDS - ANNOTATIONS)
    if unknown:
        raise SchemaError(
            f"{where}: keyword {', '.join(map(repr, unknown))} is not supported by flue's run-time validator; "
            f"use {', '.join(sorted(KEYWORDS))}"
        )
    for keyword, value in schema.items():
        _compile_keyword(node, keyword, value, f"{where}/{keyword}")
    return node


def _compile_keyword(node: _Node, keyword: str, value: Any, where: str) -> None:
    if keyword in ANNOTATIONS:
        return
    if keyword == "type":
        types = (value,) if isinstance(value, str) else tuple(value) if _is_list(value, str) else None
        if not types or any(t not in TYPES for t in types):
            raise SchemaError(f"{where}: must be one of {', '.join(TYPES)} or a list of them, not {value!r}")
        node.types = (frozenset(types), value)
    elif keyword == "enum":
        if not isinstance(value, list):
            raise SchemaError(f"{where}: must be an array, not {value!r}")
        node.enum = value
    elif keyword == "const":
        node.const = (value,)
    elif keyword == "anyOf":
        if not isinstance(value, list) or not value:
            raise SchemaError(f"{where}: must be a non-empty array of schemas")
        node.any_of = (value, [_compile(option, f"{where}/{index}") for index, option in enumerate(value)])
    elif keyword in {"minLength", "maxLength"}:
        node.string.append((keyword, _count_value(value, where), None))
    elif keyword == "pattern":
        if not isinstance(value, str):
            raise SchemaError(f"{where}: must be a string, not {value!r}")
        try:
            compiled = re.compile(value)
        except re.error as exc:
            raise SchemaError(f"{where}: {value!r} is not a valid regular expression: {exc}") from exc
        node.string.append((keyword, value, compiled))
    elif keyword in {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}:
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise SchemaError(f"{where}: must be a number, not {value!r}")
        node.number.append((keyword, value))
    elif keyword in {"minItems", "maxItems"}:
        node.array.append((keyword, _count_value(value, where)))
    elif keyword == "items":
        node.array.append((keyword, False if value is False else _compile(value, where)))
    elif keyword == "properties":
        if not isinstance(value, Mapping):
            raise SchemaError(f"{where}: must be an object of schemas")
        node.properties = {name: _compile(sub, f"{where}/{name}") for name, sub in value.items()}
        node.known = frozenset(value)
    elif keyword == "required":
        if not _is_list(value, str):
            raise SchemaError(f"{where}: must be an array of property names, not {value!r}")
        node.required = list(value)
    else:  # additionalProperties
        node.extra = value if isinstance(value, bool) else _compile(value, where)


def _count_value(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SchemaError(f"{where}: must be a non-negative integer, not {value!r}")
    return value


def _is_list(value: object, kind: type) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str) and all(isinstance(v, kind) for v in value)


__all__ = ["ANNOTATIONS", "KEYWORDS", "Validator", "Violation", "describe", "equal", "json_type"]
