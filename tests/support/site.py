"""The documentation site (`docs/`, `mkdocs.yml`): its pages, their sections and code blocks.

The tests that run the site's samples read them from here, so a sample is found on the page
that shows it, and a moved section fails loudly instead of going untested.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

import yaml

from support.paths import ROOT

DOCS = ROOT / "docs"
MKDOCS = ROOT / "mkdocs.yml"

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^(#{1,6}) ")


def page(name: str) -> str:
    """The text of `docs/<name>`."""
    return (DOCS / name).read_text(encoding="utf-8")


def headings(text: str) -> list[tuple[int, int, str]]:
    """(line index, level, line) of every markdown heading outside code blocks."""
    found, fenced = [], False
    for index, line in enumerate(text.split("\n")):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and (match := _HEADING.match(line)):
            found.append((index, len(match.group(1)), line))
    return found


def section(name: str, heading: str) -> str:
    """The lines of page `name` from `heading` (a whole line) to the next heading of its level or higher."""
    lines = page(name).split("\n")
    marks = headings("\n".join(lines))
    starts = [(index, level) for index, level, line in marks if line == heading]
    assert len(starts) == 1, f"{name}: {len(starts)} headings {heading!r}"
    start, level = starts[0]
    end = next((index for index, other, _ in marks if index > start and other <= level), len(lines))
    return "\n".join(lines[start:end]) + "\n"


def nav_pages() -> list[str]:
    """Every page the site's navigation lists, in order."""
    config = yaml.safe_load(MKDOCS.read_text(encoding="utf-8"))
    found: list[str] = []

    def walk(entry: object) -> None:
        if isinstance(entry, str):
            found.append(entry)
        elif isinstance(entry, dict):
            for value in entry.values():
                walk(value)
        elif isinstance(entry, list):
            for item in entry:
                walk(item)

    walk(config["nav"])
    return found


#: A fenced block: its indent, its language, the rest of its opening line (`title="path"`), its code.
_BLOCK = re.compile(r"^( *)```(\w*)( [^\n]*)?\n(.*?)^\1```$", re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class Block:
    """A fenced block: the line it opens on (0-based), its language, its `title="..."` ("" without), its code."""

    line: int
    language: str
    title: str
    code: str


def blocks(text: str) -> list[Block]:
    """Every fenced block of `text`, in order; a block indented in a list is dedented. A block opened as
    ```` ```toml title="pyproject.toml" ```` is the file the title names (the site shows the title above it)."""
    found = []
    for match in _BLOCK.finditer(text):
        indent, language, info, code = match.groups()
        title = re.search(r'\btitle="([^"]*)"', info or "")
        line = text.count("\n", 0, match.start())
        found.append(Block(line, language, title.group(1) if title else "", textwrap.dedent(code) if indent else code))
    return found


def code_blocks(text: str) -> list[tuple[str, str]]:
    """(language, code) of every fenced block of `text`, in order; a block indented in a list is dedented."""
    return [(block.language, block.code) for block in blocks(text)]
