"""Tools: a name, a description, a JSON-schema parameter spec any provider takes, and a function.

A typed Python function becomes a tool: its signature gives the schema (`tool_schema`), its docstring
the description (first paragraph) and the parameter descriptions (an `Args:` section), and each call's
arguments reach it as the declared types. A parameter annotated `ToolContext` is left out of the
schema: the harness fills it in. A `Tool` made with a schema of its own (hand-written, a pydantic
model's, an MCP server's) gets all of JSON Schema through jsonschema (`json_schema`); the harness's
own tool definitions use the compact validator.
"""

from __future__ import annotations

import inspect
import itertools
import json
import re
import typing
import warnings
import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from flue_runtime.agents.json_schema import MAX_TEXT, JsonSchema, compact_schema, compile_schema, describe_schema
from flue_runtime.agents.tool_schema import parameters_of
from flue_runtime.errors import AgentError, ToolFailure
from flue_runtime.format.diagnostics import cut
from flue_runtime.format.schema_validator import Validator

__all__ = ["MAX_PROBLEMS", "RESERVED", "Tool", "ToolFunction", "check_arguments", "defined_tool", "tool_from_function"]


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
    #: `parameters` compiled: given for the harness's own definitions and for typed functions (the compact
    #: validator where it honours every keyword), else compiled here with jsonschema; a schema that is not
    #: valid JSON Schema, not an object at the top or refers outside itself is refused here.
    validator: JsonSchema | None = field(default=None, repr=False, compare=False)
    #: Valid arguments turned into the types the function declares (a typed function's; else as sent).
    convert: Callable[[Mapping[str, Any]], dict[str, Any]] | None = field(default=None, repr=False, compare=False)
    #: The tool runs code (a shell, an interpreter): while a skill from elsewhere (a remote MCP server, any
    #: `load_skill` source) is active, each call needs the script approval policy's consent (`use_tool(...,
    #: runs_code=True)`; see `agents.scripts.guarded`).
    runs_code: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.validator, Validator):  # as in 0.1 (deprecated, goes in 0.3): the compact validator itself
            warnings.warn(
                "Tool(validator=Validator(schema)) is deprecated: pass "
                "flue_runtime.agents.json_schema.compact_schema(schema), or leave `validator` out",
                DeprecationWarning,
                stacklevel=3,
            )
            object.__setattr__(self, "validator", JsonSchema(self.parameters, self.validator))
        if self.validator is None:
            object.__setattr__(self, "validator", _compiled(self.name, self.parameters))

    def spec(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "parameters": self.parameters}

    def check_arguments(self, arguments: object) -> dict[str, Any]:
        """The arguments as keyword arguments of the declared types, or `ToolFailure` saying what is wrong."""
        assert self.validator is not None  # compiled in __post_init__
        checked = check_arguments(self.name, self.validator, arguments)
        if self.convert is None:
            return checked
        try:
            return self.convert(checked)
        except ToolFailure as exc:  # a check beyond the schema: a pydantic validator, a dataclass's __post_init__
            raise ToolFailure(f"{self.name}: " + "; ".join(_bounded(cut(p, MAX_TEXT) for p in exc.problems))) from None


def _compiled(name: str, parameters: object) -> JsonSchema:
    """A user-supplied schema compiled with jsonschema, or `AgentError` naming the tool and the place."""
    try:
        return compile_schema(parameters)
    except AgentError as exc:
        raise AgentError(f"tool {name!r}: its parameter schema {exc}") from exc


def defined_tool(spec: Mapping[str, Any], function: Callable[..., Any | Awaitable[Any]]) -> Tool:
    """One of the harness's constant tool definitions (`{"name", "description", "parameters"}`, never
    changed) calling `function`: the harness binds them to each turn's skills and sandbox, and compiling
    their schemas at every turn cost a fifth of a turn."""
    parameters = spec["parameters"]
    kept = _DEFINED.get(id(parameters))
    if kept is None or kept[0] is not parameters:
        kept = _DEFINED[id(parameters)] = (parameters, compact_schema(parameters))
    return Tool(spec["name"], spec["description"], parameters, function, validator=kept[1])


#: Each constant definition's schema, compiled: by the identity of its `parameters` (held here, so the
#: identity is never reused), for a handful of module-level dictionaries.
_DEFINED: dict[int, tuple[dict[str, Any], JsonSchema]] = {}


def tool_from_function(function: ToolFunction | Tool, name: str | None = None, description: str | None = None) -> Tool:
    """A `Tool` from a typed function (sync or async); a `Tool` is returned as it is."""
    if isinstance(function, Tool):
        return function
    if not callable(function):
        raise AgentError(f"use_tool() takes a function or a Tool, not {type(function).__name__}")
    # An agent offers its tools at every render: read each function's signature once.
    try:
        made = _MADE.setdefault(function, {})
    except TypeError:  # a callable that cannot be weakly referenced (a builtin): described every time
        made = {}
    key = (name, description)
    if key not in made:
        made[key] = _described(function, name, description)
    tool = made[key]
    return Tool(tool.name, tool.description, tool.parameters, function, tool.context, tool.validator, tool.convert)


#: Each function's tool definitions by (name, description) given, calling a stand-in (so an entry goes
#: when its function does).
_MADE: weakref.WeakKeyDictionary[Callable[..., Any], dict[tuple[str | None, str | None], Tool]] = (
    weakref.WeakKeyDictionary()
)


