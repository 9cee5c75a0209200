"""Validate a SKILL.md against the Agent Skills rules: the JSON Schema, plus what a schema cannot say.

Every problem comes back at once as a `Diagnostic` with the line and column of the
offending key or value and a hint that says how to fix it.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from flue_runtime.format import schema
from flue_runtime.format.diagnostics import Diagnostic, apply_strict, bounded, diagnostic, has_errors
from flue_runtime.format.frontmatter import FRONTMATTER_LIMIT, Frontmatter, Mark, Span, parse, yaml_quote
from flue_runtime.format.messages import piece
from flue_runtime.format.naming import NAME_MAX, is_valid_name, name_problems, suggest_name
from flue_runtime.format.records import SKILL_FILE as SKILL_FILE
from flue_runtime.format.records import SkillMetadata as SkillMetadata
from flue_runtime.format.schema_validator import Violation
from flue_runtime.format.yaml_types import Stamp, core_value, may_read_otherwise, read_otherwise, yaml_1_1_value


@dataclass(frozen=True)
class SkillFile:
    """The outcome of checking one SKILL.md: its fields when valid, and every diagnostic."""

    path: str
    metadata: SkillMetadata | None
    body: str
    diagnostics: tuple[Diagnostic, ...]
    body_offset: int = 0

    @property
    def ok(self) -> bool:
        return self.metadata is not None and not has_errors(self.diagnostics)


def check_skill_md(
    data: bytes,
    path: str,
    directory: str | None = None,
    *,
    strict: bool = False,
    limit: int = FRONTMATTER_LIMIT,
) -> SkillFile:
    """Check SKILL.md bytes; `directory` is the skill folder's name the `name` must equal."""
    front = parse(data, path, limit)
    diagnostics = list(front.diagnostics)
    if data.startswith(codecs.BOM_UTF8):  # FLU111: accepted here, refused by most other readers
        diagnostics.append(diagnostic("FLU111", path, 1, 1))
    metadata = None
    if front.data is not None:
        diagnostics.extend(check_fields(front.data, path, directory, front))
    diagnostics.sort(key=lambda d: (d.line or 0, d.column or 0))
    diagnostics = apply_strict(bounded(diagnostics), strict)
    if front.data is not None and not has_errors(diagnostics):
        metadata = SkillMetadata.from_dict(front.data)
    return SkillFile(path, metadata, front.body, tuple(diagnostics), front.body_offset)


def check_skill_file(file: Path, *, display: str | None = None, strict: bool = False) -> SkillFile:
    """Read and check a SKILL.md on disk; the file must be named exactly `SKILL.md`."""
    shown = display or str(file)
    if file.name != SKILL_FILE:
        problem = diagnostic("FLU101 misnamed", shown, name=file.name)
        return SkillFile(shown, None, "", tuple(apply_strict([problem], strict)))
    try:
        data = file.read_bytes()
    except OSError as exc:
        problem = diagnostic("FLU110", shown, reason=exc.strerror or exc)
        return SkillFile(shown, None, "", (problem,))
    return check_skill_md(data, shown, file.parent.name, strict=strict)


# --- field rules: a check per rule, in `FIELD_CHECKS` ---------------------------------------

#: The `metadata` key prefix the MCP Skills extension reserves for keys MCP extensions define (FLU214).
RESERVED_PREFIX = "io.modelcontextprotocol/"
#: What `flue-skills new` writes without `--description`; a skill that still says it gets FLU213.
PLACEHOLDER_DESCRIPTION = "Describe what this skill does and when the agent should use it."

#: Fields other agents define; they are not part of the spec, so portable skills keep them under `metadata`.
_EXTENSION_FIELDS = {
    "argument-hint",
    "disable-model-invocation",
    "user-invocable",
    "model",
    "context",
    "agent",
    "hooks",
    "when_to_use",
    "mode",
}

#: Existing `metadata:` entries a FLU210 hint repeats before it elides the rest.
_SHOWN_ENTRIES = 3

_NO_SPAN = Span(0, 0)


