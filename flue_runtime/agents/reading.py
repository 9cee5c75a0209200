"""How a file is shown to a model: numbered lines in pages, or base64 for binary data.

A page is at most `MAX_LINES` lines and never more than `MAX_BYTES` of text in all, hints
included; a line longer than a page comes in pieces, each saying the offset and column to
go on from. Files are read as streams, in chunks: the memory a page takes is bounded by
the page, not by the file (a 1 GiB file costs what its first page costs).

Lines end at `\\n` (a `\\r` before it is dropped); offsets count lines from 1, columns count
characters from 1. Whether a file is text is `format.text_files`' rule: its first `SNIFF` bytes hold
no NUL and decode as UTF-8; an undecodable byte further on shows as U+FFFD.
"""

from __future__ import annotations

import base64
import codecs
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import BinaryIO

from flue_runtime.errors import AgentError
from flue_runtime.format.text_files import SNIFF, head_is_text

__all__ = [
    "BINARY_PAGE",
    "HINT_ROOM",
    "MAX_BYTES",
    "MAX_ENTRIES",
    "MAX_LINES",
    "Window",
    "entries_page",
    "page",
    "page_stream",
    "paths_page",
    "text_window",
    "utf8_size",
]


MAX_LINES = 2000
MAX_BYTES = 50 * 1024
#: Entries per page of a folder listing.
MAX_ENTRIES = 1000
#: Bytes of a page kept free for the closing hint (plus the label, which the hint repeats).
HINT_ROOM = 400
#: Raw bytes per binary page: base64 makes 4 characters of 3 bytes; the head and tail fit in HINT_ROOM.
BINARY_PAGE = ((MAX_BYTES - HINT_ROOM) // 4) * 3
_CHUNK = 1 << 20  # large reads: counting the lines of a 1 GiB file takes a second, not five


def utf8_size(text: str) -> int:
    return len(text.encode("utf-8"))


def _check(name: str, value: int | None, minimum: int) -> None:
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < minimum):
        raise AgentError(f"{name} must be an integer of at least {minimum}")


def page(
    data: bytes, label: str, tool: str, offset: int | None = None, limit: int | None = None, column: int | None = None
) -> str:
    """One page of `data` (see `page_stream`)."""
    return page_stream(io.BytesIO(data), len(data), label, tool, offset, limit, column)


