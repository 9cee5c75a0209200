"""The contract every session store keeps, and the store that keeps sessions in memory.

Every store keeps one contract: a save replaces a session's record whole or not at all, and only
if the store still holds the version the record was loaded at. A save that finds a newer version
(another worker's turn landed meanwhile) writes nothing and raises `SessionConflictError`: no turn
is ever silently lost, and prompting again runs on the fresh state.

Session ids come from outside (a request, a command line): `check_session_id` is the one rule
for them, applied where a session is made and by every store before it touches its data.
"""

from __future__ import annotations

import dataclasses
import pickle
import threading
from dataclasses import dataclass, field
from typing import Any, Protocol

from flue_runtime.agents.provenance import Turn
from flue_runtime.errors import SessionConflictError, StoreError
from flue_runtime.format.diagnostics import quoted
from flue_runtime.models.base import Message

__all__ = ["MAX_SESSION_ID", "MemoryStore", "SessionRecord", "Store", "check_session_id", "conflict", "locked_too_long"]


@dataclass
class SessionRecord:
    """Everything a session needs to continue where it stopped."""

    system_prompt: str
    messages: list[Message] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)
    #: The catalog the model was last told about: [name, description] pairs.
    announced: list[tuple[str, str]] = field(default_factory=list)
    #: The stored version this record was loaded at (0: not stored yet); a save moves it on.
    #: Not part of equality: two records with the same content are equal whatever their age.
    version: int = field(default=0, compare=False)
    #: The instructions the model was last told (system prompt or announcement); None: as the system prompt says.
    instructions: str | None = None
    #: The harness tools offered so far, by name: the set only grows, so tool definitions stay cached.
    tools: list[str] = field(default_factory=list)
    #: The session's own choices of skills by name (`Session.disable_skills`, `enable_skills`): False
    #: disabled, True enabled; either wins over the harness's `disabled_skills`.
    skill_switches: dict[str, bool] = field(default_factory=dict)
    #: The session's answers about running skills' scripts (`flue_runtime.agents.approval.ask`), by
    #: `ScriptRequest.key` (the skill's name, origin, server, content digest and the script's path): True approved,
    #: False refused. A key kept before scripts were named matches no request: it approves nothing.
    script_approvals: dict[str, bool] = field(default_factory=dict)
    #: Model turns not saved yet, as `Turn.to_dict()` gives them (see `flue_runtime.agents.provenance`): a save
    #: appends them to the session's turns (`turns(session_id)`) and empties this list; a load leaves it empty
    #: (a long session's history is not read back at every prompt). Not part of equality.
    turns: list[dict[str, Any]] = field(default_factory=list, compare=False)

    def copy(self) -> SessionRecord:
        """A copy a prompt can work on while the session keeps this one (the same version)."""
        return dataclasses.replace(
            self,
            messages=list(self.messages),
            state=dict(self.state),
            announced=list(self.announced),
            tools=list(self.tools),
            skill_switches=dict(self.skill_switches),
            script_approvals=dict(self.script_approvals),
            turns=list(self.turns),
        )


class Store(Protocol):
    """Session records by id. `Session.prompt` calls these from a worker thread (so a store that waits,
    for a lock or a network, never stalls the event loop): an implementation must be thread-safe.

    `load` and `save` every store defines; `turns` has a default (a store that keeps none says so), which a store
    that subclasses `Store` inherits, as `importlib.resources.abc.Traversable`'s defaults are inherited."""

    def load(self, session_id: str) -> SessionRecord | None:
        """The session as its last save left it (one snapshot, never part of a save), or None."""

    def save(self, session_id: str, record: SessionRecord) -> None:
        """Replace the session's record atomically: all of it or nothing.

        Only while the store holds `record.version` (0: the session is not stored yet); then
        `record.version` becomes the new stored version. Otherwise nothing is written and
        `SessionConflictError` says so (see `conflict`). `record.turns` are appended to the session's
        turns in the same save, and emptied."""

    def turns(self, session_id: str) -> list[Turn]:
        """Every saved model turn of the session, first first (none for an unknown session)."""
        raise StoreError(f"the session store {type(self).__name__} keeps no turns (it has no turns method)")


