"""The system prompt, and the messages that announce changes to what it said.

The system prompt is fixed when a session starts: the agent's instructions (with its
`use_instruction` texts), then the skill catalog. When either changes later, an
appended message tells the model, so the prompt stays byte-identical and provider
prompt caches stay valid.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from flue_runtime.agents.catalog import (
    PREAMBLE,
    CatalogItem,
    catalog_line,
    listed,
    names_text,
)
from flue_runtime.agents.reading import utf8_size

__all__ = ["announcement", "instructions_announcement", "instructions_text", "system_prompt"]


def instructions_text(instructions: str, extra: Iterable[str]) -> str:
    """The agent's instructions, then each `use_instruction` text, blank-line separated."""
    return "\n\n".join(part for part in (instructions.strip(), *(text.strip() for text in extra)) if part)


def system_prompt(instructions: str, catalog_text: str) -> str:
    return "\n\n".join(part for part in (instructions, catalog_text) if part) + "\n"


def instructions_announcement(before: str, after: str) -> str | None:
    """A message giving the model its new instructions, or None if they did not change."""
    if before == after:
        return None
    if not after:
        return (
            "[Your instructions changed: the instructions at the start of the conversation no longer apply, "
            "and there are none in their place.]"
        )
    return (
        "[Your instructions changed. Follow these from now on, in place of the instructions at the start "
        "of the conversation:]\n\n" + after
    )


def announcement(
    before: Sequence[CatalogItem], after: Sequence[CatalogItem], budget: int | None = None, searchable: bool = False
) -> str | None:
    """A message telling the model how the skills changed since `before`, or None if they did not.

    New and changed lines share the catalog's `budget`; past it, how many more (find_skills
    finds them: a cut here means the whole catalog does not fit either).
    """
    old, new = dict(before), dict(after)
    added = [(n, d) for n, d in after if n not in old]
    removed = [n for n, _ in before if n not in new]
    changed = [(n, d) for n, d in after if n in old and old[n] != d]
    if not (added or removed or changed):
        return None
    lines = ["[The available skills changed.]"]
    if not before:
        lines.append(PREAMBLE)
    room = budget
    for title, items in (("New skills:", added), ("Changed descriptions:", changed)):
        if not items:
            continue
        shown = listed(items, room)
        shown_lines = [catalog_line(n, d) for n, d in items[:shown]]
        lines += [title, *shown_lines]
        if shown < len(items):
            lines.append(f"(and {len(items) - shown:,} more, not listed here: find_skills searches them)")
        if room is not None:
            room -= sum(utf8_size(line) + 1 for line in shown_lines)
    if removed:
        lines.append("No longer available: " + names_text(removed, False))
    lines.append(f"Available skills now: {names_text([n for n, _ in after], searchable)}")
    return "\n".join(lines)
