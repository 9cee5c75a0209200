"""The skill catalog's text: one line per skill within a budget, and the lists of names results give.

Its own module so that rendering a catalog (a host listing bundled skills, the benchmark of
mounting) imports none of the agent's tools, sandboxes or vetting.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from flue_runtime.agents.reading import utf8_size

__all__ = [
    "CATALOG_BUDGET",
    "CATALOG_HEADING",
    "CatalogItem",
    "NAMES_LIMIT",
    "PREAMBLE",
    "catalog",
    "catalog_line",
    "listed",
    "names_text",
    "unlisted_line",
]


CATALOG_HEADING = "## Available Skills"
PREAMBLE = (
    "Skills hold instructions for specific tasks. Before starting work that matches a skill's "
    "description, call `activate_skill` with its name and follow the instructions it returns."
)
#: Bytes of skill lines the catalog lists by default (about a hundred skills); `Harness(catalog_budget=...)`.
CATALOG_BUDGET = 16 * 1024
#: At most this many names in a result that lists names (an unknown skill, a changed catalog).
NAMES_LIMIT = 50

CatalogItem = tuple[str, str]  # (name, description)


def catalog_line(name: str, description: str) -> str:
    return f"- **{name}** — {' '.join(description.split())}"


def listed(entries: Sequence[CatalogItem], budget: int | None) -> int:
    """How many of `entries`, in order, fit `budget` bytes of catalog lines (all of them when None)."""
    if budget is None:
        return len(entries)
    used = 0
    for count, (name, description) in enumerate(entries):
        used += _line_size(name, description) + 1
        if used > budget:
            return count
    return len(entries)


@functools.lru_cache(maxsize=4096)
def _line_size(name: str, description: str) -> int:
    """The bytes of a skill's catalog line: worked out once per skill, not at every turn."""
    return utf8_size(catalog_line(name, description))


def unlisted_line(count: int) -> str:
    return (
        f"({count:,} more skill{'s are' if count != 1 else ' is'} not listed here: call `find_skills` with a few "
        "words about the task to find them.)"
    )


def catalog(entries: Sequence[CatalogItem], budget: int | None = None) -> str:
    """The `## Available Skills` section: lines in order while they fit `budget`, then how many more; '' for none."""
    if not entries:
        return ""
    shown = listed(entries, budget)
    lines = [CATALOG_HEADING, "", PREAMBLE, "", *(catalog_line(n, d) for n, d in entries[:shown])]
    if shown < len(entries):
        lines.append(unlisted_line(len(entries) - shown))
    return "\n".join(lines)


def names_text(names: Sequence[str], searchable: bool) -> str:
    """`names` joined, at most `NAMES_LIMIT` of them, then how many more."""
    if len(names) <= NAMES_LIMIT:
        return ", ".join(names) or "none"
    more = f"and {len(names) - NAMES_LIMIT:,} more"
    return ", ".join(names[:NAMES_LIMIT]) + (f", {more} (find_skills searches them all)" if searchable else f", {more}")