def _described(function: ToolFunction, name: str | None, description: str | None) -> Tool:
    """The tool a function's signature, type hints and docstring describe (calling nothing: a definition)."""
    tool_name: str = name or str(getattr(function, "__name__", ""))
    if not _NAME.match(tool_name):
        raise AgentError(f"tool name {tool_name!r} must be 1-64 letters, digits, `_` or `-`, starting with a letter")
    summary, arg_docs = _parse_docstring(inspect.getdoc(function) or "")
    try:
        hints = typing.get_type_hints(function)
    except Exception as exc:  # unresolvable forward references
        raise AgentError(f"tool {tool_name!r}: cannot read its type hints: {exc}") from exc
    described = parameters_of(function, hints, arg_docs, f"tool {tool_name!r}")
    text = description or summary
    if not text:
        raise AgentError(f"tool {tool_name!r} needs a docstring: the model reads it to know when to call the tool")
    validator: JsonSchema | None = None
    if not described.pydantic:  # pydantic's schemas may use any keyword: jsonschema applies them
        try:
            validator = compact_schema(described.schema)  # jsonschema not even imported
        except AgentError:
            pass  # a keyword it does not implement (`prefixItems`, `uniqueItems`): jsonschema applies it
    return Tool(
        tool_name,
        text,
        described.schema,
        _definition_only,
        described.context,
        validator if validator is not None else _compiled(tool_name, described.schema),
        described.convert,
    )


def _definition_only(**arguments: Any) -> None:
    raise AssertionError("a cached tool definition is never called")  # pragma: no cover


# Docstrings are read here, not by a parser library: kept by measurement (issue 42). Reading them through
# docstring_parser, or griffe as pydantic-ai does, adds the library's import to every process that makes a typed
# function a tool: more than a few percent of such a process's CPU with docstring_parser, and with griffe more than
# all the rest of it (BENCHMARKS.md, "Issue 42: docstrings, the byte-budget cache, the supervisor's /proc walk"). What is
# read is the Google style's `Args:` section, which mkdocstrings reads for our own docs too
# (tests/test_docs_site.py).
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


#: Problems named in one message at most: a model gets enough to fix its call, not a wall of text.
MAX_PROBLEMS = 10


def check_arguments(name: str, parameters: dict[str, Any] | JsonSchema, arguments: object) -> dict[str, Any]:
    """`arguments` checked against the tool's parameter schema, every keyword honoured; `ToolFailure` lists
    each problem. A plain schema is compiled with the compact validator (the harness's own schemas)."""
    if isinstance(arguments, str):  # a provider adapter hands on argument text that was not JSON
        raise ToolFailure(f"{name}: the arguments are {_json_problem(arguments)}; send one JSON object")
    if not isinstance(arguments, dict):
        raise ToolFailure(f"{name}: arguments must be a JSON object, not {type(arguments).__name__}")
    validator = parameters if isinstance(parameters, JsonSchema) else compact_schema(parameters)
    problems = _bounded(validator.problems(arguments))
    if problems:
        properties = validator.schema.get("properties", {})
        expected = ", ".join(f"{k}: {describe_schema(v)}" for k, v in properties.items())
        raise ToolFailure(f"{name}: " + "; ".join(problems) + f" (parameters: {expected or 'none'})")
    return {key: _as_declared(value, _property(validator.schema, key)) for key, value in arguments.items()}


def _bounded(problems: Iterable[str]) -> list[str]:
    """At most `MAX_PROBLEMS` problems, then how many more (counted up to ten times that). Each argument's first
    problem comes before any argument's second, so a list of bad items cannot hide that another argument is wrong."""
    found = list(itertools.islice(dict.fromkeys(problems), 10 * MAX_PROBLEMS + 1))  # a fact told once
    firsts = {_argument(problem): index for index, problem in reversed(list(enumerate(found)))}
    chosen = sorted(firsts.values())[:MAX_PROBLEMS]
    chosen += [index for index in range(len(found)) if index not in firsts.values()][: MAX_PROBLEMS - len(chosen)]
    shown = [found[index] for index in sorted(chosen)]
    more = len(found) - len(shown)
    if more:
        plus = "+" if len(found) > 10 * MAX_PROBLEMS else ""
        shown.append(f"and {more}{plus} more problem{'s' if more > 1 else ''}")
    return shown


def _argument(problem: str) -> str:
    """The argument a problem is about (`argument 'b'[0] ...` is about 'b'), or the problem itself."""
    named = _ARGUMENT.match(problem)
    return named.group(1) if named else problem


_ARGUMENT = re.compile(r"""argument ('[^']*'|"[^"]*")""")


def _property(schema: object, key: str) -> object:
    if not isinstance(schema, Mapping):
        return True
    properties = schema.get("properties", {})
    return properties[key] if key in properties else schema.get("additionalProperties", True)


def _as_declared(value: object, schema: object) -> object:
    """JSON Schema counts 3.0 as an integer; a tool whose schema says `integer` gets 3, in lists and mappings too
    (a typed function's arguments are then converted to its declared types)."""
    if not isinstance(schema, Mapping):
        return value
    if isinstance(value, float) and schema.get("type") == "integer" and value.is_integer():
        return int(value)
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
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
