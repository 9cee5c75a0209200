"""Validate a SKILL.md against the Agent Skills rules: the JSON Schema, plus what a schema cannot say.

Every problem comes back at once as a `Diagnostic` with the line and column of the
offending key or value and a hint that says how to fix it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from flue_runtime.format import schema
from flue_runtime.format.diagnostics import Diagnostic, apply_strict, has_errors
from flue_runtime.format.frontmatter import FRONTMATTER_LIMIT, Frontmatter, Span, parse
from flue_runtime.format.naming import NAME_MAX, is_valid_name, name_problems, suggest_name
from flue_runtime.format.records import SKILL_FILE as SKILL_FILE
from flue_runtime.format.records import SkillMetadata as SkillMetadata
from flue_runtime.format.schema_validator import Violation


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
    metadata = None
    if front.data is not None:
        diagnostics.extend(check_fields(front.data, path, directory, front))
    diagnostics.sort(key=lambda d: (d.line or 0, d.column or 0))
    diagnostics = apply_strict(diagnostics, strict)
    if front.data is not None and not has_errors(diagnostics):
        metadata = SkillMetadata.from_dict(front.data)
    return SkillFile(path, metadata, front.body, tuple(diagnostics), front.body_offset)


def check_skill_file(file: Path, *, display: str | None = None, strict: bool = False) -> SkillFile:
    """Read and check a SKILL.md on disk; the file must be named exactly `SKILL.md`."""
    shown = display or str(file)
    if file.name != SKILL_FILE:
        problem = Diagnostic.make(
            "FLU101",
            shown,
            f"a skill file must be named exactly `{SKILL_FILE}`, not `{file.name}`",
            f"rename it to {SKILL_FILE}",
        )
        return SkillFile(shown, None, "", tuple(apply_strict([problem], strict)))
    try:
        data = file.read_bytes()
    except OSError as exc:
        problem = Diagnostic.make(
            "FLU110", shown, f"cannot read: {exc.strerror or exc}", "check the file's permissions"
        )
        return SkillFile(shown, None, "", (problem,))
    return check_skill_md(data, shown, file.parent.name, strict=strict)


# --- field rules ------------------------------------------------------------------------

_REQUIRED_HINTS = {
    "name": "add `name: {directory}` (the skill directory's name)",
    "description": "add `description: What the skill does and when to use it.`",
}

#: What `flue-skills new` writes without `--description`; a skill that still says it gets FLU213.
PLACEHOLDER_DESCRIPTION = "Describe what this skill does and when the agent should use it."

_METADATA_EXAMPLE = 'write metadata as a mapping of strings:\n  metadata:\n    author: example-org\n    version: "1.0"'

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


def _kind(value: object) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    return f"of type {type(value).__name__}"


def check_fields(
    data: Mapping[str, Any], path: str, directory: str | None, front: Frontmatter | None = None
) -> list[Diagnostic]:
    """Every field problem of a frontmatter mapping; `front` supplies lines and columns when there is a file.

    The schema decides what is wrong (its compiled validator); this puts each failure into
    a diagnostic with a stable code and a hint.
    """
    out: list[Diagnostic] = []
    no_span = Span(0, 0)

    def key_span(where: tuple[Any, ...]) -> Span:
        return front.key_span(where) if front is not None else no_span

    def value_span(where: tuple[Any, ...]) -> Span:
        return front.value_span(where) if front is not None else no_span

    def add(code: str, message: str, hint: str, where: Span, field: str) -> None:
        line, column = (where.line, where.column) if where.line else (None, None)
        out.append(Diagnostic.make(code, path, message, hint, line, column, field=field))

    by_field: dict[str, list[Violation]] = {}
    for violation in schema.validator().violations(data):
        if violation.keyword == "required" and not violation.path:
            missing = str(violation.name)
            hint = _REQUIRED_HINTS.get(missing, f"add `{missing}:`").format(directory=directory or "my-skill")
            add("FLU201", f"required field `{missing}` is missing", hint, Span(1, 1) if front else no_span, missing)
        elif violation.path:
            by_field.setdefault(str(violation.path[0]), []).append(violation)

    for key, found in by_field.items():
        value = data[key]
        span = value_span((key,))
        keywords = {v.keyword for v in found if len(v.path) == 1}
        if "type" in keywords:
            add("FLU202", f"`{key}` must be {_expected(key)}, not {_kind(value)}", _type_hint(key, value), span, key)
        elif key == "name" and keywords:
            code = "FLU203" if keywords == {"maxLength"} else "FLU204"
            add(code, f"name `{value}` " + "; ".join(name_problems(value)), _name_hint(value, directory), span, key)
        elif key == "description" and keywords:
            limit = next((v.expected for v in found if v.keyword == "maxLength"), None)
            if limit is not None:
                add(
                    "FLU207",
                    f"description is {len(value)} characters long; the limit is {limit}",
                    "shorten it to what the skill does and when to use it; "
                    "details belong in the body, which the agent reads on activation",
                    span,
                    key,
                )
            else:
                add("FLU206", "description is empty", "say what the skill does and when to use it", span, key)
        elif key == "compatibility" and keywords:
            rule = schema.field_rule(key)
            add(
                "FLU208",
                f"compatibility must be {rule['minLength']}-{rule['maxLength']} characters, not {len(value)}",
                "state the environment needs briefly, e.g. `compatibility: Requires git and network access`",
                span,
                key,
            )
        else:
            for violation in found:
                if key == "metadata" and violation.keyword == "type" and len(violation.path) == 2:
                    sub = str(violation.path[1])
                    add(
                        "FLU209",
                        f"metadata value `{sub}` is {_kind(violation.instance)}; metadata values must be strings",
                        f'flatten it into string values (e.g. `{sub}.field: "value"`) or write it as one quoted string',
                        value_span(violation.path),
                        key,
                    )
                else:  # a rule the schema gained that has no code of its own yet
                    dotted = ".".join(str(part) for part in violation.path)
                    add(
                        "FLU202",
                        f"`{dotted}` {violation.message}",
                        "see `flue-skills schema` for the rules",
                        value_span(violation.path),
                        key,
                    )

    name = data.get("name")
    if directory is not None and isinstance(name, str) and name.strip() and name != directory:
        # Said of an invalid name too: renaming the folder to it would not do, and the reference validator says both.
        invalid = "name" in by_field
        add(
            "FLU205",
            f"name `{name}` differs from its directory `{directory}`",
            (f"set `name: {directory}`" if is_valid_name(directory) else _name_hint(name, directory))
            if invalid
            else f"rename the directory to `{name}` or set `name: {directory}`",
            value_span(("name",)),
            "name",
        )

    description = data.get("description")
    if isinstance(description, str) and " ".join(description.split()) == PLACEHOLDER_DESCRIPTION:
        add(
            "FLU213",
            "description is still the placeholder `flue-skills new` wrote",
            "replace it with what the skill does and when the agent should use it: "
            "the catalog line is all the model sees when it decides whether to activate the skill",
            value_span(("description",)),
            "description",
        )

    tools = data.get("allowed-tools")
    if isinstance(tools, str) and "," in tools:
        add(
            "FLU211",
            "allowed-tools looks comma-separated; the spec separates tools with spaces",
            _tool_list_hint(_comma_separated(tools)),
            value_span(("allowed-tools",)),
            "allowed-tools",
        )

    known = schema.known_fields()
    for key in data:
        if key not in known:
            hint = _unknown_hint(key, data, known, front)
            add("FLU210", f"unknown field `{key}`", hint, key_span((key,)), key)
    return out


def _expected(key: str) -> str:
    return "a mapping of strings" if key == "metadata" else "a string"


def _name_hint(name: str, directory: str | None) -> str:
    """The folder's own name first when it is valid: renaming one line beats renaming a folder."""
    suggestion = suggest_name(name)
    if directory is not None and is_valid_name(directory):
        hint = f"use `name: {directory}`, the folder's name"
        if suggestion and suggestion != directory:
            hint += f"; or use `name: {suggestion}` and rename the folder to `{suggestion}`"
        return hint
    if suggestion:
        return f"use `name: {suggestion}` and name the directory `{suggestion}`"
    return f"use 1-{NAME_MAX} lowercase letters, digits and single hyphens, e.g. `pdf-tools`"


def _type_hint(key: str, value: object) -> str:
    if key == "metadata":
        return _METADATA_EXAMPLE
    if key == "allowed-tools" and isinstance(value, list) and all(isinstance(v, str) for v in value):
        return _tool_list_hint(value)
    if key == "allowed-tools":
        return "write it as a space-separated string: `allowed-tools: Read Write`"
    return f"write `{key}` as one string (quote it if it holds `: ` or starts with a special character)"


def _tool_list_hint(tools: list[str]) -> str:
    """Joining the list is the fix, unless a tool holds a space: then joining would change the tools."""
    spaced = [tool for tool in tools if len(tool.split()) > 1]
    if not spaced:
        return f"write it as a space-separated string: `allowed-tools: {' '.join(t.strip() for t in tools)}`"
    first = spaced[0]
    pieces = " and ".join(f"`{piece}`" for piece in first.split())
    plain = [tool.strip() for tool in tools if tool not in spaced and tool.strip()]
    keep = f" (the others can stay: `allowed-tools: {' '.join(plain)}`)" if plain else ""
    return (
        f"`allowed-tools` is one string of space-separated tools: joined, `{first}` would read as {pieces}, "
        f"which changes what the tools are. Write the tools the skill needs without spaces{keep}, "
        "or leave `allowed-tools` out (experimental; no agent has to enforce it)"
    )


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


