"""The system prompt and the skill catalog: one line per skill, and announcements of changes.

The system prompt is fixed when a session starts; later changes to the set of skills
are told to the model in an appended message, so the prompt stays byte-identical and
provider prompt caches stay valid.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

CATALOG_HEADING = "## Available Skills"
PREAMBLE = (
    "Skills hold instructions for specific tasks. Before starting work that matches a skill's "
    "description, call `activate_skill` with its name and follow the instructions it returns."
)

Entry = tuple[str, str]  # (name, description)


def catalog_line(name: str, description: str) -> str:
    return f"- **{name}** — {' '.join(description.split())}"


def catalog(entries: Sequence[Entry]) -> str:
    """The `## Available Skills` section; empty when no skill is mounted."""
    if not entries:
        return ""
    return "\n".join([CATALOG_HEADING, "", PREAMBLE, "", *(catalog_line(n, d) for n, d in entries)])


def system_prompt(instructions: str, extra: Iterable[str], entries: Sequence[Entry]) -> str:
    parts = [instructions.strip(), *(text.strip() for text in extra), catalog(entries)]
    return "\n\n".join(part for part in parts if part) + "\n"


def announcement(before: Sequence[Entry], after: Sequence[Entry]) -> str | None:
    """A message telling the model how the skills changed since `before`, or None if they did not."""
    old, new = dict(before), dict(after)
    added = [(n, d) for n, d in after if n not in old]
    removed = [n for n, _ in before if n not in new]
    changed = [(n, d) for n, d in after if n in old and old[n] != d]
    if not (added or removed or changed):
        return None
    lines = ["[The available skills changed.]"]
    if not before:
        lines.append(PREAMBLE)
    if added:
        lines += ["New skills:", *(catalog_line(n, d) for n, d in added)]
    if changed:
        lines += ["Changed descriptions:", *(catalog_line(n, d) for n, d in changed)]
    if removed:
        lines.append("No longer available: " + ", ".join(removed))
    names = ", ".join(n for n, _ in after) or "none"
    lines.append(f"Available skills now: {names}")
    return "\n".join(lines)
