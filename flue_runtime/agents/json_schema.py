"""Tool parameter schemas, compiled into one type (`JsonSchema`) whose problems read alike whichever validator applies it.

The harness's own definitions and simple typed functions use the compact validator (`compact_schema`), which
implements the keywords of `format.schema_validator.TABLE`. A hand-written schema, a pydantic model's
`model_json_schema()` or an MCP server's `inputSchema` may use any keyword (`$ref`/`$defs`, `oneOf`, `allOf`,
`format`...), so `compile_schema` applies it with jsonschema, imported when the first such schema is compiled, never
by `import flue_runtime`.

Such a schema is checked once, when the tool is defined: against its dialect's meta-schema, an object at the top
(providers send arguments as one JSON object), every `$ref` resolved inside the schema itself (nothing is ever
fetched). Each call's arguments are then checked with formats asserted, every problem named by where it is.
"""

from __future__ import annotations

import datetime
import functools
import json
import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, cast

from flue_runtime.errors import AgentError
from flue_runtime.format.diagnostics import cut
from flue_runtime.format.schema_validator import TABLE, Validator, Violation, describe

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator as JsonValidator
    from referencing import Specification
    from referencing._core import Resolver

__all__ = [
    "JsonSchema",
    "MAX_SHOWN",
    "MAX_TEXT",
    "compact_schema",
    "compile_schema",
    "describe_schema",
    "place",
]


#: Characters of a value quoted in a problem, and of one problem, at most (a long value is cut).
MAX_SHOWN = 80
MAX_TEXT = 300
#: Compiled schemas kept, by their JSON text (an agent may rebuild the same `Tool` at every render).
CACHE_SIZE = 128

#: From the one keyword table: keywords whose failure the compact validator words (jsonschema's errors carry the
#: same facts), keywords holding data (never searched for `$ref`), keywords mapping names to schemas.
_WORDED = frozenset(k for k, row in TABLE.items() if row.compact and row.asserts and row.holds in {"value", "data"})
_DATA = frozenset(k for k, row in TABLE.items() if row.holds == "data")
_NAMED = frozenset(k for k, row in TABLE.items() if row.holds == "named")
_REFS = ("$ref", "$dynamicRef", "$recursiveRef")


class JsonSchema:
    """A tool's parameter schema, compiled: `problems(arguments)` says what is wrong, in the same words whichever
    validator applies it (the compact one, `compact_schema`, or jsonschema, `compile_schema`)."""

    __slots__ = ("schema", "_validator")

    def __init__(self, schema: Mapping[str, Any], validator: JsonValidator | Validator) -> None:
        self.schema = schema
        self._validator = validator

    @property
    def compact(self) -> bool:
        """Whether the compact validator applies this schema (jsonschema is then not even imported)."""
        return isinstance(self._validator, Validator)

    def problems(self, arguments: object) -> Iterator[str]:
        """Every problem with `arguments` in words (the caller bounds how many)."""
        if isinstance(self._validator, Validator):
            for violation in self._validator.violations(arguments):
                yield _worded(violation)
            return
        seen: dict[tuple[Any, ...], int] = {}
        for error in self._validator.iter_errors(cast(Any, arguments)):
            yield from _words(error, seen)


def compact_schema(schema: Mapping[str, Any]) -> JsonSchema:
    """`schema` compiled by the compact validator: `AgentError` when it uses a keyword that validator does not
    implement (then `compile_schema` applies it). What it saves a process is jsonschema's import (BENCHMARKS.md,
    "Issue 35: hand-written code beside PyYAML and jsonschema")."""
    return JsonSchema(schema, Validator(schema))


def compile_schema(schema: object) -> JsonSchema:
    """`schema` checked (meta-schema, object at the top, `$ref`s inside it) and compiled; `AgentError` says
    where it is wrong as `#/json/pointer: problem`. Kept by its JSON text: an agent that makes the same `Tool`
    at every render (or lists an MCP server's tools again) compiles its schema once."""
    try:
        text = json.dumps(schema, allow_nan=False)  # keys in their order: it orders the words of problems
    except (TypeError, ValueError):
        return _compile(schema)  # not JSON text (a NaN, a key that is no string): checked as it is, not kept
    return _compiled_text(text)


@functools.lru_cache(maxsize=CACHE_SIZE)
def _compiled_text(text: str) -> JsonSchema:
    return _compile(json.loads(text))


