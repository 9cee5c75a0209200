"""What each diagnostic code means: its row's summary (`messages.CODES`), the schema's limits filled in.

A module of its own because four summaries quote the schema's limits (the schema is the one source of the
field rules), and `format.diagnostics`, which every error imports, must not load the schema and its validator.
"""

from __future__ import annotations

from flue_runtime.format.messages import CODES
from flue_runtime.format.schema import field_rule

__all__ = ["SUMMARIES"]

_RULES = {name: field_rule(name) for name in ("name", "description", "compatibility")}
#: The name pattern as people read it: `(?!\n)` only keeps Python's `$` from accepting a trailing newline.
_NAME_PATTERN = _RULES["name"]["pattern"].replace("(?!\\n)", "")

#: Every code, in the table's order, and what it means (the diagnostics page's table is tested against them).
SUMMARIES: dict[str, str] = {
    code: row.summary.format(**_RULES, name_pattern=_NAME_PATTERN) for code, row in CODES.items()
}
