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
import re
from typing import Any

import yaml

from flue_runtime.errors import SkillError
from flue_runtime.format.diagnostics import diagnostic
from flue_runtime.format.frontmatter import Frontmatter

__all__ = ["typed"]


_CORE = "tag:yaml.org,2002:"
_NULL = re.compile(r"null|Null|NULL|~|")
_BOOL = re.compile(r"true|True|TRUE|false|False|FALSE")
_INT = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")

#: The YAML 1.2 core schema's tags for a plain scalar without one, tried in this order.
_IMPLICIT = ((_CORE + "null", _NULL), (_CORE + "bool", _BOOL), (_CORE + "int", _INT), (_CORE + "float", _FLOAT))

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
    if tag is None and event.implicit[0]:  # plain, untagged: the type its form says
        tag = next((name for name, pattern in _IMPLICIT if pattern.fullmatch(text)), None)
    if tag == _CORE + "null" and _NULL.fullmatch(text):
        return None
    if tag == _CORE + "bool" and _BOOL.fullmatch(text):
        return text.lower() == "true"
    if tag == _CORE + "int" and _INT.fullmatch(text):
        if text.startswith(("0o", "0x")):
            return int(text[2:], 8 if text[1] == "o" else 16)
        return int(text, 10)
    if tag == _CORE + "float" and _FLOAT.fullmatch(text) and not _INT.fullmatch(text):  # `!!float 1` stays "1", too
        number = float(text)
        return number if math.isfinite(number) else text  # JSON has no infinity
    return text  # quoted, a block, `!`, any other tag, or a form its tag does not take