@dataclass(frozen=True)
class _Fields:
    """One frontmatter mapping under check: what the schema found wrong, and where each key and value is."""

    data: Mapping[str, Any]
    path: str
    directory: str | None
    front: Frontmatter | None
    #: The schema's failures of a required field missing, and the others by the top-level field they are in.
    missing: list[Violation]
    by_field: dict[str, list[Violation]]

    @classmethod
    def of(cls, data: Mapping[str, Any], path: str, directory: str | None, front: Frontmatter | None) -> _Fields:
        missing: list[Violation] = []
        by_field: dict[str, list[Violation]] = {}
        for violation in schema.validator().violations(data):
            if violation.keyword == "required" and not violation.path:
                missing.append(violation)
            elif violation.path:
                by_field.setdefault(str(violation.path[0]), []).append(violation)
        return cls(data, path, directory, front, missing, by_field)

    def key_span(self, where: tuple[Any, ...]) -> Span:
        return self.front.key_span(where) if self.front is not None else _NO_SPAN

    def value_span(self, where: tuple[Any, ...]) -> Span:
        return self.front.value_span(where) if self.front is not None else _NO_SPAN

    def problem(self, key: str, where: Span, field: str, /, **values: Any) -> Diagnostic:
        """The diagnostic `key` of `messages.CODES` words, at `where` (no place: a mapping with no file)."""
        line, column = (where.line, where.column) if where.line else (None, None)
        return diagnostic(key, self.path, line, column, field=field, **values)


def check_fields(
    data: Mapping[str, Any], path: str, directory: str | None, front: Frontmatter | None = None
) -> list[Diagnostic]:
    """Every field problem of a frontmatter mapping; `front` supplies lines and columns when there is a file.

    The schema decides what is wrong (its compiled validator); the checks of `FIELD_CHECKS`
    put each failure into a diagnostic with a stable code and a hint, and add what a schema
    cannot say.
    """
    fields = _Fields.of(data, path, directory, front)
    return [problem for check in FIELD_CHECKS for problem in check(fields)]


#: The required fields whose FLU201 hint is their own.
_REQUIRED = {"name": "FLU201 name", "description": "FLU201 description"}


def _required(fields: _Fields) -> list[Diagnostic]:
    """FLU201: a required field missing (its hint from the table when it has one of its own)."""
    where = Span(1, 1) if fields.front is not None else _NO_SPAN
    directory = fields.directory or "my-skill"
    problems = []
    for violation in fields.missing:
        missing = str(violation.name)
        if missing in _REQUIRED:
            problems.append(fields.problem(_REQUIRED[missing], where, missing, directory=directory))
        else:
            problems.append(fields.problem("FLU201", where, missing, key=missing))
    return problems


def _schema_failures(fields: _Fields) -> list[Diagnostic]:
    """FLU202-FLU209: what the schema found wrong in each field, one diagnostic per field (or per failure
    where a field has no rule of its own)."""
    problems = []
    for key, found in fields.by_field.items():
        keywords = {v.keyword for v in found if len(v.path) == 1}
        if "type" in keywords:
            problems.append(_wrong_type(fields, key))
        elif keywords and key in _FIELD_RULES:
            problems.append(_FIELD_RULES[key](fields, key, found))
        else:
            problems.extend(_other_failure(fields, key, violation) for violation in found)
    return problems


def _wrong_type(fields: _Fields, key: str) -> Diagnostic:
    """FLU202: a field that is not a string (or `metadata`, not a mapping)."""
    value = fields.data[key]
    expected = piece("expected metadata" if key == "metadata" else "expected")
    hint = _type_hint(key, value)
    return fields.problem(
        "FLU202", fields.value_span((key,)), key, key=key, expected=expected, kind=_kind(value), hint=hint
    )


def _bad_name(fields: _Fields, key: str, found: list[Violation]) -> Diagnostic:
    """FLU203 (too long, and only that), FLU204: the name rule, in words, and a name that would do."""
    value = fields.data[key]
    too_long = {v.keyword for v in found if len(v.path) == 1} == {"maxLength"}
    problems = "; ".join(name_problems(value))
    hint = _name_hint(value, fields.directory)
    where = fields.value_span((key,))
    return fields.problem("FLU203" if too_long else "FLU204", where, key, name=value, problems=problems, hint=hint)


def _bad_description(fields: _Fields, key: str, found: list[Violation]) -> Diagnostic:
    """FLU207 when too long, else FLU206: empty."""
    limit = next((v.expected for v in found if v.keyword == "maxLength"), None)
    where = fields.value_span((key,))
    if limit is None:
        return fields.problem("FLU206", where, key)
    return fields.problem("FLU207", where, key, length=len(fields.data[key]), limit=limit)


