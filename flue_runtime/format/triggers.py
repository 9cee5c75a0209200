"""A skill's trigger eval set, `evals/triggers.json`: labelled queries `flue-skills eval` sends to a model.

The entries are those of the Agent Skills guide "Optimizing skill descriptions" (a JSON list of
`{"query": ..., "should_trigger": ...}`); the guide names no place for them, so they live beside the
skill's output evals (`evals/evals.json` in the guide "Evaluating skills"), in the skill's `evals/`
folder. The guide keeps its train and validation queries in two files; here each entry may say its
own `"split"` (`"train"`, the default, or `"validation"`), so one file holds the whole set. The file
is a support file of the skill like any other: vetted, bundled and served.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["SPLITS", "TRIGGERS_FILE", "TriggerQuery", "parse_triggers", "trigger_problems"]

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
    if not isinstance(data, list):
        return [f"the file must hold a JSON list of queries, not {_kind(data)}"]
    if not data:
        return ["the list holds no queries"]
    problems: list[str] = []
    for index, entry in enumerate(data):
        where = f"entry {index}"
        if not isinstance(entry, dict):
            problems.append(f"{where}: must be an object with `query` and `should_trigger`, not {_kind(entry)}")
            continue
        query = entry.get("query")
        if not isinstance(query, str) or not query.strip():
            problems.append(f"{where}: `query` must be a non-empty string")
        if not isinstance(entry.get("should_trigger"), bool):
            problems.append(f"{where}: `should_trigger` must be true or false")
        if "split" in entry and entry["split"] not in SPLITS:
            problems.append(f"{where}: `split` must be one of {', '.join(map(repr, SPLITS))}")
        unknown = sorted(set(entry) - _KEYS)
        if unknown:
            problems.append(
                f"{where}: unknown key {', '.join(map(repr, unknown))} (known: query, should_trigger, split)"
            )
    return problems


def parse_triggers(text: str) -> list[TriggerQuery]:
    """The queries of a trigger eval set's text; `ValueError` listing every problem when it is not valid."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"not valid JSON: {exc}") from None
    problems = trigger_problems(data)
    if problems:
        raise ValueError("; ".join(problems))
    return [TriggerQuery(e["query"], e["should_trigger"], e.get("split", SPLITS[0])) for e in data]


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )
