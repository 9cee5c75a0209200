"""`fixtures/hostile`'s modules, importable: `corpus` (the hostile cases), `artifacts` (the leak projects) and
`planted` (keys in every container, tokens, placeholders, prose)."""

from __future__ import annotations

import sys

from support.paths import HOSTILE

if str(HOSTILE) not in sys.path:
    sys.path.insert(0, str(HOSTILE))

import artifacts  # noqa: E402
import corpus  # noqa: E402
import planted  # noqa: E402

__all__ = ["artifacts", "corpus", "planted"]
