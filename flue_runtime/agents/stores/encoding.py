"""How a session record is written into a database store's text columns, the same in every one.

JSON with every non-ASCII character escaped: any string a conversation holds (a lone surrogate
from a decoded file included) stores and reads back unchanged, whatever the database's encoding.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from flue_runtime.agents.stores import SessionRecord


def dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, sort_keys=True)


@dataclass(frozen=True)
class EncodedRecord:
    """A record's columns: the state, the announced catalog and each message as JSON text."""

    system_prompt: str
    state: str
    announced: str
    bodies: list[str]

    @classmethod
    def of(cls, record: SessionRecord) -> EncodedRecord:
        return cls(
            record.system_prompt,
            dump(record.state),
            dump([list(entry) for entry in record.announced]),
            [dump(message) for message in record.messages],
        )


def decode(system_prompt: str, state: str, announced: str, bodies: Iterable[str], version: int) -> SessionRecord:
    return SessionRecord(
        system_prompt,
        [json.loads(body) for body in bodies],
        json.loads(state),
        [(name, description) for name, description in json.loads(announced)],
        version,
    )


def kept_prefix(stored: Iterable[object], ours: Sequence[object]) -> int:
    """How many of the stored messages (in order) the new record starts with: those stay as they are."""
    kept = 0
    for item in stored:
        if kept == len(ours) or item != ours[kept]:
            break
        kept += 1
    return kept
