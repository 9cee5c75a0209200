"""The skill-name rule, explained: which part of a bad name breaks it, and a name that would not.

The rule itself is the schema's (`properties.name`): whether a name is valid is the
schema's answer, and the limit in every message is its `maxLength`. This module only
puts a failure into words and proposes a fix.
"""

from __future__ import annotations

import re
import unicodedata

from flue_runtime.format.messages import piece
from flue_runtime.format.schema import field_rule, field_validator

__all__ = ["NAME_MAX", "is_valid_name", "name_problems", "suggest_name"]


NAME_MAX: int = field_rule("name")["maxLength"]


def is_valid_name(name: str) -> bool:
    return field_validator("name").is_valid(name)


def name_problems(name: str) -> list[str]:
    """Every way `name` breaks the rule, in words; empty when it is valid."""
    found = field_validator("name").violations(name)
    if not found:
        return []
    if not name:
        return [piece("name: empty")]
    problems: list[str] = []
    if len(name) > NAME_MAX:
        problems.append(piece("name: too long", length=len(name), limit=NAME_MAX))
    if any(c.isupper() for c in name):
        problems.append(piece("name: uppercase"))
    odd = sorted({c for c in name if not ("a" <= c <= "z" or "0" <= c <= "9" or c == "-") and not c.isupper()})
    non_ascii = [c for c in odd if not c.isascii()]
    other = [c for c in odd if c.isascii()]
    if non_ascii:
        chars = ", ".join(piece("name: not ascii char", char=c, code=ord(c)) for c in non_ascii)
        problems.append(piece("name: not ascii", chars=chars))
    if other:
        problems.append(piece("name: other chars", chars=", ".join(repr(c) for c in other)))
    if name.startswith("-"):
        problems.append(piece("name: leading hyphen"))
    if name.endswith("-"):
        problems.append(piece("name: trailing hyphen"))
    if "--" in name:
        problems.append(piece("name: double hyphen"))
    # A rule added to the schema that the words above do not cover is still explained.
    return problems or [violation.message for violation in found]


def suggest_name(text: str) -> str:
    """A valid name close to `text` (ASCII-folded, lowercased, hyphenated), or '' if none."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    slug = re.sub(r"[^a-z0-9]+", "-", folded).strip("-")
    return slug[:NAME_MAX].rstrip("-")