def _compile(schema: object) -> JsonSchema:
    from jsonschema import Draft202012Validator, validators
    from jsonschema.exceptions import best_match
    from referencing import Registry
    from referencing.jsonschema import specification_with

    if not isinstance(schema, Mapping):
        raise AgentError(f'#: must be a JSON object with "type": "object", not {type(schema).__name__}')
    dialect = schema.get("$schema", Draft202012Validator.META_SCHEMA["$schema"])
    cls = validators.validator_for(schema, default=Draft202012Validator) if isinstance(dialect, str) else None
    if cls is None or cls.META_SCHEMA["$schema"].rstrip("#") != dialect.rstrip("#"):  # unknown: the default
        raise AgentError(
            f"#/$schema: {schema['$schema']!r} is not a JSON Schema dialect jsonschema knows; "
            "use draft 2020-12 (or 2019-09, 7, 6, 4, 3), or leave `$schema` out"
        )
    error = best_match(cls(cls.META_SCHEMA, format_checker=cls.FORMAT_CHECKER).iter_errors(schema))
    if error is not None:
        raise AgentError(f"{_pointer(error.absolute_path)}: {cut(error.message, MAX_TEXT)}")
    if schema.get("type") != "object":
        raise AgentError(
            '#: must describe an object ("type": "object" at the top): a model sends a tool\'s arguments '
            "as one JSON object; wrap other values in a property, "
            '{"type": "object", "properties": {"value": ...}, "required": ["value"]}'
        )
    specification = specification_with(cls.META_SCHEMA["$schema"])
    registry: Registry[Any] = Registry()  # no `retrieve`: a reference outside the schema is never fetched
    _check_references(schema, registry.resolver_with_root(specification.create_resource(schema)), specification, "#")
    return JsonSchema(schema, cls(schema, registry=registry, format_checker=_format_checker(cls)))


def _check_references(node: object, resolver: Resolver[Any], specification: Specification[Any], where: str) -> None:
    """Every `$ref` in the schema must point inside it: resolved now, so no call fails on a missing one."""
    from referencing.exceptions import PointerToNowhere, Unresolvable

    if not isinstance(node, Mapping):
        return
    resolver = resolver.in_subresource(specification.create_resource(node))  # a nested `$id` moves the base
    for key, value in node.items():
        here = f"{where}/{key}"
        if key in _DATA:
            continue
        if key in _REFS and isinstance(value, str):
            try:
                resolver.lookup(value)
            except PointerToNowhere as exc:
                raise AgentError(f"{here}: {value!r} points at nothing in the schema") from exc
            except Unresolvable as exc:
                raise AgentError(
                    f"{here}: {value!r} is not in the schema, and flue never fetches schemas; "
                    "put the definition under `$defs` and refer to it as '#/$defs/NAME'"
                ) from exc
        elif key in _NAMED and isinstance(value, Mapping):
            for name, sub in value.items():
                _check_references(sub, resolver, specification, f"{here}/{name}")
        elif isinstance(value, Mapping):
            _check_references(value, resolver, specification, here)
        elif isinstance(value, list):
            for index, sub in enumerate(value):
                _check_references(sub, resolver, specification, f"{here}/{index}")


def _format_checker(cls: Any) -> Any:
    """jsonschema's format checks for `cls`, plus `date-time` and `time` (RFC 3339) from the standard
    library where jsonschema's own need a package that is not installed."""
    from jsonschema import FormatChecker

    checker = FormatChecker(cls.FORMAT_CHECKER.checkers)
    for name, check in (("date-time", _is_date_time), ("time", _is_time)):
        if name not in checker.checkers:
            checker.checks(name)(check)
    return checker


_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})", re.ASCII)
_TIME = re.compile(r"\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})", re.ASCII)


def _is_date_time(value: object) -> bool:
    if not isinstance(value, str):
        return True  # formats apply to strings only
    if not _DATE_TIME.fullmatch(value):
        return False
    try:
        datetime.datetime.fromisoformat(value.upper().replace("Z", "+00:00").replace(" ", "T"))
    except ValueError:
        return False
    return True


def _is_time(value: object) -> bool:
    if not isinstance(value, str):
        return True
    return _TIME.fullmatch(value) is not None and _is_date_time(f"2000-01-01T{value}")


# --- problems in words ------------------------------------------------------------------------


def _words(error: ValidationError, seen: dict[tuple[Any, ...], int]) -> Iterator[str]:
    """One jsonschema error as problems worded like the compact validator's (one per unknown property).

    jsonschema yields one `required` error per missing name, in the keyword's order, without the name:
    `seen` counts them per keyword and place, so the n-th is the n-th missing name."""
    path = tuple(error.absolute_path)
    keyword = error.validator
    instance = error.instance
    if keyword == "required" and isinstance(instance, dict):
        missing = [name for name in cast(Any, error.validator_value) if name not in instance]
        key = (path, id(error.schema))
        index = seen[key] = seen.get(key, -1) + 1
        if index < len(missing):
            yield _missing(path, missing[index])
        return
    if keyword == "additionalProperties" and isinstance(instance, dict) and isinstance(error.schema, Mapping):
        for name in _unknown(error.schema, instance):
            yield _unknown_name(path, name)
        return
    yield cut(f"{place(path)} {_problem(error)}", MAX_TEXT)


