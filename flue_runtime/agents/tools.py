"""Tools: a name, a description, a JSON-schema parameter spec any provider takes, and a function.

A typed Python function becomes a tool: its signature gives the schema, its docstring
the description (first paragraph) and the parameter descriptions (an `Args:` section).
A parameter annotated `ToolContext` is left out of the schema: the harness fills it in.
"""

from __future__ import annotations

import enum
import inspect
import json
import re
import types
import typing
import weakref
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Union

from flue_runtime.agents.context import ToolContext
from flue_runtime.errors import SchemaError, ToolArgumentError, ToolDefinitionError
from flue_runtime.format.schema_validator import Validator, Violation, describe

ToolFunction = Callable[..., Any]
#: Names the harness itself provides; a user tool may not take them.
RESERVED = frozenset(
    {"activate_skill", "read_skill_resource", "find_skills", "run_skill_script", "read", "write", "ls"}
)
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]
    function: Callable[..., Any | Awaitable[Any]]
    #: The parameter that receives the running session's `ToolContext`, if the function has one.
    context: str | None = None
    #: `parameters` compiled, here unless given (the harness compiles its constant definitions once
    #: per process, not at every turn); a keyword the validator cannot honour is refused here, not ignored later.
    validator: Validator | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.validator is not None:
            return
        try:
            validator = Validator(self.parameters)
        except SchemaError as exc:
            raise ToolDefinitionError(f"tool {self.name!r}: its parameter schema {exc}") from exc
        object.__setattr__(self, "validator", validator)

    def spec(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "parameters": self.parameters}

    def check_arguments(self, arguments: object) -> dict[str, Any]:
        """The arguments as keyword arguments, or `ToolArgumentError` saying what is wrong."""
        assert self.validator is not None  # compiled in __post_init__
        return check_arguments(self.name, self.validator, arguments)


def defined_tool(spec: Mapping[str, Any], function: Callable[..., Any | Awaitable[Any]]) -> Tool:
    """One of the harness's constant tool definitions (`{"name", "description", "parameters"}`, never
    changed) calling `function`: the harness binds them to each turn's skills and sandbox, and compiling
    their schemas at every turn cost a fifth of a turn."""
    parameters = spec["parameters"]
    kept = _DEFINED.get(id(parameters))
    if kept is None or kept[0] is not parameters:
        kept = _DEFINED[id(parameters)] = (parameters, Validator(parameters))
    return Tool(spec["name"], spec["description"], parameters, function, validator=kept[1])


#: Each constant definition's schema, compiled: by the identity of its `parameters` (held here, so the
#: identity is never reused), for a handful of module-level dictionaries.
_DEFINED: dict[int, tuple[dict[str, Any], Validator]] = {}


def tool_from_function(function: ToolFunction | Tool, name: str | None = None, description: str | None = None) -> Tool:
    """A `Tool` from a typed function (sync or async); a `Tool` is returned as it is."""
    if isinstance(function, Tool):
        return function
    if not callable(function):
        raise ToolDefinitionError(f"use_tool() takes a function or a Tool, not {type(function).__name__}")
    # An agent offers its tools at every render: read each function's signature once.
    try:
        made = _MADE.setdefault(function, {})
    except TypeError:  # a callable that cannot be weakly referenced (a builtin): described every time
        made = {}
    key = (name, description)
    if key not in made:
        tool = _described(function, name, description)
        made[key] = (tool.name, tool.description, tool.parameters, tool.context, tool.validator)
    tool_name, text, parameters, context, validator = made[key]
    return Tool(tool_name, text, parameters, function, context, validator)


#: Each function's tool definitions by (name, description) given, without the function (so an entry
#: goes when its function does).
_MADE: weakref.WeakKeyDictionary[
    Callable[..., Any],
    dict[tuple[str | None, str | None], tuple[str, str, dict[str, Any], str | None, Validator | None]],
] = weakref.WeakKeyDictionary()


