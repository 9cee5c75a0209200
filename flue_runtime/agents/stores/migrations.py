"""Schema versions of the database stores: which steps bring a store up to date, or why it cannot be.

Each store lists its steps in order (step N brings version N-1 to N, version 0 being an empty
database) and records the version it reached; a later release appends steps and never edits one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from flue_runtime.errors import StoreError

__all__ = ["Step", "pending"]


Step = TypeVar("Step")


def pending(where: str, found: int, steps: Sequence[Step]) -> Sequence[Step]:
    """The steps still to run on a store at schema version `found`; a store from a newer release is refused."""
    if found > len(steps):
        raise StoreError(
            f"session store {where} has schema version {found}, newer than this flue_runtime knows "
            f"({len(steps)}); upgrade flue-skills on this worker to use it"
        )
    return steps[found:]
