"""A typed function's parameters as the JSON Schema a model sees, and the model's JSON turned back into
the declared types.

Each annotation maps to a schema and a converter: `tuple[int, str]` is an array of exactly an integer
then a string and reaches the function as a tuple; `set[str]` is an array of unique strings and arrives
as a set; an `Enum` is the enum of its values and arrives as the member; a dataclass, `TypedDict` or
pydantic model is an object and arrives as an instance (a dict for a `TypedDict`). Converters run after
the arguments were validated, so for most types they only rebuild; they raise `ToolFailure` when a value is
not of their type, which lets a union try its next alternative.

pydantic is never imported here: a class is a pydantic model only if pydantic is already loaded (the
class could not exist otherwise). Its schema is pydantic's own (`$defs` shared by every model of the tool).
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import sys
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Union

from flue_runtime.agents.context import ToolContext
from flue_runtime.agents.json_schema import place
from flue_runtime.errors import AgentError, ToolFailure
from flue_runtime.format.schema_validator import describe, equal, json_type

__all__ = ["Convert", "Parameters", "Shape", "parameters_of"]


Path = tuple[str | int, ...]
Convert = Callable[[Any, Path], Any]


@dataclass(frozen=True)
class Shape:
    """One annotation: the schema a model sees and how a valid JSON value becomes the declared type."""

    schema: dict[str, Any]
    convert: Convert
    #: Whether the converted value can go in a set (a `set[...]` of it is refused otherwise).
    hashable: bool = True


@dataclass
class Parameters:
    """A function's parameters: the tool's schema, the parameter taking the `ToolContext`, the converter."""

    schema: dict[str, Any]
    context: str | None
    converters: dict[str, Convert]
    #: Whether pydantic wrote part of the schema (its `$defs`, its formats): then only jsonschema applies it.
    pydantic: bool = False

    def convert(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Valid arguments as the declared types; `ToolFailure` lists what a type (a pydantic model, a
        dataclass's `__post_init__`) refused beyond the schema."""
        converted: dict[str, Any] = {}
        problems: list[str] = []
        for key, value in arguments.items():
            try:
                converted[key] = self.converters[key](value, (key,)) if key in self.converters else value
            except ToolFailure as exc:
                problems.extend(exc.problems)
        if problems:
            raise ToolFailure(*problems)
        return converted


def parameters_of(
    function: Callable[..., Any], hints: Mapping[str, Any], docs: Mapping[str, str], where: str
) -> Parameters:
    """The tool schema of `function`'s signature (`hints` resolved, `docs` from its docstring's Args)."""
    shapes = _Shapes()
    properties: dict[str, Any] = {}
    required: list[str] = []
    converters: dict[str, Convert] = {}
    context: str | None = None
    for param in inspect.signature(function).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise AgentError(f"{where}: *args and **kwargs cannot be described to a model; name each parameter")
        if param.name not in hints:
            raise AgentError(f"{where}: parameter {param.name!r} needs a type annotation")
        if hints[param.name] is ToolContext:
            if context is not None:
                raise AgentError(f"{where}: only one parameter can take the ToolContext")
            context = param.name
            continue
        shape = shapes.shape(hints[param.name], f"{where}, parameter {param.name!r}")
        schema = shape.schema
        if param.name in docs:
            schema["description"] = docs[param.name]
        if param.default is not param.empty:
            default = param.default.value if isinstance(param.default, enum.Enum) else param.default
            if default is None or isinstance(default, (str, int, float, bool)):
                schema["default"] = default
        else:
            required.append(param.name)
        properties[param.name] = schema
        converters[param.name] = shape.convert
    parameters: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        parameters["required"] = required
    definitions = shapes.definitions(where)
    if definitions:
        parameters["$defs"] = definitions
    return Parameters(parameters, context, converters, pydantic=bool(shapes.models))


_SIMPLE: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_SUPPORTED = (
    "str, int, float, bool, None, Any, Literal, an Enum, list, tuple, set, frozenset, dict[str, ...], "
    "a TypedDict, a dataclass, a pydantic model, or a union of them"
)


