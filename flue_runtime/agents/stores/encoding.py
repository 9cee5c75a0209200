"""How a session record is written into a database store's text columns, the same in every one.

JSON with every non-ASCII character escaped: any string a conversation holds (a lone surrogate
from a decoded file included) stores and reads back unchanged, whatever the database's encoding.

The `announced` column holds what the model was told: an object with the catalog (`[name,
description]` pairs), the instructions and the harness tools offered (since the schema step
that says so: SQLite 3, PostgreSQL 2); before, the catalog list alone (read back with no
instructions and no tools). Since SQLite 4, PostgreSQL 3 it also holds the session's skill
switches (`{name: enabled}`, read back as none when absent), and its answers about running
skills' scripts (`script_approvals`, `{key: approved}`, read back as none when absent: no schema
change, since a release that drops them at its next save only makes the session ask again). Since issue 41
a key names the script (`ScriptRequest.key`, a JSON list); a key written before (`name digest origin`)
is read back as it is and matches no request, so an old, broader approval grants nothing.

Since SQLite 5, PostgreSQL 4 a table of turns (`turns`, `flue_turns`) holds each model turn's
provenance (`Turn.to_dict()` as JSON, see `flue_runtime.agents.provenance`), appended by the save
that brings it; a session saved before has none, and reads back the same.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from flue_runtime.agents.provenance import Turn
from flue_runtime.agents.stores.contract import SessionRecord

__all__ = ["EncodedRecord", "decode", "decode_turns", "dump", "kept_prefix"]


def dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, sort_keys=True)


@dataclass(frozen=True)
class EncodedRecord:
    """A record's columns: the state, what the model was told, and each message as JSON text."""

    system_prompt: str
    state: str
    announced: str
    bodies: list[str]
    #: The record's turns not saved yet, each as JSON text.
    turns: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, record: SessionRecord) -> EncodedRecord:
        return cls(
            record.system_prompt,
            dump(record.state),
            dump(
                {
                    "catalog": [list(entry) for entry in record.announced],
                    "instructions": record.instructions,
                    "tools": record.tools,
                    "skill_switches": record.skill_switches,
                    "script_approvals": record.script_approvals,
                }
            ),
            [dump(message) for message in record.messages],
            [dump(turn) for turn in record.turns],
        )


def decode(system_prompt: str, state: str, announced: str, bodies: Iterable[str], version: int) -> SessionRecord:
    told = json.loads(announced)
    if isinstance(told, list):  # written before schema version 3: the catalog alone
        told = {"catalog": told}
    return SessionRecord(
        system_prompt,
        [json.loads(body) for body in bodies],
        json.loads(state),
        [(name, description) for name, description in told["catalog"]],
        version,
        told.get("instructions"),
        list(told.get("tools", [])),
        {str(name): bool(on) for name, on in told.get("skill_switches", {}).items()},
        {str(key): approved is True for key, approved in told.get("script_approvals", {}).items()},
    )


def decode_turns(bodies: Iterable[str]) -> list[Turn]:
    return [Turn.from_dict(json.loads(body)) for body in bodies]


def kept_prefix(stored: Iterable[object], ours: Sequence[object]) -> int:
    """How many of the stored messages (in order) the new record starts with: those stay as they are."""
    kept = 0
    for item in stored:
        if kept == len(ours) or item != ours[kept]:
            break
        kept += 1
    return kept
