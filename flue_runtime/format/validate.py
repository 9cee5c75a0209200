"""Validate a SKILL.md against the Agent Skills rules: the JSON Schema, plus what a schema cannot say.

Every problem comes back at once as a `Diagnostic` with the line and column of the
offending key or value and a hint that says how to fix it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from flue_runtime.format import schema
from flue_runtime.format.diagnostics import Diagnostic, apply_strict, has_errors
from flue_runtime.format.frontmatter import FRONTMATTER_LIMIT, Frontmatter, Span, parse
from flue_runtime.format.naming import NAME_MAX, is_valid_name, name_problems, suggest_name
from flue_runtime.format.records import SKILL_FILE as SKILL_FILE
from flue_runtime.format.records import SkillMetadata as SkillMetadata


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
    """Every field problem of a frontmatter mapping; `front` supplies lines and columns when there is a file."""
    out: list[Diagnostic] = []
    no_span = Span(0, 0)

    def key_span(where: tuple[Any, ...]) -> Span:
        return front.key_span(where) if front is not None else no_span

    def value_span(where: tuple[Any, ...]) -> Span:
        return front.value_span(where) if front is not None else no_span

    def add(code: str, message: str, hint: str, where: Span, field: str) -> None:
        line, column = (where.line, where.column) if where.line else (None, None)
        out.append(replace(Diagnostic.make(code, path, message, hint, line, column), field=field))

    for required in schema.schema()["required"]:
        if required not in data:
            hint = _REQUIRED_HINTS[required].format(directory=directory or "my-skill")
            add("FLU201", f"required field `{required}` is missing", hint, Span(1, 1) if front else no_span, required)

    seen: set[tuple[str, tuple[Any, ...]]] = set()
    for error in schema.validator().iter_errors(data):
        where_path = tuple(error.absolute_path)
        if error.validator == "required" or not where_path:
            continue
        key = str(where_path[0])
        if key in {"name", "description", "compatibility"} and error.validator != "type":
            if (key, ()) in seen:
                continue
            seen.add((key, ()))
            value = data[key]
            span = value_span((key,))
            if key == "name":
                problems = name_problems(value)
                only_length = len(value) > NAME_MAX and len(problems) == 1
                code = "FLU203" if only_length else "FLU204"
                suggestion = suggest_name(value)
                hint = (
                    f"use `name: {suggestion}` and name the directory `{suggestion}`"
                    if suggestion
                    else ("use 1-64 lowercase letters, digits and single hyphens, e.g. `pdf-tools`")
                )
                add(code, f"name `{value}` " + "; ".join(problems), hint, span, key)
            elif key == "description":
                if len(value) > 1024:
                    add(
                        "FLU207",
                        f"description is {len(value)} characters long; the limit is 1024",
                        "shorten it to what the skill does and when to use it; "
                        "details belong in the body, which the agent reads on activation",
                        span,
                        key,
                    )
                else:
                    add("FLU206", "description is empty", "say what the skill does and when to use it", span, key)
            else:
                add(
                    "FLU208",
                    f"compatibility must be 1-500 characters, not {len(value)}",
                    "state the environment needs briefly, e.g. `compatibility: Requires git and network access`",
                    span,
                    key,
                )
            continue
        if error.validator == "type":
            if key == "metadata" and len(where_path) == 2:
                sub = str(where_path[1])
                add(
                    "FLU209",
                    f"metadata value `{sub}` is {_kind(error.instance)}; metadata values must be strings",
                    f'flatten it into string values (e.g. `{sub}.field: "value"`) or write it as one quoted string',
                    value_span(where_path),
                    key,
                )
            else:
                message = f"`{key}` must be {_expected(key)}, not {_kind(error.instance)}"
                add("FLU202", message, _type_hint(key, error.instance), value_span(where_path), key)
            continue
        add(
            "FLU202", f"`{key}`: {error.message}", "see `flue-skills schema` for the rules", value_span(where_path), key
        )

    name = data.get("name")
    if directory is not None and isinstance(name, str) and is_valid_name(name) and name != directory:
        add(
            "FLU205",
            f"name `{name}` differs from its directory `{directory}`",
            f"rename the directory to `{name}` or set `name: {directory}`",
            value_span(("name",)),
            "name",
        )

    tools = data.get("allowed-tools")
    if isinstance(tools, str) and "," in tools:
        add(
            "FLU211",
            "allowed-tools looks comma-separated; the spec separates tools with spaces",
            f"write it as `allowed-tools: {_space_separated(tools)}`",
            value_span(("allowed-tools",)),
            "allowed-tools",
        )

    known = schema.known_fields()
    for key in data:
        if key not in known:
            add("FLU210", f"unknown field `{key}`", _unknown_hint(key, data[key], known), key_span((key,)), key)
    return out


def _expected(key: str) -> str:
    return "a mapping of strings" if key == "metadata" else "a string"


def _type_hint(key: str, value: object) -> str:
    if key == "metadata":
        return _METADATA_EXAMPLE
    if key == "allowed-tools" and isinstance(value, list) and all(isinstance(v, str) for v in value):
        return f"write it as a space-separated string: `allowed-tools: {' '.join(value)}`"
    if key == "allowed-tools":
        return "write it as a space-separated string: `allowed-tools: Read Write`"
    return f"write `{key}` as one string (quote it if it holds `: ` or starts with a special character)"


def _space_separated(tools: str) -> str:
    """`Read, Write, Bash(git log:*)` as `Read Write Bash(git log:*)`: commas outside parentheses."""
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
    return " ".join(p for p in parts if p)


def _unknown_hint(key: str, value: object, known: frozenset[str]) -> str:
    import difflib

    close = difflib.get_close_matches(key.replace("_", "-").lower(), sorted(known), n=1, cutoff=0.75)
    if close:
        return f"did you mean `{close[0]}`?"
    if key in _EXTENSION_FIELDS:
        return (
            f"`{key}` is another agent's extension, not part of the Agent Skills spec; other agents ignore it. "
            "Keep it if you target that agent, or move it under `metadata:`"
        )
    shown = value if isinstance(value, str) else "..."
    return f'not part of the Agent Skills spec; move it under metadata, e.g. `metadata: {{{key}: "{shown}"}}`'


__all__ = [
    "NAME_MAX",
    "SKILL_FILE",
    "SkillFile",
    "SkillMetadata",
    "check_skill_file",
    "check_fields",
    "check_skill_md",
]