def _bad_compatibility(fields: _Fields, key: str, found: list[Violation]) -> Diagnostic:
    """FLU208: empty or too long, with the schema's bounds."""
    rule = schema.field_rule(key)
    length = len(fields.data[key])
    where = fields.value_span((key,))
    return fields.problem("FLU208", where, key, minimum=rule["minLength"], maximum=rule["maxLength"], length=length)


#: The fields whose schema failures have codes of their own (a wrong type is FLU202 for any field).
_FIELD_RULES: dict[str, Callable[[_Fields, str, list[Violation]], Diagnostic]] = {
    "name": _bad_name,
    "description": _bad_description,
    "compatibility": _bad_compatibility,
}


def _other_failure(fields: _Fields, key: str, violation: Violation) -> Diagnostic:
    """FLU209 for a `metadata` value that is not a string; FLU202 for a rule the schema gained that has
    no code of its own yet."""
    where = fields.value_span(violation.path)
    if key == "metadata" and violation.keyword == "type" and len(violation.path) == 2:
        return fields.problem("FLU209", where, key, key=str(violation.path[1]), kind=_kind(violation.instance))
    dotted = ".".join(str(part) for part in violation.path)
    return fields.problem("FLU202 rule", where, key, key=dotted, reason=violation.message)


def _name_is_folder(fields: _Fields) -> list[Diagnostic]:
    """FLU205: `name` must be the folder's name. Said of an invalid name too: renaming the folder to it
    would not do, and the reference validator says both."""
    name, directory = fields.data.get("name"), fields.directory
    if directory is None or not isinstance(name, str) or not name.strip() or name == directory:
        return []
    if "name" not in fields.by_field:
        hint = piece("FLU205 rename", name=name, directory=directory)
    elif is_valid_name(directory):
        hint = piece("FLU205 set", directory=directory)
    else:
        hint = _name_hint(name, directory)
    where = fields.value_span(("name",))
    return [fields.problem("FLU205", where, "name", name=name, directory=directory, hint=hint)]


def _placeholder(fields: _Fields) -> list[Diagnostic]:
    """FLU213: the description `flue-skills new` wrote, unchanged (whitespace aside)."""
    description = fields.data.get("description")
    if isinstance(description, str) and " ".join(description.split()) == PLACEHOLDER_DESCRIPTION:
        return [fields.problem("FLU213", fields.value_span(("description",)), "description")]
    return []


def _reserved_metadata(fields: _Fields) -> list[Diagnostic]:
    """FLU214: a `metadata` key under `io.modelcontextprotocol/`, which the MCP Skills extension reserves for keys
    MCP extensions define (none yet): a host ignores one it does not know."""
    extra = fields.data.get("metadata")
    if not isinstance(extra, Mapping):
        return []
    return [
        fields.problem(
            "FLU214", fields.key_span(("metadata", key)), "metadata", key=key, rest=key.removeprefix(RESERVED_PREFIX)
        )
        for key in extra
        if isinstance(key, str) and key.startswith(RESERVED_PREFIX)
    ]


def _comma_tools(fields: _Fields) -> list[Diagnostic]:
    """FLU211: `allowed-tools` written with commas, as other formats do; the spec separates with spaces."""
    tools = fields.data.get("allowed-tools")
    if not isinstance(tools, str) or "," not in tools:
        return []
    hint = _tool_list_hint(_comma_separated(tools))
    return [fields.problem("FLU211", fields.value_span(("allowed-tools",)), "allowed-tools", hint=hint)]


def _unknown_fields(fields: _Fields) -> list[Diagnostic]:
    """FLU210: a field the spec does not define, with where it belongs instead."""
    known = schema.known_fields()
    return [
        fields.problem("FLU210", fields.key_span((key,)), key, key=key, hint=_unknown_hint(key, fields, known))
        for key in fields.data
        if key not in known
    ]