def _unknown_hint(key: str, data: Mapping[str, Any], known: frozenset[str], front: Frontmatter | None) -> str:
    close = _close_field(key, known)
    if close:
        return f"did you mean `{close}`?"
    if key in _EXTENSION_FIELDS:
        return (
            f"`{key}` is another agent's extension, not part of the Agent Skills spec; other agents ignore it. "
            "Keep it if you target that agent, or move it under `metadata:`"
        )
    existing = data.get("metadata")
    existing = existing if isinstance(existing, dict) else {}
    where = f" (line {front.key_span(('metadata',)).line})" if front is not None and "metadata" in data else ""
    if key in existing:
        return (
            f"not part of the Agent Skills spec, and `metadata:`{where} already holds `{key}`: "
            "keep one of the two, under `metadata:`"
        )
    lead = f"add it to the `metadata:` block{where}" if "metadata" in data else "move it under `metadata:`"
    return f"not part of the Agent Skills spec; {lead}, whose values are strings:\n" + _metadata_block(
        existing, key, data[key]
    )


def _metadata_block(existing: Mapping[str, Any], key: str, value: object) -> str:
    """The `metadata:` block in YAML's block form: the entries it has (a few), then `key` moved in."""
    lines = ["metadata:"]
    shown = list(existing.items())[:_SHOWN_ENTRIES]
    lines += [f"  {_yaml_key(k)}: {_yaml_string(v, keep_plain=True)}" for k, v in shown]
    if len(existing) > len(shown):
        more = len(existing) - len(shown)
        lines.append(f"  # ... {more} more {'entry' if more == 1 else 'entries'}")
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
    if keep_plain and _PLAIN_WORD.fullmatch(value) and value.lower() not in _YAML_WORDS:
        return value
    return json.dumps(value, ensure_ascii=False)


#: Plain words YAML 1.1 readers turn into booleans or null.
_YAML_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}
_PLAIN_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_./@+-]*(?: [A-Za-z0-9_./@+-]+)*")
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


__all__ = [
    "NAME_MAX",
    "SKILL_FILE",
    "SkillFile",
    "SkillMetadata",
    "check_skill_file",
    "check_fields",
    "check_skill_md",
]