def _described(function: ToolFunction, name: str | None, description: str | None) -> Tool:
    """The tool a function's signature, type hints and docstring describe."""
    tool_name: str = name or str(getattr(function, "__name__", ""))
    if not _NAME.match(tool_name):
        raise ToolDefinitionError(
            f"tool name {tool_name!r} must be 1-64 letters, digits, `_` or `-`, starting with a letter"
        )
    summary, arg_docs = _parse_docstring(inspect.getdoc(function) or "")
    try:
        hints = typing.get_type_hints(function)
    except Exception as exc:  # unresolvable forward references
        raise ToolDefinitionError(f"tool {tool_name!r}: cannot read its type hints: {exc}") from exc
    properties: dict[str, Any] = {}
    required: list[str] = []
    context: str | None = None
    for param in inspect.signature(function).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ToolDefinitionError(
                f"tool {tool_name!r}: *args and **kwargs cannot be described to a model; name each parameter"
            )
        if param.name not in hints:
            raise ToolDefinitionError(f"tool {tool_name!r}: parameter {param.name!r} needs a type annotation")
        if hints[param.name] is ToolContext:
            if context is not None:
                raise ToolDefinitionError(f"tool {tool_name!r}: only one parameter can take the ToolContext")
            context = param.name
            continue
        schema, _ = _schema_for(hints[param.name], f"tool {tool_name!r}, parameter {param.name!r}")
        if param.name in arg_docs:
            schema["description"] = arg_docs[param.name]
        if param.default is not param.empty and isinstance(param.default, (str, int, float, bool)):
            schema["default"] = param.default.value if isinstance(param.default, enum.Enum) else param.default
        properties[param.name] = schema
        if param.default is param.empty:
            required.append(param.name)
    parameters: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        parameters["required"] = required
    text = description or summary
    if not text:
        raise ToolDefinitionError(
            f"tool {tool_name!r} needs a docstring: the model reads it to know when to call the tool"
        )
    return Tool(tool_name, text, parameters, function, context)


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """The first paragraph, and `name: text` lines from a Google-style `Args:` section."""
    paragraphs = doc.strip().split("\n\n")
    summary = " ".join(paragraphs[0].split()) if paragraphs and not paragraphs[0].startswith("Args:") else ""
    args: dict[str, str] = {}
    section = re.search(r"^(?:Args|Arguments|Parameters):\s*\n((?:[ \t]+.*\n?)+)", doc, re.MULTILINE)
    if section:
        current = None
        for line in section.group(1).splitlines():
            match = re.match(r"^\s+(\w+)(?:\s*\([^)]*\))?:\s*(.*)$", line)
            if match:
                current = match.group(1)
                args[current] = match.group(2).strip()
            elif current and line.strip():
                args[current] += " " + line.strip()
    return summary, args


_SIMPLE: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _schema_for(annotation: Any, where: str) -> tuple[dict[str, Any], bool]:
    """JSON Schema for a type annotation, and whether None is allowed."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1:
            return _schema_for(rest[0], where)[0], len(rest) != len(args)
        return {"anyOf": [_schema_for(a, where)[0] for a in rest]}, len(rest) != len(args)
    if annotation in _SIMPLE:
        return {"type": _SIMPLE[annotation]}, False
    if origin is Literal:
        return {"enum": list(args)}, False
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return {"enum": [member.value for member in annotation]}, False
    if origin in (list, tuple, set, frozenset) or annotation in (list, tuple):
        item = args[0] if args else str
        return {"type": "array", "items": _schema_for(item, where)[0]}, False
    if origin is dict or annotation is dict:
        schema: dict[str, Any] = {"type": "object"}
        if len(args) == 2:
            schema["additionalProperties"] = _schema_for(args[1], where)[0]
        return schema, False
    if annotation is Any:
        return {}, False
    raise ToolDefinitionError(
        f"{where}: type {annotation!r} cannot be described to a model; use str, int, float, bool, Literal, an Enum, list or dict"
    )


def check_arguments(name: str, parameters: dict[str, Any] | Validator, arguments: object) -> dict[str, Any]:
    """`arguments` checked against the tool's parameter schema, every keyword honoured; `ToolArgumentError` lists each problem."""
    if isinstance(arguments, str):  # a provider adapter hands on argument text that was not JSON
        raise ToolArgumentError(f"{name}: the arguments are {_json_problem(arguments)}; send one JSON object")
    if not isinstance(arguments, dict):
        raise ToolArgumentError(f"{name}: arguments must be a JSON object, not {type(arguments).__name__}")
    validator = parameters if isinstance(parameters, Validator) else Validator(parameters)
    problems = [_problem(violation) for violation in validator.violations(arguments)]
    if problems:
        properties: dict[str, Any] = (
            validator.schema.get("properties", {}) if isinstance(validator.schema, dict) else {}
        )
        expected = ", ".join(f"{k}: {describe(v)}" for k, v in properties.items())
        raise ToolArgumentError(f"{name}: " + "; ".join(problems) + f" (parameters: {expected or 'none'})")
    return {key: _as_declared(value, _property(validator.schema, key)) for key, value in arguments.items()}


def _problem(violation: Violation) -> str:
    if not violation.path and violation.keyword == "required":
        return f"missing required argument {violation.name!r}"
    if not violation.path and violation.keyword == "additionalProperties":
        return f"unknown argument {violation.name!r}"
    if not violation.path:
        return f"the arguments {violation.message}"
    first, *rest = violation.path
    where = repr(first) + "".join(f"[{part!r}]" for part in rest)
    return f"argument {where} {violation.message}"


def _property(schema: object, key: str) -> object:
    if not isinstance(schema, dict):
        return True
    properties = schema.get("properties", {})
    return properties[key] if key in properties else schema.get("additionalProperties", True)


def _as_declared(value: object, schema: object) -> object:
    """JSON Schema counts 3.0 as an integer; a function annotated `int` gets 3, in lists and mappings too."""
    if not isinstance(schema, dict):
        return value
    if isinstance(value, float) and schema.get("type") == "integer":
        return int(value)
    if isinstance(value, list) and "items" in schema:
        return [_as_declared(item, schema["items"]) for item in value]
    if isinstance(value, dict) and schema.get("type") == "object":
        return {key: _as_declared(item, _property(schema, key)) for key, item in value.items()}
    return value


def _json_problem(text: str) -> str:
    try:
        json.loads(text)
    except ValueError as exc:
        return f"not valid JSON ({exc})"
    return "text, not a JSON object"
