"""Diagnostics: one shape for every problem the build, the CLI and the run time report.

Codes are stable (documented in docs/reference/diagnostics.md); messages may improve over time. Each code is
one row of `messages.CODES` (its severity, meaning and words): code that finds a problem calls `diagnostic`
with a key of that table and the values to fill in, and nothing else makes a `Diagnostic`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from enum import StrEnum
from typing import Any, NamedTuple

from flue_runtime.format.messages import CODES, piece, words

__all__ = [
    "PER_FILE",
    "Deferred",
    "Diagnostic",
    "More",
    "Severity",
    "apply_strict",
    "bounded",
    "cut",
    "deferred",
    "diagnostic",
    "format_json",
    "has_errors",
    "printable",
    "printable_json",
    "printable_lines",
    "quoted",
    "summary",
]


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


#: What a terminal acts on, what reorders a line as shown or what no one sees: C0 and C1 controls, DEL,
#: lone surrogates (no terminal or encoder writes them), the bidirectional controls (Trojan Source), the
#: zero-width characters and the Unicode tag characters (`format.hidden_text`).
_HIDDEN = "\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff\U000e0000-\U000e007f"
_UNSAFE = re.compile(f"[\x00-\x1f\x7f-\x9f\ud800-\udfff{_HIDDEN}]")
#: The same, less C0: `json.dumps` escapes those inside strings, and its own line breaks are layout.
_UNSAFE_IN_JSON = re.compile(f"[\x7f-\x9f\ud800-\udfff{_HIDDEN}]")


def printable(text: str, limit: int | None = None) -> str:
    """`text` safe to print on one line: control characters, bidirectional controls and undecodable
    bytes as escapes; with `limit`, then `cut` to that many characters. The one owner of that rule:
    whatever a command prints of what it read (a file name, a skill's description from an installed
    wheel), and whatever a message quotes of what another party sent, goes through it.

    File names are bytes on POSIX; a name that is not UTF-8 arrives with lone surrogates
    (`os.fsdecode`), which no terminal or JSON encoder can write.
    """
    if not (text.isprintable() and text.isascii()):
        text = _UNSAFE.sub(_escape, text)
    return text if limit is None else cut(text, limit)


def printable_lines(text: str) -> str:
    """`text` through `printable` line by line: its line breaks kept (a system prompt, a model's answer), every other
    character a terminal acts on escaped, a carriage return included."""
    return "\n".join(printable(line) for line in text.split("\n"))


def _escape(match: re.Match[str]) -> str:
    code = ord(match[0])
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte, as os.fsdecode keeps it
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x20 or 0x7F <= code < 0xA0:
        return repr(match[0])[1:-1]
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def printable_json(value: object) -> str:
    """`value` as indented JSON that is safe to print: what `printable` escapes is written as a
    `\\uXXXX` escape (JSON reads it back as the same string), everything else as itself."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return _UNSAFE_IN_JSON.sub(lambda match: json.dumps(match[0]).strip('"'), text)


def cut(text: str, limit: int) -> str:
    """`text` in at most `limit` characters, the last an ellipsis when it was cut: the one bound on how much of some
    input a message shows (escape it with `printable` first where a terminal or a model reads it)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def quoted(text: str, limit: int = 200) -> str:
    """`text` as a message quotes what was sent (a path, a name, a query): `repr`, its first `limit` characters and
    its length when longer."""
    return repr(text) if len(text) <= limit else f"{text[:limit]!r}... ({len(text):,} characters)"


@dataclass(frozen=True)
class Diagnostic:
    """A problem at a place: `path:line:col: CODE severity: message`, with a hint to fix it."""

    path: str
    code: str
    message: str
    hint: str = ""
    line: int | None = None
    column: int | None = None
    severity: Severity = Severity.ERROR
    #: The frontmatter field the problem is about, when there is one.
    field: str | None = None

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    @property
    def location(self) -> str:
        if self.line is None:
            return self.path
        return f"{self.path}:{self.line}:{self.column or 1}"

    def strict(self) -> Diagnostic:
        """Strict mode: a warning counts as an error."""
        return replace(self, severity=Severity.ERROR)

    def format(self) -> str:
        text = f"{self.location}: {self.code} {self.severity}: {self.message}"
        if self.hint:
            text += "\n    hint: " + self.hint.replace("\n", "\n          ")
        return text

    def to_dict(self) -> dict[str, object]:
        data = asdict(self)
        data["severity"] = str(self.severity)
        return {key: data[key] for key in ("path", "line", "column", "code", "severity", "message", "hint")}


def diagnostic(
    key: str,
    path: str,
    line: int | None = None,
    column: int | None = None,
    /,
    *,
    field: str | None = None,
    **values: Any,
) -> Diagnostic:
    """The problem `key` of `messages.CODES` words, filled with `values`, at `path` (and `line`, `column`), with
    its code's severity; its code is the key's first word (`FLU304 folder` is a FLU304). `path` and the message
    are made printable (one line, encodable)."""
    message, hint = words(key, **values)
    code = key.partition(" ")[0]
    severity = Severity(CODES[code].severity)
    return Diagnostic(printable(path), code, printable(message), hint, line, column, severity, field)


class Deferred(NamedTuple):
    """`diagnostic(key, path, line, column, **values)` not worded yet: `bounded` words it only if it is reported,
    so a file of 100,000 problems costs their count, not 100,000 messages. `problems`: how many problems of its
    code it stands for, itself first (a scan that keeps the first few and counts the rest)."""

    key: str
    path: str
    line: int | None
    column: int | None
    values: dict[str, Any]
    problems: int = 1

    @property
    def code(self) -> str:
        return self.key.partition(" ")[0]

    def worded(self) -> Diagnostic:
        return diagnostic(self.key, self.path, self.line, self.column, **self.values)


def deferred(
    key: str, path: str, line: int | None = None, column: int | None = None, /, *, problems: int = 1, **values: Any
) -> Deferred:
    """`diagnostic`'s arguments, for `bounded` to word if it reports the problem."""
    return Deferred(key, path, line, column, values, problems)


#: Of each rule's diagnostics about one file, this many are reported, then one `More` says how many others
#: there are (issue 41: every problem of an eval set's every entry was a warning of its own, and `check` printed
#: hundreds of times the file's size).
PER_FILE = 5


@dataclass(frozen=True)
class More(Diagnostic):
    """The diagnostics of one code about one file past the first `PER_FILE`: how many there are, said at the
    first of them (with its severity)."""

    count: int = 0


def bounded(found: Iterable[Diagnostic | Deferred]) -> list[Diagnostic]:
    """`found` in order, at most `PER_FILE` of each code about each file, then a `More` in place of the rest.

    The one owner of the bound, for every rule: whatever gathers a file's diagnostics (the walk, a SKILL.md's
    check, an eval set's, a skill's vetting, a build's collection) passes them through here. A `More` met in
    `found` adds its count, so bounding lists that were bounded before bounds their union; a `Deferred` is
    worded only when it is shown.
    """
    shown: list[Diagnostic | None] = []
    kept: dict[tuple[str, str], int] = {}
    hidden: dict[tuple[str, str], tuple[int, Diagnostic | Deferred, int]] = {}  # → (place in `shown`, first, count)
    for item in found:
        key = (printable(item.path) if isinstance(item, Deferred) else item.path, item.code)
        extra = item.count if isinstance(item, More) else item.problems if isinstance(item, Deferred) else 1
        if not isinstance(item, More) and kept.get(key, 0) < PER_FILE:
            kept[key] = kept.get(key, 0) + 1
            shown.append(item.worded() if isinstance(item, Deferred) else item)
            extra = item.problems - 1 if isinstance(item, Deferred) else 0  # (the rest it stands for, after it)
            if not extra:
                continue
        place, first, count = hidden.get(key) or (len(shown), item, 0)
        if place == len(shown):
            shown.append(None)  # (the `More`, once every one is counted)
        hidden[key] = (place, first, count + extra)
    for (path, code), (place, first, count) in hidden.items():
        shown[place] = _more(path, code, first, count)
    return [d for d in shown if d is not None]


def _more(path: str, code: str, first: Diagnostic | Deferred, count: int) -> More:
    severity = first.severity if isinstance(first, Diagnostic) else Severity(CODES[code].severity)
    message = piece("more: message", count=count, code=code)
    hint = piece("more: hint", shown=PER_FILE)
    return More(path, code, message, hint, first.line, first.column, severity, count=count)


def apply_strict(diagnostics: Iterable[Diagnostic], strict: bool) -> list[Diagnostic]:
    return [d.strict() for d in diagnostics] if strict else list(diagnostics)


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.is_error for d in diagnostics)


def summary(diagnostics: Sequence[Diagnostic], checked: int, noun: str = "skill") -> str:
    errors = sum(d.is_error for d in diagnostics)
    warnings = len(diagnostics) - errors
    plural = "" if checked == 1 else "s"
    return (
        f"checked {checked} {noun}{plural}: "
        f"{errors} error{'' if errors == 1 else 's'}, {warnings} warning{'' if warnings == 1 else 's'}"
    )


def format_json(diagnostics: Iterable[Diagnostic]) -> str:
    return printable_json([d.to_dict() for d in diagnostics])