def _typed_otherwise(fields: _Fields) -> list[Diagnostic]:
    """FLU215: a plain value or key that YAML 1.1 readers (PyYAML: FastMCP, fast-agent) type otherwise than
    YAML 1.2's core schema, which types the entry an MCP server serves: a host comparing the two refuses the
    skill. Only text from a file has a form to judge (a mapping given in code is strings; quoted when written)."""
    front = fields.front
    if front is None:
        return []
    problems = []
    for path, text, value in _scalars(fields.data):
        read = read_otherwise(text)
        if read is None or not _plain(front, (front.keys if value is None else front.values)[path], text):
            continue
        if value is None:  # a key: quoted, with its value (quoted too, when a string)
            span = fields.key_span(path)
            found = _value_at(fields.data, path)
            fix = f"{yaml_quote(text)}:" + (f" {yaml_quote(found)}" if isinstance(found, str) else "")
        else:
            span = fields.value_span(path)
            fix = f"- {yaml_quote(text)}" if isinstance(path[-1], int) else f"{path[-1]}: {yaml_quote(text)}"
        old, new = (_yaml_value(reading) for reading in read)
        problems.append(fields.problem("FLU215", span, str(path[0]), value=text, old=old, new=new, fix=fix))
    return sorted(problems, key=lambda problem: (problem.line or 0, problem.column or 0))


def _scalars(data: Mapping[str, Any]) -> list[tuple[tuple[str | int, ...], str, bool | None]]:
    """The keys (`None` third) and string values (`True`) of a frontmatter mapping that YAML 1.1 and 1.2 may read
    differently (`may_read_otherwise`: most are text to both, passed over at a set's and a character's cost)."""
    found: list[tuple[tuple[str | int, ...], str, bool | None]] = []
    pending: list[tuple[tuple[str | int, ...], Any]] = [((), data)]
    while pending:
        path, node = pending.pop()
        for key, item in node.items() if isinstance(node, dict) else enumerate(node):
            if isinstance(key, str) and may_read_otherwise(key):
                found.append(((*path, key), key, None))
            if isinstance(item, str):
                if may_read_otherwise(item):
                    found.append(((*path, key), item, True))
            elif isinstance(item, (dict, list)):
                pending.append(((*path, key), item))
    return found


def _value_at(data: Mapping[str, Any], path: tuple[str | int, ...]) -> object:
    value: Any = data
    for part in path:
        value = value[part]
    return value


def _plain(front: Frontmatter, mark: Mark, text: str) -> bool:
    """Whether the scalar at `mark` is written plain: its text starts there (a quote, a block or a tag would)."""
    lines = front.yaml.split("\n")
    return mark.line < len(lines) and lines[mark.line].startswith(text, mark.column)


def _yaml_value(value: object) -> str:
    if isinstance(value, bool):
        return piece("yaml value: true" if value else "yaml value: false")
    if value is None:
        return piece("yaml value: null")
    if isinstance(value, str):
        return piece("yaml value: string")
    if isinstance(value, Stamp):
        return piece("yaml value: date" if value.kind == "date" else "yaml value: timestamp")
    return piece("yaml value: number", number=value)


#: Every field check, in the order its problems are reported (`check_skill_md` then sorts them by place).
FIELD_CHECKS: tuple[Callable[[_Fields], list[Diagnostic]], ...] = (
    _required,  # FLU201
    _schema_failures,  # FLU202-FLU209
    _name_is_folder,  # FLU205
    _placeholder,  # FLU213
    _reserved_metadata,  # FLU214
    _comma_tools,  # FLU211
    _typed_otherwise,  # FLU215
    _unknown_fields,  # FLU210
)


# --- the words of hints put together from pieces (`messages.PIECES`) --------------------------


#: How a value that is not what the schema wants is described, by its type.
_KINDS = ((dict, "kind dict"), (list, "kind list"), (str, "kind str"))


def _kind(value: object) -> str:
    for kind, key in _KINDS:
        if isinstance(value, kind):
            return piece(key)
    return piece("kind", type=type(value).__name__)


def _name_hint(name: str, directory: str | None) -> str:
    """The folder's own name first when it is valid: renaming one line beats renaming a folder."""
    suggestion = suggest_name(name)
    if directory is not None and is_valid_name(directory):
        hint = piece("name: use folder", directory=directory)
        if suggestion and suggestion != directory:
            hint += piece("name: or suggestion", suggestion=suggestion)
        return hint
    if suggestion:
        return piece("name: suggestion", suggestion=suggestion)
    return piece("name: rule", limit=NAME_MAX)


