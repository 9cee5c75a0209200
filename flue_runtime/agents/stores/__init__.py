"""Where sessions keep their conversation, state and announced catalog between prompts."""

from __future__ import annotations

import copy
import os
import threading
from dataclasses import dataclass, field
from typing import Any, Protocol

from flue_runtime.models.base import Message


@dataclass
class SessionRecord:
    """Everything a session needs to continue where it stopped."""

    system_prompt: str
    messages: list[Message] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)
    #: The catalog the model was last told about: [name, description] pairs.
    announced: list[tuple[str, str]] = field(default_factory=list)
    #: The instructions the model was last told (system prompt or announcement); None: as the system prompt says.
    instructions: str | None = None
    #: The harness tools offered so far, by name: the set only grows, so tool definitions stay cached.
    tools: list[str] = field(default_factory=list)

    def copy(self) -> SessionRecord:
        """A copy a prompt can work on while the session keeps this one."""
        return SessionRecord(
            self.system_prompt,
            list(self.messages),
            dict(self.state),
            list(self.announced),
            self.instructions,
            list(self.tools),
        )


class Store(Protocol):
    """Session records by id. `Session.prompt` calls these from a worker thread (so a store that waits,
    for a lock or a network, never stalls the event loop): an implementation must be thread-safe."""

    def load(self, session_id: str) -> SessionRecord | None: ...

    def save(self, session_id: str, record: SessionRecord) -> None:
        """Replace the session's record atomically: all of it or nothing."""


class MemoryStore:
    """Sessions in this process's memory; gone when it exits."""

    def __init__(self) -> None:
        self._records: dict[str, SessionRecord] = {}
        self._lock = threading.Lock()

    def load(self, session_id: str) -> SessionRecord | None:
        with self._lock:
            record = self._records.get(session_id)
            return copy.deepcopy(record) if record is not None else None

    def save(self, session_id: str, record: SessionRecord) -> None:
        with self._lock:
            self._records[session_id] = copy.deepcopy(record)


def open_store(store: Store | str | os.PathLike[str] | None) -> Store:
    """The store `Harness(store=...)` names: None (memory), a path (SQLite), or a store object."""
    if store is None:
        return MemoryStore()
    if isinstance(store, (str, os.PathLike)):
        from flue_runtime.agents.stores.sqlite import SQLiteStore

        return SQLiteStore(store)
    return store
