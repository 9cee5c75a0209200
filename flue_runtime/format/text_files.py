"""Whether a file is text: the one rule for what a model is shown as text and what as base64.

The model's reads (`agents.reading`), the MCP server's resources and the hidden-text scan
(`format.hidden_text`) all ask here, so a file whose characters reach a model as text is the file
whose characters are scanned. A file is text when its first `SNIFF` bytes hold no NUL and decode as
UTF-8; an undecodable byte further on is shown as U+FFFD, and the rest as text.
"""

from __future__ import annotations

import codecs

__all__ = ["SNIFF", "head_is_text", "is_text"]


#: How much of a file decides whether it is text.
SNIFF = 64 * 1024


def is_text(data: bytes) -> bool:
    """Whether `data` is shown as text (decided on its first `SNIFF` bytes)."""
    return head_is_text(data[:SNIFF], complete=len(data) <= SNIFF)


def head_is_text(head: bytes, *, complete: bool) -> bool:
    """Whether a file whose first bytes are `head` is text; `complete`: `head` is the whole file (a character cut
    at its end is then undecodable, not the start of the next bytes)."""
    if b"\x00" in head:
        return False
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=complete)
    except UnicodeDecodeError:
        return False
    return True