def _type_hint(key: str, value: object) -> str:
    if key == "metadata":
        return piece("FLU202 metadata")
    if key == "allowed-tools" and isinstance(value, list) and all(isinstance(v, str) for v in value):
        return _tool_list_hint(value)
    if key == "allowed-tools":
        return piece("FLU202 allowed-tools")
    return piece("FLU202 string", key=key)


def _tool_list_hint(tools: list[str]) -> str:
    """Joining the list is the fix, unless a tool holds a space: then joining would change the tools."""
    spaced = [tool for tool in tools if len(tool.split()) > 1]
    if not spaced:
        return piece("tools: joined", tools=" ".join(t.strip() for t in tools))
    first = spaced[0]
    pieces = piece("and").join(piece("tools: piece", piece=part) for part in first.split())
    plain = [tool.strip() for tool in tools if tool not in spaced and tool.strip()]
    keep = piece("tools: others", tools=" ".join(plain)) if plain else ""
    return piece("tools: spaced", first=first, pieces=pieces, keep=keep)


def _comma_separated(tools: str) -> list[str]:
    """`Read, Write, Bash(git log:*)` as its tools: split at commas outside parentheses."""
    parts, depth, current = [], 0, ""
    for char in tools:
        depth += char == "("
        depth -= char == ")"
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    parts.append(current.strip())
    return [p for p in parts if p]


@lru_cache(maxsize=1024)
def _close_field(key: str, known: frozenset[str]) -> str | None:
    """The known field `key` is likely a typo of (the same few unknown keys recur across a collection)."""
    import difflib

    close = difflib.get_close_matches(key.replace("_", "-").lower(), sorted(known), n=1, cutoff=0.75)
    return close[0] if close else None


def _unknown_hint(key: str, fields: _Fields, known: frozenset[str]) -> str:
    close = _close_field(key, known)
    if close:
        return piece("FLU210 typo", close=close)
    if key in _EXTENSION_FIELDS:
        return piece("FLU210 extension", key=key)
    data, front = fields.data, fields.front
    existing = data.get("metadata")
    existing = existing if isinstance(existing, dict) else {}
    where = ""
    if front is not None and "metadata" in data:
        where = piece("FLU210 line", line=front.key_span(("metadata",)).line)
    if key in existing:
        return piece("FLU210 twice", where=where, key=key)
    lead = piece("FLU210 add", where=where) if "metadata" in data else piece("FLU210 move")
    return piece("FLU210 block", lead=lead, block=_metadata_block(existing, key, data[key]))


def _metadata_block(existing: Mapping[str, Any], key: str, value: object) -> str:
    """The `metadata:` block in YAML's block form: the entries it has (a few), then `key` moved in."""
    lines = ["metadata:"]
    shown = list(existing.items())[:_SHOWN_ENTRIES]
    lines += [f"  {_yaml_key(k)}: {_yaml_string(v, keep_plain=True)}" for k, v in shown]
    if len(existing) > len(shown):
        more = len(existing) - len(shown)
        lines.append(piece("FLU210 one more" if more == 1 else "FLU210 more", more=more))
    if isinstance(value, dict):
        lines += [f"  {_yaml_key(f'{key}.{k}')}: {_yaml_string(v)}" for k, v in value.items()]
    else:
        lines.append(f"  {_yaml_key(key)}: {_yaml_string(value)}")
    return "\n".join(lines)


def _yaml_key(key: str) -> str:
    return key if _PLAIN_KEY.fullmatch(key) else json.dumps(key, ensure_ascii=False)


def _yaml_string(value: object, *, keep_plain: bool = False) -> str:
    """A value as a double-quoted YAML string (a JSON string is one): lists joined, anything deeper elided.

    `keep_plain` leaves a word every YAML reader takes as a string unquoted, as the user wrote it.
    """
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = ", ".join(value)
    if not isinstance(value, str):
        return '"..."'
    if keep_plain and _PLAIN_WORD.fullmatch(value) and yaml_1_1_value(value) == value == core_value(value):
        return value
    return json.dumps(value, ensure_ascii=False)


_PLAIN_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_./@+-]*(?: [A-Za-z0-9_./@+-]+)*")
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


__all__ = ["SkillFile", "check_skill_file", "check_fields", "check_skill_md"]
