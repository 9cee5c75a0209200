"""A skill's trigger eval set, `evals/triggers.json`: labelled queries `flue-skills eval` sends to a model.

The entries are those of the Agent Skills guide "Optimizing skill descriptions" (a JSON list of
`{"query": ..., "should_trigger": ...}`); the guide names no place for them, so they live beside the
skill's output evals (`evals/evals.json` in the guide "Evaluating skills"), in the skill's `evals/`
folder. The guide keeps its train and validation queries in two files; here each entry may say its
own `"split"` (`"train"`, the default, or `"validation"`), so one file holds the whole set. The file
is a support file of the skill like any other: vetted, bundled and served. The vetting checks it too
(`trigger_diagnostics`, FLU316, a warning: a broken eval set breaks the eval, not the skill), so `check`
and the build say what is wrong with it before `flue-skills eval` refuses it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from flue_runtime.errors import SkillError
from flue_runtime.format.diagnostics import PER_FILE, Deferred, Diagnostic, More, bounded, deferred, diagnostic
from flue_runtime.format.messages import piece

__all__ = ["SPLITS", "TRIGGERS_FILE", "TriggerQuery", "parse_triggers", "trigger_diagnostics", "trigger_problems"]

#: Where a skill's trigger eval set lives, relative to its folder.
TRIGGERS_FILE = "evals/triggers.json"
#: The splits an entry may name; an entry without one is in the first.
SPLITS = ("train", "validation")
_KEYS = {"query", "should_trigger", "split"}


@dataclass(frozen=True)
class TriggerQuery:
    """One labelled query: a user message, whether the skill should be activated for it, and its split."""

    query: str
    should_trigger: bool
    split: str = SPLITS[0]


def trigger_problems(data: Any) -> list[str]:
    """What is wrong with the parsed JSON of a trigger eval set, one message each (none: it is valid)."""
    return [f"entry {index}: {problem}" if index is not None else problem for index, problem in _problems(data)]


def _problems(data: Any) -> Iterator[tuple[int | None, str]]:
    """Each problem with the index of the entry it is about (None: the whole file), in the entries' order."""
    if not isinstance(data, list):
        yield None, f"the file must hold a JSON list of queries, not {_kind(data)}"
        return
    if not data:
        yield None, "the list holds no queries"
    for index, entry in enumerate(data):
        if not isinstance(entry, dict):
            yield index, f"must be an object with `query` and `should_trigger`, not {_kind(entry)}"
            continue
        query = entry.get("query")
        if not isinstance(query, str) or not query.strip():
            yield index, "`query` must be a non-empty string"
        if not isinstance(entry.get("should_trigger"), bool):
            yield index, "`should_trigger` must be true or false"
        if "split" in entry and entry["split"] not in SPLITS:
            yield index, f"`split` must be one of {', '.join(map(repr, SPLITS))}"
        unknown = sorted(set(entry) - _KEYS)
        if unknown:
            known = ", ".join(sorted(_KEYS))
            yield index, f"unknown key {', '.join(map(repr, unknown))} (known: {known})"


def trigger_diagnostics(data: bytes, path: str) -> list[Diagnostic]:
    """FLU316: what is wrong with the bytes of a skill's eval set at `path` (as shown), each at its line:
    a JSON syntax error where the decoder stopped, a schema problem where its entry starts. In time linear
    in the file's size, and bounded (`diagnostics.bounded`): a file of 100,000 problems words the first few."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return [diagnostic("FLU316 utf-8", path, byte=data[exc.start], offset=exc.start)]
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        return [diagnostic("FLU316 json", path, exc.lineno, exc.colno, problem=exc.msg)]
    except (ValueError, RecursionError) as exc:  # a number past int's digit limit; nesting past the stack
        return [diagnostic("FLU316", path, problem=piece("FLU316 not json", reason=_reason(exc)))]
    return bounded(_found(text, parsed, path))


def _found(text: str, parsed: Any, path: str) -> Iterator[Deferred]:
    """Each problem of the parsed eval set, at its entry's start: made one at a time, for `bounded` to count."""
    starts = _entry_starts(text) if isinstance(parsed, list) else iter(())
    at, position = -1, (0, 0)
    for index, problem in _problems(parsed):
        if index is None:
            yield deferred("FLU316", path, problem=problem)
            continue
        while at < index:  # (the problems come in the entries' order)
            at, position = at + 1, next(starts)
        yield deferred("FLU316", path, *position, problem=piece("FLU316 entry", index=index, problem=problem))


def _entry_starts(text: str) -> Iterator[tuple[int, int]]:
    """The line and column (1-based) where each entry of the JSON list `text` starts (`text` is valid JSON).

    The line breaks are counted from one entry to the next, never from the start again: counted from the
    start for each entry, the time grew with the square of the file's size (issue 41; BENCHMARKS.md)."""
    decoder = json.JSONDecoder()
    at = _blank(text, _blank(text, 0) + 1)  # past the `[`
    line, line_start, counted = 1, 0, 0  # the line of `counted`, where that line starts
    while text[at] != "]":
        breaks = text.count("\n", counted, at)
        if breaks:
            line += breaks
            line_start = text.rfind("\n", counted, at) + 1
        counted = at
        yield line, at - line_start + 1
        _, end = decoder.raw_decode(text, at)
        at = _blank(text, end)
        at = _blank(text, at + 1) if text[at] == "," else at


def _blank(text: str, at: int) -> int:
    """Past the JSON whitespace at `at`."""
    while text[at] in " \t\n\r":
        at += 1
    return at


def parse_triggers(data: str | bytes, where: str = TRIGGERS_FILE) -> list[TriggerQuery]:
    """The queries of a trigger eval set's text or bytes; a `SkillError` headed by `where` and listing every problem
    when it is not valid."""
    try:
        parsed = json.loads(data.decode("utf-8") if isinstance(data, bytes) else data)
    except (ValueError, RecursionError) as exc:  # not UTF-8 (a UnicodeDecodeError), or not JSON
        reason = str(exc) if isinstance(exc, UnicodeDecodeError) else f"not valid JSON: {_reason(exc)}"
        raise SkillError(source=where, reason=reason) from None
    problems = trigger_problems(parsed)
    if problems:  # the first few, and how many more (`bounded`'s words)
        said = bounded(deferred("FLU316", TRIGGERS_FILE, problem=problem) for problem in problems)
        words = problems[:PER_FILE] + [d.message for d in said if isinstance(d, More)]
        raise SkillError(source=where, reason="; ".join(words))
    return [TriggerQuery(e["query"], e["should_trigger"], e.get("split", SPLITS[0])) for e in parsed]


def _reason(exc: ValueError | RecursionError) -> str:
    return "nested too deeply" if isinstance(exc, RecursionError) else str(exc)


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )
