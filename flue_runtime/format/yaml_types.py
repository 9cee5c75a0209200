"""What a plain YAML scalar is to the readers of a SKILL.md: YAML 1.2's core schema, and YAML 1.1's types.

The skill rules read every value as a string (`frontmatter`). The MCP entry we serve types the frontmatter
by YAML 1.2's core schema (`mcp.typed`), as current loaders and the conformance suite do; PyYAML, and so
FastMCP and fast-agent, type it by YAML 1.1 (its resolver's patterns, copied here so that `check` need not
import PyYAML; the 1.1 spec's `y`/`n` booleans too). Where the two disagree (`yes`, `0777`, `0o17`, a date,
`1_000`, `1:30`, `1e3`), a host that compares our entry with its own reading refuses the skill: `check`
warns (FLU215, `validate`). Only a plain scalar is typed: a quoted one, a block or a tagged one is the
text written, to every reader.
"""

from __future__ import annotations

import math
import re
from typing import NamedTuple

__all__ = [
    "CORE_BOOL",
    "CORE_FLOAT",
    "CORE_INT",
    "CORE_NULL",
    "Stamp",
    "core_value",
    "read_otherwise",
    "yaml_1_1_value",
]


# YAML 1.2's core schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution), tried in this order.
CORE_NULL = re.compile(r"null|Null|NULL|~|")
CORE_BOOL = re.compile(r"true|True|TRUE|false|False|FALSE")
CORE_INT = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
CORE_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")

# YAML 1.1 (https://yaml.org/type/): PyYAML's resolver (`yaml/resolver.py`), and the spec's `y`/`n`.
_TRUE_1_1 = frozenset("y Y yes Yes YES true True TRUE on On ON".split())
_FALSE_1_1 = frozenset("n N no No NO false False FALSE off Off OFF".split())
_NULL_1_1 = frozenset(("~", "null", "Null", "NULL", ""))
_INT_1_1 = re.compile(
    r"[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+"
)
_FLOAT_1_1 = re.compile(
    r"[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
    r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
)
_DATE_1_1 = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_TIMESTAMP_1_1 = re.compile(
    r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?"
    r"(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?"
)
#: How every scalar the two read differently starts (a superset, tried first: most values are text or a number
#: both read alike, `7`, `1.0`): a leading zero or a base prefix, `_`, `:` or an exponent after digits, a sign
#: before a dot, `.inf`/`.nan`, a year; and the 1.1 booleans that are text to 1.2.
_MAY_DIFFER = re.compile(
    r"[-+]?0[0-9_oObBxX]|[-+]?\.?[0-9][0-9.]*[_:eE]|[-+]\.|\.(?:inf|Inf|INF|nan|NaN|NAN)|[0-9]{4}-"
)
_WORDS_1_1 = (_TRUE_1_1 | _FALSE_1_1) - {"true", "True", "TRUE", "false", "False", "FALSE"}
_NUMBER_START = frozenset("0123456789+-.")


class Stamp(NamedTuple):
    """A YAML 1.1 date (`2024-05-01`) or timestamp (`2024-05-01T10:00:00Z`): `kind` says which."""

    kind: str
    text: str


def core_value(text: str) -> object:
    """What YAML 1.2's core schema makes of the plain scalar `text`: None, a bool, an int, a float, or the text."""
    if CORE_NULL.fullmatch(text):
        return None
    if CORE_BOOL.fullmatch(text):
        return text.lower() == "true"
    if CORE_INT.fullmatch(text):
        return int(text[2:], 8 if text[1] == "o" else 16) if text.startswith(("0o", "0x")) else int(text, 10)
    if CORE_FLOAT.fullmatch(text):
        return float(text)
    return text


def yaml_1_1_value(text: str) -> object:
    """What a YAML 1.1 reader makes of the plain scalar `text`: None, a bool, an int, a float, a `Stamp`, or the text."""
    if text in _NULL_1_1:
        return None
    if text in _TRUE_1_1 or text in _FALSE_1_1:
        return text in _TRUE_1_1
    if _INT_1_1.fullmatch(text):
        return _int_1_1(text)
    if _FLOAT_1_1.fullmatch(text):
        return _float_1_1(text)
    if _DATE_1_1.fullmatch(text):
        return Stamp("date", text)
    if _TIMESTAMP_1_1.fullmatch(text):
        return Stamp("timestamp", text)
    return text


def may_read_otherwise(text: str) -> bool:
    """Whether YAML 1.1 and 1.2 may read the plain scalar `text` differently (cheap: no value is made)."""
    return text in _WORDS_1_1 or (text[:1] in _NUMBER_START and _MAY_DIFFER.match(text) is not None)


def read_otherwise(text: str) -> tuple[object, object] | None:
    """(YAML 1.1's value, YAML 1.2's) of the plain scalar `text` when they differ, else None."""
    if not may_read_otherwise(text):
        return None
    old, new = yaml_1_1_value(text), core_value(text)
    if type(old) is type(new) and (old == new or (isinstance(old, float) and math.isnan(old) and math.isnan(new))):  # type: ignore[arg-type]
        return None
    return old, new


def _int_1_1(text: str) -> int:
    """PyYAML's `construct_yaml_int`: `_` ignored, `0b` binary, `0x` hexadecimal, a leading 0 octal, `:` base 60."""
    value = text.replace("_", "")
    sign = -1 if value[0] == "-" else 1
    value = value.lstrip("+-")
    if value == "0":
        return 0
    if value.startswith("0b"):
        return sign * int(value[2:], 2)
    if value.startswith("0x"):
        return sign * int(value[2:], 16)
    if value[0] == "0":
        return sign * int(value, 8)
    if ":" in value:
        return sign * int(_base_60([int(part) for part in value.split(":")]))
    return sign * int(value)


def _float_1_1(text: str) -> float:
    """PyYAML's `construct_yaml_float`: `_` ignored, `.inf`, `.nan`, `:` base 60."""
    value = text.replace("_", "").lower()
    sign = -1.0 if value[0] == "-" else 1.0
    value = value.lstrip("+-")
    if value == ".inf":
        return sign * math.inf
    if value == ".nan":
        return math.nan
    if ":" in value:
        return sign * _base_60([float(part) for part in value.split(":")])
    return sign * float(value)


def _base_60(parts: list[int] | list[float]) -> int | float:
    total: int | float = 0
    for part in parts:
        total = total * 60 + part
    return total
