"""Diagnostics: one shape for every problem the build, the CLI and the run time report.

Codes are stable (documented in the README); messages may improve over time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from enum import StrEnum

from flue_runtime.format.schema import field_rule


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Code:
    code: str
    severity: Severity
    summary: str


def _codes(*rows: tuple[str, Severity, str]) -> dict[str, Code]:
    return {code: Code(code, severity, summary) for code, severity, summary in rows}


E, W = Severity.ERROR, Severity.WARNING
_NAME, _DESCRIPTION, _COMPATIBILITY = (field_rule(name) for name in ("name", "description", "compatibility"))
#: The name pattern as people read it: `(?!\n)` only keeps Python's `$` from accepting a trailing newline.
_NAME_PATTERN = _NAME["pattern"].replace("(?!\\n)", "")

#: Every diagnostic code, its default severity and what it means. The README table is
#: checked against this registry by the test suite.
CODES: dict[str, Code] = _codes(
    # 1xx: the SKILL.md file and its frontmatter
    ("FLU100", E, "a path given to `check` holds no skill"),
    ("FLU101", E, "skill file missing or not named exactly `SKILL.md`"),
    ("FLU102", E, "file is not valid UTF-8 or holds a NUL byte"),
    ("FLU103", E, "no frontmatter: the file must start with a `---` line"),
    ("FLU104", E, "frontmatter is never closed by a `---` line"),
    ("FLU105", E, "frontmatter is larger than the limit (64 KiB unless `max-frontmatter-size` says otherwise)"),
    ("FLU106", E, "frontmatter is not valid YAML"),
    ("FLU107", E, "frontmatter is not a YAML mapping"),
    ("FLU108", E, "duplicate key"),
    ("FLU109", E, "YAML feature refused: alias, complex key, second document or deep nesting"),
    ("FLU110", E, "file cannot be read"),
    # 2xx: frontmatter fields
    ("FLU201", E, "required field missing"),
    ("FLU202", E, "field has the wrong type"),
    # (the limits are the schema's: it is the one source of the field rules)
    ("FLU203", E, f"`name` is too long ({_NAME['maxLength']} characters at most)"),
    ("FLU204", E, f"`name` breaks the naming rule `{_NAME_PATTERN}`"),
    ("FLU205", E, "`name` differs from the skill's directory name"),
    ("FLU206", E, "`description` is empty"),
    ("FLU207", E, f"`description` is too long ({_DESCRIPTION['maxLength']} characters at most)"),
    (
        "FLU208",
        E,
        f"`compatibility` is empty or too long ({_COMPATIBILITY['minLength']}-{_COMPATIBILITY['maxLength']} characters)",
    ),
    ("FLU209", E, "`metadata` value is not a string"),
    ("FLU210", W, "unknown top-level field"),
    ("FLU211", W, "`allowed-tools` looks comma-separated"),
    ("FLU212", W, "a skill nested inside another skill's directory"),
    ("FLU213", W, "`description` is still the placeholder `flue-skills new` writes"),
    # 3xx: packing a skill directory
    ("FLU301", E, "symbolic link refused"),
    ("FLU302", E, "secret refused (by file or folder name)"),
    ("FLU303", E, "file holds a private key (PEM, in any container: comments, strings, JSON, base64, UTF-16/32)"),
    ("FLU304", W, "noise skipped (VCS, tool caches, build output, editor files)"),
    ("FLU305", W, "file over 1 MiB packed"),
    (
        "FLU306",
        W,
        "file that looks like a secret, or holds a key or token, packed because `[tool.flue] allow` lists it",
    ),
    ("FLU307", E, "not a regular file (FIFO, socket, device)"),
    ("FLU308", E, "file or folder cannot be read"),
    (
        "FLU309",
        E,
        "file or folder name the run time could never serve (control character, backslash, not UTF-8, encoded or look-alike dot or slash, over 255 bytes)",
    ),
    ("FLU310", E, "skill holds more files than the limit (10,000 unless `max-skill-files` says otherwise)"),
    (
        "FLU311",
        E,
        "skill files add up to more than the limit (100 MiB per build unless `max-bundle-size` says otherwise)",
    ),
    ("FLU312", W, "two files whose paths differ only in case"),
    ("FLU313", E, "folder nested more than 64 levels deep inside a skill"),
    ("FLU314", W, "hard-linked file packed (another name shares its bytes)"),
    ("FLU315", E, "file holds a credential token (AWS key pair, GitHub, Slack, Stripe, OpenAI, Anthropic)"),
    # 4xx: references in Python source and what a build does with them
    ("FLU401", E, "dynamic reference: the spec must be one string literal"),
    ("FLU402", E, "Python file does not parse"),
    ("FLU403", E, "malformed spec: `skill()` must end in `/SKILL.md`, `markdown()` in `.md`"),
    ("FLU404", E, "referenced skill folder or markdown file missing"),
    ("FLU405", W, "package spec not importable at build time; resolved at run time"),
    ("FLU406", E, "reference leaves the project folder"),
    ("FLU407", E, "referencing module is not inside a regular package"),
    ("FLU408", E, "skill folder overlaps Python code (holds `__init__.py` or the referencing module)"),
    ("FLU409", E, "built artifact holds a file that was not vetted"),
    (
        "FLU410",
        W,
        "skill folder in what the build selects is not referenced: only its vetted files ship, as plain files",
    ),
    ("FLU411", W, "vetted skill file left out of an artifact: the project's own exclusion rules exclude it"),
    ("FLU412", E, "a referenced skill's `SKILL.md` or a `markdown()` target is excluded by the project's own rules"),
    ("FLU413", E, "package spec names a skill or file its distribution does not export (`[tool.flue] exports`)"),
    ("FLU414", E, "`[tool.flue] exports` names a spec outside the project's packages"),
    # 5xx: the project's build configuration
    (
        "FLU501",
        E,
        "the project needs flue-skills at build time but its build does not run it (hook table, `[tool.flue]` or build requirement missing)",
    ),
)


#: What a terminal acts on or what reorders a line as shown: C0 and C1 controls, DEL, lone
#: surrogates (no terminal or encoder writes them) and the bidirectional controls (Trojan Source).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
#: The same, less C0: `json.dumps` escapes those inside strings, and its own line breaks are layout.
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\ud800-\udfff\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """`text` safe to print on one line: control characters, bidirectional controls and undecodable
    bytes as escapes. The one owner of that rule: whatever a command prints of what it read (a file
    name, a skill's description from an installed wheel) goes through it.

    File names are bytes on POSIX; a name that is not UTF-8 arrives with lone surrogates
    (`os.fsdecode`), which no terminal or JSON encoder can write.
    """
    if text.isprintable() and text.isascii():
        return text
    return _UNSAFE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match[0])
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte, as os.fsdecode keeps it
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x20 or 0x7F <= code < 0xA0:
        return repr(match[0])[1:-1]
    return f"\\u{code:04x}"


def printable_json(value: object) -> str:
    """`value` as indented JSON that is safe to print: what `printable` escapes is written as a
    `\\uXXXX` escape (JSON reads it back as the same string), everything else as itself."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return _UNSAFE_IN_JSON.sub(lambda match: f"\\u{ord(match[0]):04x}", text)


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

    @classmethod
    def make(
        cls,
        code: str,
        path: str,
        message: str,
        hint: str = "",
        line: int | None = None,
        column: int | None = None,
        *,
        field: str | None = None,
    ) -> Diagnostic:
        """A diagnostic with the code's default severity; `path` and `message` made printable (one line, encodable)."""
        return cls(printable(path), code, printable(message), hint, line, column, CODES[code].severity, field)

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