def _worded(violation: Violation) -> str:
    if not violation.path and violation.keyword == "required":
        return _missing((), violation.name)
    if not violation.path and violation.keyword == "additionalProperties":
        return _unknown_name((), str(violation.name))
    return cut(f"{place(violation.path)} {violation.message}", MAX_TEXT)


def _problem(error: ValidationError) -> str:
    keyword, expected, instance = error.validator, cast(Any, error.validator_value), cast(Any, error.instance)
    if keyword in _WORDED:
        return cut(Violation((), str(keyword), expected, instance).message, MAX_TEXT)
    if keyword is None:  # a `false` schema
        return "is not allowed here"
    if keyword == "items" and expected is False and isinstance(error.schema, Mapping):
        allowed = len(error.schema.get("prefixItems", []))
        return f"must hold at most {allowed} item{'' if allowed == 1 else 's'}, not {len(instance)}"
    if keyword in {"anyOf", "oneOf"}:
        options = " or ".join(describe_schema(option) for option in expected)
        if keyword == "oneOf" and not error.context:
            return f"must match exactly one of {options}, but matches more than one"
        closest = _closest(error)
        return f"must be {options}, not {_shown(instance)}" + (f" ({closest})" if closest else "")
    if keyword == "not":
        return f"must not be {describe_schema(expected)}"
    if keyword == "format":
        return f"must be a valid {expected}, not {_shown(instance)}"
    if keyword == "uniqueItems":
        return "must not hold the same item twice"
    if keyword == "multipleOf":
        return f"must be a multiple of {_shown(expected)}, not {_shown(instance)}"
    return cut(error.message, MAX_TEXT)


def _closest(error: ValidationError) -> str:
    """Of the alternatives an `anyOf`/`oneOf` value failed, the one it came nearest to (of its type, the
    fewest problems) and what that one says: the model learns which field to fix, not just the options."""
    groups: dict[Any, list[ValidationError]] = {}
    for sub in error.context or ():
        groups.setdefault(sub.relative_schema_path[0], []).append(sub)
    depth = len(error.absolute_path)
    near = {
        index: subs
        for index, subs in groups.items()
        if not any(sub.validator == "type" and len(sub.absolute_path) == depth for sub in subs)
    }
    if not near:
        return ""  # the value is of no alternative's type: the options said it
    index, subs = min(near.items(), key=lambda item: len(item[1]))
    seen: dict[tuple[Any, ...], int] = {}
    words = [word for sub in subs for word in _words(sub, seen)]
    options = cast(Any, error.validator_value)
    name = describe_schema(options[index]) if isinstance(index, int) and index < len(options) else "nearest"
    return f"as {name}: " + "; ".join(words[:3])


def _unknown(schema: Mapping[str, Any], instance: dict[str, Any]) -> list[str]:
    """The properties `additionalProperties: false` refused: neither named nor matched by a pattern."""
    named = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    return [name for name in instance if name not in named and not any(re.search(p, name) for p in patterns)]


def _missing(path: tuple[Any, ...], name: object) -> str:
    return f"missing required argument {name!r}" if not path else f"{place(path)} is missing required property {name!r}"


def _unknown_name(path: tuple[Any, ...], name: str) -> str:
    return f"unknown argument {name!r}" if not path else f"{place(path)} has unknown property {name!r}"


def place(path: tuple[Any, ...]) -> str:
    """Where a problem is in the arguments: `argument 'order'['items'][0]`, or `the arguments` for the whole."""
    if not path:
        return "the arguments"
    first, *rest = path
    return "argument " + repr(first) + "".join(f"[{part!r}]" for part in rest)


def _pointer(path: Any) -> str:
    return "#" + "".join(f"/{part}" for part in path)


def _shown(value: object) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return cut(text, MAX_SHOWN)


def describe_schema(schema: object) -> str:
    """What a schema accepts in a few words; a `$ref` by the name it points at (`Card or Bank`)."""
    if isinstance(schema, Mapping):
        if isinstance(schema.get("$ref"), str):
            return str(schema["$ref"]).rsplit("/", 1)[-1]
        for keyword in ("anyOf", "oneOf"):
            if isinstance(schema.get(keyword), list) and schema[keyword]:
                return " or ".join(describe_schema(option) for option in schema[keyword])
        if isinstance(schema.get("allOf"), list):
            parts = [describe_schema(part) for part in schema["allOf"]]
            return " and ".join(part for part in parts if part != "any value") or "any value"
        return cut(describe(schema), MAX_TEXT)
    return describe(schema) if isinstance(schema, bool) else "any value"
