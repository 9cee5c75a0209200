"""The path a typo meant: the one owner of "did you mean" for a spec that names nothing (the build's
FLU404, the run time's missing skill), so both suggest the same fix."""

from __future__ import annotations

import difflib
import os
from collections.abc import Sequence

__all__ = ["nearest_path"]


def nearest_path(base: str, parts: Sequence[str]) -> list[str] | None:
    """`parts` (a spec's segments below `base`, `.` and `..` kept) with each segment that names nothing
    replaced by the closest name in its folder, when that leads to an existing file; None otherwise (nothing
    was wrong, or nothing is close: `refnds` → `refunds`, `skils` → `skills`)."""
    current, fixed, changed = base, [], False
    for index, part in enumerate(parts):
        if part in (".", ".."):
            current = current if part == "." else os.path.dirname(current)
        elif not os.path.lexists(os.path.join(current, part)):
            last = index == len(parts) - 1
            try:
                names = [n for n in os.listdir(current) if last or os.path.isdir(os.path.join(current, n))]
            except OSError:
                return None
            close = difflib.get_close_matches(part, names, n=1, cutoff=0.6)
            if not close:
                return None
            part, changed = close[0], True
            current = os.path.join(current, part)
        else:
            current = os.path.join(current, part)
        fixed.append(part)
    return fixed if changed and os.path.isfile(current) else None
