"""Where sessions keep their conversation, state and what the model was told between prompts.

`open_store` picks a store from what `Harness(store=...)` names; the contract every store keeps is
`stores.contract`, imported from there by everyone. The backends import the contract, never this package's
`__init__`, so opening a store does not close an import circle.
"""

from __future__ import annotations

import os
import re

from flue_runtime.agents.stores.contract import MemoryStore, Store
from flue_runtime.errors import StoreError

__all__ = ["open_store"]


_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
_POSTGRES_SCHEMES = ("postgresql", "postgres")


def open_store(store: Store | str | os.PathLike[str] | None) -> Store:
    """The store `Harness(store=...)` names: None (memory), a `postgresql://` URL (PostgreSQL),
    another path (a SQLite file), or a store object."""
    if store is None:
        return MemoryStore()
    if isinstance(store, str) and _URL.match(store):
        scheme = store.partition("://")[0].lower()
        if scheme not in _POSTGRES_SCHEMES:
            raise StoreError(
                f"session store URL scheme {scheme!r} is not supported: use a postgresql:// URL "
                "(PostgreSQL), a file path (SQLite) or None (memory)"
            )
        from flue_runtime.agents.stores.postgres import PostgresStore

        return PostgresStore(store)
    if isinstance(store, (str, os.PathLike)):
        from flue_runtime.agents.stores.sqlite import SQLiteStore

        return SQLiteStore(store)
    return store
