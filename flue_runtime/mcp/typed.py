"""SKILL.md frontmatter as JSON, typed the way a standard YAML loader types it.

The Skills extension carries each skill's frontmatter "rendered verbatim as a JSON object", and
hosts compare it field by field with what their own YAML loader makes of the SKILL.md they
download. So `user-invocable: false` must arrive as JSON `false` and `build: 7` as `7`, while the
skill rules (`format/`) keep reading every value as a string.

The types are those of the YAML 1.2 core schema, which current loaders (and the official MCP
conformance suite) use: `true`/`false`, `null`/`~`/empty, decimal, `0o` and `0x` integers,
floats. YAML 1.1 readings that JSON cannot carry or that 1.2 loaders do not make stay the text
written: `yes`/`no`/`on`/`off`, dates and timestamps (`2024-05-01`), `1_000`, `1:30`, `.inf`,
`.nan`, and scalars under tags other than the core ones. Keys are the text written.

Only text our strict reader (`format/frontmatter.parse`) accepted comes here: one document, no
aliases, bounded size and nesting. That reader owns those rules; this module only types.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import yaml

from flue_runtime.errors import SkillError
from flue_runtime.format.diagnostics import diagnostic
from flue_runtime.format.frontmatter import Frontmatter
from flue_runtime.format.yaml_types import CORE_BOOL, CORE_FLOAT, CORE_INT, CORE_NULL, core_value

__all__ = ["typed"]


_CORE = "tag:yaml.org,2002:"

#: The YAML 1.2 core schema's tags, each with the forms it takes (`!!float 1` stays "1": the form of an int).
_FORMS: dict[str, Callable[[str], object]] = {
    _CORE + "null": CORE_NULL.fullmatch,
    _CORE + "bool": CORE_BOOL.fullmatch,
    _CORE + "int": CORE_INT.fullmatch,
    _CORE + "float": lambda text: CORE_FLOAT.fullmatch(text) and not CORE_INT.fullmatch(text),
}

_NO_KEY: Any = object()


def typed(parsed: Frontmatter) -> dict[str, Any]:
    """The frontmatter `parsed` holds (its `data` has every value a string), with its YAML types: a JSON object."""
    if parsed.data is None:
        raise SkillError(parsed.diagnostics, parsed.path)
    # The parser the strict reader uses (libyaml's when PyYAML has it), so both read the text alike.
    parser: Any = getattr(getattr(yaml, "cyaml", None), "CParser", yaml.BaseLoader)(parsed.yaml)
    root: Any = None
    stack: list[list[Any]] = []  # [the mapping or list being filled, the key whose value comes next]
    try:
        while (event := parser.get_event()) is not None:
            value: Any
            if isinstance(event, yaml.ScalarEvent):
                frame = stack[-1] if stack else None
                if frame is not None and isinstance(frame[0], dict) and frame[1] is _NO_KEY:
                    frame[1] = event.value  # a key: the text written (the strict reader refused other keys)
                    continue
                value = _scalar(event)
            elif isinstance(event, yaml.MappingStartEvent):
                value = {}
            elif isinstance(event, yaml.SequenceStartEvent):
                value = []
            else:
                if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                    stack.pop()
                continue  # stream and document marks (the strict reader refused aliases)
            if not stack:
                root = value
            elif isinstance(stack[-1][0], list):
                stack[-1][0].append(value)
            else:
                stack[-1][0].setdefault(stack[-1][1], value)  # a duplicate key: the first stays, as in `data`
                stack[-1][1] = _NO_KEY
            if isinstance(value, (dict, list)):
                stack.append([value, _NO_KEY])
    except yaml.YAMLError as exc:  # never seen: the strict reader's own parser read this text
        problem = diagnostic("FLU106 other", parsed.path, parsed.first_line, 1, problem=exc)
        raise SkillError([problem], parsed.path) from None
    finally:
        parser.dispose()
    assert isinstance(root, dict)  # the strict reader accepted a mapping
    return root


def _scalar(event: yaml.ScalarEvent) -> Any:
    """A scalar's JSON value: the core schema's type for a plain scalar or a core tag whose form it fits."""
    text, tag = event.value, event.tag
    plain = tag is None and event.implicit[0]  # plain, untagged: the type its form says
    if not plain and not (tag in _FORMS and _FORMS[tag](text)):
        return text  # quoted, a block, `!`, any other tag, or a form its tag does not take
    value = core_value(text)
    return text if isinstance(value, float) and not math.isfinite(value) else value  # JSON has no infinity