@dataclass
class _Shapes:
    """Shapes for one function: the pydantic models met (their schemas come from pydantic at the end,
    sharing one `$defs`) and the classes being expanded (a recursive one is refused, not looped on)."""

    models: list[tuple[type, dict[str, Any]]] = field(default_factory=list)
    expanding: list[type] = field(default_factory=list)

    def shape(self, annotation: Any, where: str) -> Shape:
        origin = typing.get_origin(annotation)
        args = typing.get_args(annotation)
        if origin in (Union, types.UnionType):
            return _union([self.shape(arg, where) for arg in args])
        if annotation is None or annotation is type(None):
            return Shape({"type": "null"}, _null)
        if annotation in _SIMPLE:
            return Shape({"type": _SIMPLE[annotation]}, _SCALARS[annotation])
        if annotation is Any:
            return _any()
        if origin is Literal:
            return _choice(list(args), where)
        if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
            return _choice(list(annotation), where)
        if annotation is list or origin is list:
            return _list(self._item(args, where))
        if annotation is tuple or origin is tuple:
            if annotation is tuple or (len(args) == 2 and args[1] is Ellipsis):
                return _variadic_tuple(self._item(args, where))
            return _fixed_tuple([self.shape(arg, where) for arg in args])
        if annotation in (set, frozenset) or origin in (set, frozenset):
            return _set(self._item(args, where), origin or annotation, where)
        if annotation is dict or origin is dict:
            if args and args[0] not in (str, Any):
                raise AgentError(
                    f"{where}: {annotation!r} has keys of {args[0]!r}, but a JSON object's keys are strings; "
                    "use dict[str, ...]"
                )
            return _dict(self._item(args[1:], where))
        if annotation is ToolContext:
            raise AgentError(f"{where}: the ToolContext can only be a parameter of its own")
        if isinstance(annotation, type) and typing.is_typeddict(annotation):
            return self._typeddict(annotation, where)
        if isinstance(annotation, type) and dataclasses.is_dataclass(annotation):
            return self._dataclass(annotation, where)
        if _is_pydantic_model(annotation):
            return self._pydantic(annotation)
        raise AgentError(f"{where}: type {annotation!r} cannot be described to a model; use {_SUPPORTED}")

    def _item(self, args: tuple[Any, ...], where: str) -> Shape | None:
        """A container's item (the first of `args`), or None for any value (`list`, `list[Any]`)."""
        return None if not args or args[0] is Any else self.shape(args[0], where)

    def _fields(self, cls: type, where: str) -> dict[str, Any]:
        if cls in self.expanding:
            raise AgentError(
                f"{where}: {cls.__name__} contains itself, which an inline schema cannot describe; "
                "make it a pydantic model (its schema refers to itself) or break the cycle"
            )
        try:
            return typing.get_type_hints(cls)
        except Exception as exc:  # unresolvable forward references
            raise AgentError(f"{where}: cannot read the type hints of {cls.__name__}: {exc}") from exc

    def _typeddict(self, cls: type, where: str) -> Shape:
        hints = self._fields(cls, where)
        self.expanding.append(cls)
        shapes = {name: self.shape(hint, f"{where}, key {name!r}") for name, hint in hints.items()}
        self.expanding.pop()
        marked = typing.get_type_hints(cls, include_extras=True)
        required = [name for name in hints if _required_key(cls, name, marked[name])]
        return Shape(_object(shapes, required), _record(shapes, dict, cls.__name__), hashable=False)

    def _dataclass(self, cls: type, where: str) -> Shape:
        hints = self._fields(cls, where)
        fields = [f for f in dataclasses.fields(cls) if f.init]
        self.expanding.append(cls)
        shapes = {f.name: self.shape(hints[f.name], f"{where}, field {f.name!r}") for f in fields}
        self.expanding.pop()
        required = [
            f.name for f in fields if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        ]
        return Shape(_object(shapes, required), _record(shapes, cls, cls.__name__), hashable=cls.__hash__ is not None)

    def _pydantic(self, model: type) -> Shape:
        placeholder: dict[str, Any] = {}  # pydantic's `$ref` goes here once every model is known
        self.models.append((model, placeholder))
        validate: Callable[[Any], Any] = typing.cast(Any, model).model_validate
        error: type[Exception] = sys.modules["pydantic"].ValidationError

        def convert(value: Any, path: Path) -> Any:
            try:
                return validate(value)
            except error as exc:
                details = exc.errors()  # type: ignore[attr-defined]
                raise ToolFailure(*(f"{place((*path, *item['loc']))}: {item['msg']}" for item in details)) from None

        return Shape(placeholder, convert, hashable=model.__hash__ is not None)

    def definitions(self, where: str) -> dict[str, Any]:
        """pydantic's schemas for the models met, shared: each place holding one refers to `#/$defs/Name`."""
        if not self.models:
            return {}
        from pydantic.json_schema import models_json_schema  # pydantic is loaded: a model of it was met

        models = list(dict.fromkeys(model for model, _ in self.models))
        try:
            refs, top = models_json_schema([(model, "validation") for model in models])
        except Exception as exc:  # pydantic's own refusal of a model it cannot describe
            raise AgentError(f"{where}: pydantic cannot write the schema of its models: {exc}") from exc
        for model, placeholder in self.models:
            placeholder.update(refs[(model, "validation")])
        return dict(top.get("$defs", {}))