def page_stream(
    handle: BinaryIO,
    size: int,
    label: str,
    tool: str,
    offset: int | None = None,
    limit: int | None = None,
    column: int | None = None,
    *,
    header: str = "",
) -> str:
    """One page of the `size` bytes `handle` reads from its start.

    `offset` is a 1-based line (with `column`, a 1-based character in it) for text, a 0-based
    byte for binary data; `limit` caps the lines (text) or bytes (binary) of the page. `header`: a line
    every page starts with (where a remote skill's file came from), within the page's budget.
    """
    _check("offset", offset, 0)
    _check("limit", limit, 1)
    _check("column", column, 1)
    lead = f"{header}\n" if header else ""
    if size == 0:
        return f"{lead}[{label} is empty]"
    head = handle.read(SNIFF)
    handle.seek(0)
    room = MAX_BYTES - HINT_ROOM - 2 * utf8_size(label) - utf8_size(lead)
    if head_is_text(head, complete=len(head) >= size):
        first = max(offset or 1, 1)
        window = text_window(
            handle, first, column or 1, min(limit or MAX_LINES, MAX_LINES), room, numbered=True, label=label
        )
        return lead + window.render(label, tool, first)
    if column is not None:
        raise AgentError(
            f"{label} is a binary file: its offset counts bytes, and there are no columns; leave column out"
        )
    return lead + _binary_page(handle, size, label, tool, offset or 0, min(limit or BINARY_PAGE, (room // 4) * 3))


@dataclass
class Window:
    """Consecutive lines of a text: (number, text) rows, and where the text goes on after them."""

    rows: list[tuple[int, str]] = field(default_factory=list)
    #: (line, column) of the first character not shown, or None when the rows reach the end.
    next: tuple[int, int] | None = None
    #: The text's number of lines.
    lines: int = 0
    #: The column the first row starts at.
    column: int = 1

    def text(self, *, numbered: bool) -> str:
        return "\n".join(f"{n:>6}\t{t}" if numbered else t for n, t in self.rows)

    def render(self, label: str, tool: str, first: int) -> str:
        """Numbered rows and a hint naming the call that reads on."""
        shown = self.text(numbered=True)
        if self.next is None:
            return shown
        line, column = self.next
        if column > 1:
            hint = (
                f"[{label}: line {line} goes on past this page (characters {self.column}-{column - 1} shown); "
                f"call {tool} with offset={line} and column={column} to read on]"
            )
        else:
            hint = f"[{label}: lines {first}-{line - 1} of {self.lines}; call {tool} with offset={line} to read on]"
        return f"{shown}\n{hint}" if shown else hint


def text_window(
    handle: BinaryIO, first: int, column: int, max_lines: int, budget: int, *, numbered: bool, label: str = "the text"
) -> Window:
    """The rows from line `first`, character `column`, that fit `budget` bytes and `max_lines` lines.

    Reads `handle` once, in chunks, holding at most one chunk and the rows: the lines before
    and after the window are only counted. A line that alone does not fit is cut at the
    budget (`next` then points inside it). `AgentError` when `first` or `column` is past the end.
    """
    window = Window(column=column)
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    line = 1  # the line the read position is in
    reading = first == 1  # inside the window (False before it)
    done = False  # past the window: only counting lines
    used = 0
    pieces: list[str] = []  # the row being read
    row_size = 0
    skip = column - 1  # characters of the first row before `column`
    last = b"\n"

    def prefix() -> int:
        return max(6, len(str(line))) + 1 if numbered else 0

    def finish() -> None:
        nonlocal used, pieces, row_size
        if skip:
            length = column - 1 - skip  # the characters the line has
            raise AgentError(
                f"{label}: column {column} is past the end of line {line}, which has {length:,} "
                f"character{'s' if length != 1 else ''}; use a column from 1 to {max(length, 1)}"
            )
        text = "".join(pieces)
        window.rows.append((line, text[:-1] if text.endswith("\r") else text))
        used += prefix() + row_size + 1
        pieces, row_size = [], 0

    while chunk := handle.read(_CHUNK):
        last = chunk[-1:]
        position = 0
        while position < len(chunk):
            if done:
                line += chunk.count(b"\n", position)
                break
            if not reading:
                if line + chunk.count(b"\n", position) < first:
                    line += chunk.count(b"\n", position)
                    break
                while line < first:
                    position = chunk.index(b"\n", position) + 1
                    line += 1
                reading = True
                continue
            end = chunk.find(b"\n", position)
            stop = len(chunk) if end < 0 else end
            piece = decoder.decode(chunk[position:stop], final=end >= 0)
            position = stop if end < 0 else end + 1
            if skip:
                dropped = min(skip, len(piece))
                piece, skip = piece[dropped:], skip - dropped
            size = utf8_size(piece)
            room = budget - used - prefix() - 1 - row_size
            if size > room:
                if not window.rows:  # a line longer than a page: its first piece
                    pieces.append(piece.encode("utf-8")[: max(room, 0)].decode("utf-8", "ignore"))
                    window.rows.append((line, "".join(pieces)))
                    window.next = (line, column + sum(len(p) for p in pieces))
                else:  # the whole row goes to the next page
                    window.next = (line, 1)
                done = True
                line += end >= 0
                continue
            pieces.append(piece)
            row_size += size
            if end >= 0:
                finish()
                line += 1
                if len(window.rows) == max_lines:
                    window.next = (line, 1)
                    done = True
    if reading and not done and last != b"\n":
        pieces.append(decoder.decode(b"", final=True))
        finish()
    window.lines = line - 1 if last == b"\n" else line
    if not reading or first > window.lines:
        raise AgentError(
            f"offset {first} is past the end of {label} ({window.lines:,} line{'s' if window.lines != 1 else ''}); "
            f"use an offset from 1 to {window.lines}"
        )
    if window.next is not None and window.next[0] > window.lines:
        window.next = None  # the page ended where the text ends
    return window


def _binary_page(handle: BinaryIO, size: int, label: str, tool: str, start: int, limit: int) -> str:
    if start and start >= size:
        raise AgentError(
            f"offset {start} is past the end of {label} ({size:,} bytes); use an offset from 0 to {size - 1}"
        )
    handle.seek(start)
    chunk = handle.read(limit)
    end = start + len(chunk)
    head = f"[binary file {label}, {size} bytes; base64 of bytes {start}-{end}]"
    tail = f"\n[call {tool} with offset={end} to read on]" if end < size else ""
    return head + "\n" + base64.b64encode(chunk).decode("ascii") + tail


def entries_page(
    entries: Sequence[tuple[str, bool, int]],
    label: str,
    tool: str,
    offset: int | None,
    limit: int | None,
    *,
    header: str = "",
) -> str:
    """A page of a folder listing: `name/` for a folder, `name  (N bytes)` for a file; 1-based `offset`; `header`
    a line it starts with (as `page_stream`'s)."""
    lead = f"{header}\n" if header else ""
    if not entries:
        _check("offset", offset, 0)
        _check("limit", limit, 1)
        return f"{lead}(empty folder)"
    rows = [f"{name}/" if is_dir else f"{name}  ({size} bytes)" for name, is_dir, size in entries]
    first, shown = _rows(rows, label, "entries", offset, limit, utf8_size(label) + utf8_size(lead))
    last = first + len(shown) - 1
    if last < len(rows):
        shown.append(f"[{label}: entries {first}-{last} of {len(rows)}; call {tool} with offset={last + 1} to read on]")
    return lead + "\n".join(shown)


def paths_page(
    paths: Sequence[str], label: str, tool: str, offset: int | None, limit: int | None, *, header: str = ""
) -> str:
    """A page of the files under folder `label` (full paths a model reads with `tool`, `- path` each), after a line
    saying what they are; it ends with the call that lists the next page, the path and offset as they are to be
    sent. 1-based `offset`, counting files; `header` a line it starts with (as `page_stream`'s)."""
    lead = f"{header}\n" if header else ""
    head = f"{lead}Support files under {label} ({len(paths):,}; read each with {tool}):"
    if not paths:
        return f"{lead}No support files under {label}."
    room = 2 * utf8_size(label) + utf8_size(lead)
    first, shown = _rows([f"- {path}" for path in paths], label, "files", offset, limit, room)
    last = first + len(shown) - 1
    if last < len(paths):
        shown.append(
            f"[{label}: files {first}-{last} of {len(paths):,}; call {tool} with path={label} and offset={last + 1} "
            "to read on]"
        )
    return "\n".join([head, *shown])


def _rows(
    rows: Sequence[str], label: str, what: str, offset: int | None, limit: int | None, hint: int
) -> tuple[int, list[str]]:
    """The 1-based number of the first row shown, and the rows from `offset` that fit a page (`MAX_ENTRIES` of them
    at most, in `MAX_BYTES` with room for a closing hint naming `label` `hint` bytes long)."""
    _check("offset", offset, 0)
    _check("limit", limit, 1)
    first = max(offset or 1, 1)
    if first > len(rows):
        raise AgentError(
            f"offset {first} is past the end of {label} ({len(rows):,} {what}); use an offset from 1 to {len(rows)}"
        )
    budget = MAX_BYTES - HINT_ROOM - utf8_size(label) - hint
    shown: list[str] = []
    used = 0
    for row in rows[first - 1 : first - 1 + min(limit or MAX_ENTRIES, MAX_ENTRIES)]:
        used += utf8_size(row) + 1
        if used > budget:
            break
        shown.append(row)
    return first, shown
