"""How a file is shown to a model: numbered lines in pages, or base64 for binary data.

One page is at most `MAX_LINES` lines or `MAX_BYTES` bytes; the result says how to ask
for the next page, so a model can read a large file without flooding its context.
"""

from __future__ import annotations

import base64

from flue_runtime.errors import PageError

MAX_LINES = 2000
MAX_BYTES = 50 * 1024
#: Raw bytes per binary page: base64 makes 4 characters of 3 bytes, under MAX_BYTES.
BINARY_PAGE = (MAX_BYTES // 4) * 3


def is_text(data: bytes) -> bool:
    if b"\x00" in data:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def page(data: bytes, label: str, tool: str, offset: int | None = None, limit: int | None = None) -> str:
    """One page of `data`; `offset` is a 1-based line for text, a 0-based byte for binary files."""
    for name, value in (("offset", offset), ("limit", limit)):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            raise PageError(f"{name} must be a non-negative integer")
    if limit == 0:
        raise PageError("limit must be at least 1")
    if is_text(data):
        return _text_page(data.decode("utf-8"), label, tool, offset or 1, min(limit or MAX_LINES, MAX_LINES))
    return _binary_page(data, label, tool, offset or 0, min(limit or BINARY_PAGE, BINARY_PAGE))


def _text_page(text: str, label: str, tool: str, first: int, limit: int) -> str:
    lines = text.splitlines()
    total = len(lines)
    if total == 0:
        return f"[{label} is empty]"
    if first > total:
        raise PageError(f"offset {first} is past the end of {label} ({total} lines)")
    shown: list[str] = []
    size = 0
    number = first
    for number in range(first, min(first + limit, total + 1)):
        line = f"{number:>6}\t{lines[number - 1]}"
        size += len(line.encode("utf-8")) + 1
        if shown and size > MAX_BYTES:
            number -= 1
            break
        shown.append(line)
    last = first + len(shown) - 1
    if last < total:
        shown.append(f"[{label}: lines {first}-{last} of {total}; call {tool} with offset={last + 1} to read on]")
    return "\n".join(shown)


def _binary_page(data: bytes, label: str, tool: str, start: int, limit: int) -> str:
    if start and start >= len(data):
        raise PageError(f"offset {start} is past the end of {label} ({len(data)} bytes)")
    chunk = data[start : start + limit]
    end = start + len(chunk)
    head = f"[binary file {label}, {len(data)} bytes; base64 of bytes {start}-{end}]"
    tail = f"\n[call {tool} with offset={end} to read on]" if end < len(data) else ""
    return head + "\n" + base64.b64encode(chunk).decode("ascii") + tail