def _required_key(cls: type, name: str, hint: Any) -> bool:
    """Whether a `TypedDict` requires `name`: `Required`/`NotRequired` where written, which `__required_keys__`
    misses when annotations are strings (`from __future__ import annotations`), else its totality."""
    marked = typing.get_origin(hint)
    if marked is typing.NotRequired:
        return False
    return marked is typing.Required or name in getattr(cls, "__required_keys__", ())


def _is_pydantic_model(annotation: object) -> bool:
    pydantic = sys.modules.get("pydantic")
    return pydantic is not None and isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel)


# --- converters -------------------------------------------------------------------------------


def _refuse(path: Path, expected: str, value: object) -> ToolFailure:
    return ToolFailure(f"{place(path)} must be {expected}, not {json_type(value)}")


def _null(value: Any, path: Path) -> Any:
    if value is not None:
        raise _refuse(path, "null", value)
    return None


def _anything(value: Any, path: Path) -> Any:
    return value


def _string(value: Any, path: Path) -> Any:
    if not isinstance(value, str):
        raise _refuse(path, "string", value)
    return value


def _boolean(value: Any, path: Path) -> Any:
    if not isinstance(value, bool):
        raise _refuse(path, "boolean", value)
    return value


def _integer(value: Any, path: Path) -> Any:
    """JSON Schema counts 3.0 as an integer (jsonschema too); a function annotated `int` gets 3."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise _refuse(path, "integer", value)


def _number(value: Any, path: Path) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    raise _refuse(path, "number", value)


_SCALARS: dict[Any, Convert] = {str: _string, int: _integer, float: _number, bool: _boolean}


def _any() -> Shape:
    return Shape({}, _anything, hashable=False)


def _union(shapes: list[Shape]) -> Shape:
    """`A | B`: `anyOf`; a value becomes the first alternative that takes it (`int | float` makes 3.0 an int)."""
    converters = [shape.convert for shape in shapes]

    def convert(value: Any, path: Path) -> Any:
        problems: list[str] = []
        for each in converters:
            try:
                return each(value, path)
            except ToolFailure as exc:
                problems.extend(exc.problems)
        raise ToolFailure(*problems)

    return Shape({"anyOf": [shape.schema for shape in shapes]}, convert, all(s.hashable for s in shapes))


def _choice(options: list[Any], where: str) -> Shape:
    """`Literal[...]` and `Enum`s: the JSON values a model may send, each turned back into its option."""
    values = [option.value if isinstance(option, enum.Enum) else option for option in options]
    for value in values:
        if value is not None and not isinstance(value, (str, int, float, bool)):
            raise AgentError(
                f"{where}: the value {value!r} is not a JSON string, number, boolean or null; a model can only send those"
            )
    schema: dict[str, Any] = {"const": values[0]} if len(values) == 1 else {"enum": values}
    expected = describe(schema)

    def convert(value: Any, path: Path) -> Any:
        for option, json_value in zip(options, values):
            if equal(value, json_value):
                return option
        raise ToolFailure(f"{place(path)} must be {expected}, not {json_type(value)}")

    return Shape(schema, convert)


def _list(item: Shape | None) -> Shape:
    """`list[T]` (None: of anything). An item's schema may still be empty here: a pydantic model's is
    filled in at the end, so it is kept by reference."""
    each = (item or _any()).convert

    def convert(value: Any, path: Path) -> Any:
        if not isinstance(value, list):
            raise _refuse(path, "array", value)
        return [each(one, (*path, index)) for index, one in enumerate(value)]

    schema: dict[str, Any] = {"type": "array"}
    if item is not None:
        schema["items"] = item.schema
    return Shape(schema, convert, hashable=False)


def _variadic_tuple(item: Shape | None) -> Shape:
    """`tuple[int, ...]`: an array of integers, as a tuple."""
    as_list = _list(item)

    def convert(value: Any, path: Path) -> Any:
        return tuple(as_list.convert(value, path))

    return Shape(as_list.schema, convert, item is not None and item.hashable)


def _fixed_tuple(items: list[Shape]) -> Shape:
    """`tuple[int, str]`: exactly an integer then a string (`prefixItems`, nothing after), as a tuple."""
    schema: dict[str, Any] = {"type": "array"}
    if items:
        schema.update(prefixItems=[item.schema for item in items], items=False)
    schema.update(minItems=len(items), maxItems=len(items))

    def convert(value: Any, path: Path) -> Any:
        if not isinstance(value, list) or len(value) != len(items):
            raise ToolFailure(f"{place(path)} must be an array of {len(items)} items")
        return tuple(item.convert(each, (*path, index)) for index, (item, each) in enumerate(zip(items, value)))

    return Shape(schema, convert, all(item.hashable for item in items))


def _set(item: Shape | None, kind: Any, where: str) -> Shape:
    """`set[str]`/`frozenset[str]`: an array of unique items (`uniqueItems`), as a set."""
    if item is None or not item.hashable:
        raise AgentError(
            f"{where}: the items of a {kind.__name__} must be hashable (str, int, an Enum, a tuple, a frozen "
            "dataclass...); use list[...] for these"
        )
    as_list = _list(item)
    make: Callable[[Any], Any] = kind

    def convert(value: Any, path: Path) -> Any:
        items = as_list.convert(value, path)
        made = make(items)
        if len(made) != len(items):  # a union's array alternative may hold duplicates; a set would drop them
            raise ToolFailure(f"{place(path)} must not hold the same item twice")
        return made

    return Shape({**as_list.schema, "uniqueItems": True}, convert, kind is frozenset)


def _dict(value_shape: Shape | None) -> Shape:
    """`dict[str, T]` (None: of anything)."""
    each = (value_shape or _any()).convert

    def convert(value: Any, path: Path) -> Any:
        if not isinstance(value, dict):
            raise _refuse(path, "object", value)
        return {key: each(one, (*path, key)) for key, one in value.items()}

    schema: dict[str, Any] = {"type": "object"}
    if value_shape is not None:
        schema["additionalProperties"] = value_shape.schema
    return Shape(schema, convert, hashable=False)


def _object(shapes: Mapping[str, Shape], required: list[str]) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {name: shape.schema for name, shape in shapes.items()},
        "additionalProperties": False,
    }
    if required:
        schema["required"] = required
    return schema


def _record(shapes: Mapping[str, Shape], make: Callable[..., Any], name: str) -> Convert:
    """A dataclass or `TypedDict`: each field converted, then the class called (a dict for a `TypedDict`)."""

    def convert(value: Any, path: Path) -> Any:
        if not isinstance(value, dict):
            raise _refuse(path, "object", value)
        unknown = [key for key in value if key not in shapes]
        if unknown:
            raise ToolFailure(*(f"{place(path)} has unknown property {key!r}" for key in unknown))
        fields = {key: shapes[key].convert(each, (*path, key)) for key, each in value.items()}
        try:
            return make(**fields)
        except (TypeError, ValueError) as exc:  # a missing field, or the class's own check (`__post_init__`)
            raise ToolFailure(f"{place(path)} is not a valid {name}: {exc}") from None

    return convert