#: The longest session id, in characters.
MAX_SESSION_ID = 256


def check_session_id(session_id: object) -> str:
    """`session_id` unchanged when every store can keep it and a log can show it: a string of 1 to
    `MAX_SESSION_ID` printable characters (no control or format character such as a bidirectional
    override, no lone surrogate, no line break). `StoreError` says which rule it breaks."""
    if not isinstance(session_id, str):
        raise StoreError(f"a session id must be a string, not {type(session_id).__name__}")
    if not session_id:
        raise StoreError("a session id must not be empty")
    if len(session_id) > MAX_SESSION_ID:
        raise StoreError(f"session id {quoted(session_id, 40)} is too long; the limit is {MAX_SESSION_ID}")
    if not session_id.isprintable():
        bad = next(c for c in session_id if not c.isprintable())
        what = "a lone surrogate" if 0xD800 <= ord(bad) <= 0xDFFF else "an unprintable character"
        raise StoreError(
            f"session id {session_id!r} holds {what} (U+{ord(bad):04X}); use printable characters, "
            "such as a UUID or a customer's case number"
        )
    return session_id


def conflict(session_id: str, expected: int, found: int | None = None) -> SessionConflictError:
    """The error every store raises when a save lost the race to another worker's save."""
    held = "a newer version" if found is None else f"version {found}"
    return SessionConflictError(
        f"session {session_id!r} was saved by another worker while this turn ran (the store holds {held}, "
        f"this turn started from version {expected}); this turn was not saved. Prompt again: the session "
        "continues from the stored turn. To avoid this, send one session's prompts to one worker at a time"
    )


def locked_too_long(where: str, timeout: float, store: str) -> StoreError:
    """The error every store raises when another connection held its write lock past the timeout."""
    return StoreError(
        f"session store {where} stayed locked by another connection for over {timeout:g} s "
        f"(a process stuck in a write?); nothing was changed, try again, or give {store} a longer busy_timeout"
    )


class MemoryStore:
    """Sessions in this process's memory; gone when it exits.

    Each record is kept as a snapshot (pickled), so what a caller does later with the record it
    saved or loaded never reaches the store: a snapshot is far cheaper than a deep copy (BENCHMARKS.md).
    """

    def __init__(self) -> None:
        self._records: dict[str, tuple[int, bytes]] = {}  # session -> (version, snapshot)
        self._turns: dict[str, list[bytes]] = {}  # session -> its turns' snapshots
        self._lock = threading.Lock()

    def load(self, session_id: str) -> SessionRecord | None:
        check_session_id(session_id)
        with self._lock:
            stored = self._records.get(session_id)
        if stored is None:
            return None
        record: SessionRecord = pickle.loads(stored[1])
        record.version = stored[0]
        return record

    def save(self, session_id: str, record: SessionRecord) -> None:
        check_session_id(session_id)
        snapshot = pickle.dumps(dataclasses.replace(record, turns=[]), pickle.HIGHEST_PROTOCOL)
        turns = [pickle.dumps(turn, pickle.HIGHEST_PROTOCOL) for turn in record.turns]
        with self._lock:
            found = self._records[session_id][0] if session_id in self._records else 0
            if found != record.version:
                raise conflict(session_id, record.version, found)
            self._records[session_id] = (found + 1, snapshot)
            self._turns.setdefault(session_id, []).extend(turns)
            record.version = found + 1
        record.turns = []

    def turns(self, session_id: str) -> list[Turn]:
        check_session_id(session_id)
        with self._lock:
            stored = list(self._turns.get(session_id, ()))
        return [Turn.from_dict(pickle.loads(turn)) for turn in stored]

    def session_ids(self) -> list[str]:
        with self._lock:
            return sorted(self._records)

    def close(self) -> None:
        """Nothing to release; here so every store can be closed alike."""
