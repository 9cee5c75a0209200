"""Hidden text: characters no editor or review shows, which a model reads or which reorder what a person sees.

Unicode tag characters (U+E0000-U+E007F) spell ASCII text invisibly, and every model reads it: in a
skill's text files they are an error (FLU317), but for the three emoji flags they exist for (England,
Scotland, Wales: a black flag, `gbeng`/`gbsct`/`gbwls` in tags, a cancel tag). Bidirectional controls
(U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C) make text read other than it is stored, and
zero-width characters (U+200B-U+200D, U+2060, U+FEFF but at the start of a file) hide inside words: a
warning each (FLU318), but a zero-width joiner between two emoji (a family, a profession), which is what it
is for. Each run of such characters is reported once, at its line and column, shown escaped (the
diagnostic's words pass `diagnostics.printable`, which escapes all of them), at most `SHOWN` runs of each
code per file, then how many more.

Only text files are read for them: a file a model is shown as text (`text_files`: no NUL in its head,
which decodes as UTF-8); anything else reaches a model as base64, where nothing hides. The scan runs on
the chunks `safe_read` hashes and scans for secrets, so every surface that vets a skill (the builds,
`check`, dev mode, workspace skills, sources, sandboxes, `define_skill`) gets the same verdict from one
read. Text without one of the few lead bytes these characters start with in UTF-8 is passed over at the
speed of a byte search (BENCHMARKS.md, "Hidden text").
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from flue_runtime.format.diagnostics import Diagnostic, diagnostic
from flue_runtime.format.text_files import SNIFF, head_is_text

__all__ = ["SHOWN", "Hidden", "HiddenScan", "Run", "hidden_diagnostics", "scan_hidden"]


#: Runs of each code reported per file; past it, one diagnostic says how many more.
SHOWN = 3
#: Characters of a run shown escaped, and of the line on either side of it.
_RUN_SHOWN = 8
_CONTEXT = 24
#: Characters of what tag characters spell shown in the message.
_SPELLED = 120

# The characters in UTF-8 (a match in valid UTF-8 is exactly one of them: no continuation byte starts a character).
_TAG = rb"\xf3\xa0[\x80\x81][\x80-\xbf]"
_OTHER = rb"\xe2\x80[\x8b-\x8f\xaa-\xae]|\xe2\x81[\xa0\xa6-\xa9]|\xd8\x9c|\xef\xbb\xbf"
_RUNS = re.compile(b"(?P<tag>(?:" + _TAG + b")+)|(?P<other>(?:" + _OTHER + b")+)")
#: The lead bytes of the characters after U+2000, searched for one at a time (a literal first byte is fast).
_E2 = re.compile(rb"\xe2(?:\x80[\x8b-\x8f\xaa-\xae]|\x81[\xa0\xa6-\xa9])")
_CONTINUATION = bytes(range(0x80, 0xC0))
#: The emoji flags tag characters exist for: a black flag, a subdivision in tags, a cancel tag.
_FLAG, _CANCEL = "\U0001f3f4", "\U000e007f"
_FLAGS = frozenset("".join(chr(0xE0000 + ord(c)) for c in tags) + _CANCEL for tags in ("gbeng", "gbsct", "gbwls"))
#: What may stand either side of a zero-width joiner in an emoji sequence: pictographs and symbols, a
#: skin tone, the emoji presentation selector (U+FE0F), the keycap (U+20E3).
_EMOJI = re.compile(
    "[\u00a9\u00ae\u203c\u2049\u20e3\u2122\u2139\u2194-\u21aa\u231a-\u23ff\u24c2\u25aa-\u27bf\u2934\u2935"
    "\u2b05-\u2b55\u3030\u303d\u3297\u3299\ufe0f\U0001f000-\U0001faff]"
)
_ZWJ = "\u200d"


@dataclass(frozen=True, slots=True)
class Run:
    """Consecutive hidden characters of one kind: tag characters (`tag`) or bidi and zero-width ones."""

    tag: bool
    line: int
    column: int
    #: The run's first characters (`_RUN_SHOWN`), and how many it holds in all.
    text: str
    length: int
    #: The line around the run, the run included.
    context: str
    #: What a run of tag characters spells (the ASCII each stands for), at most `_SPELLED` characters.
    spelled: str = ""


@dataclass(frozen=True, slots=True)
class Hidden:
    """The hidden text of one file: the first `SHOWN` runs of each kind, and how many more there are."""

    runs: tuple[Run, ...]
    more_tags: int = 0
    more_other: int = 0

    @property
    def refused(self) -> bool:
        """Tag characters: text every model reads and no one sees."""
        return self.more_tags > 0 or any(run.tag for run in self.runs)


@dataclass(slots=True)
class HiddenScan:
    """The hidden text of a file read in chunks (`feed` each, then `finish`); a run split between two is found
    whole. Memory: the file's first `SNIFF` bytes (whether it is text), and the runs kept."""

    _head: bytes = b""
    _size: int = 0
    #: A character cut at the end of the last chunk, read with the next.
    _carry: bytes = b""
    #: Line breaks before the bytes being read, and characters after the last of them.
    _lines: int = 0
    _column: int = 0
    #: The last character of the bytes read before (what precedes a joiner at a chunk's start).
    _previous: str = ""
    #: The bytes of the last chunk, until the next comes.
    _before: bytes | None = None
    _runs: list[Run] = field(default_factory=list)
    _counts: list[int] = field(default_factory=lambda: [0, 0])  # runs met: of other characters, of tags

    def feed(self, chunk: bytes) -> None:
        if self._before is not None:  # a later chunk: its positions go on from where the one before ends
            self._move_past(self._before)
        if len(self._head) < SNIFF:
            self._head += chunk[: SNIFF - len(self._head)]
        data = self._carry + chunk if self._carry else chunk
        cut = _cut(data)
        data, self._carry = (data[:-cut], data[-cut:]) if cut else (data, b"")
        if not data.isascii() and _may_hide(data):
            self._read_runs(data)
        self._size += len(chunk)
        self._before = data

    def finish(self) -> Hidden | None:
        """The runs found, or None: none, or not a text file."""
        if not any(self._counts) or not head_is_text(self._head, complete=self._size <= SNIFF):
            return None
        other, tags = self._counts
        shown_tags = sum(run.tag for run in self._runs)
        return Hidden(tuple(self._runs), tags - shown_tags, other - (len(self._runs) - shown_tags))

    def _move_past(self, data: bytes) -> None:
        """Count the lines and the last line's characters of `data` (a file of one chunk never pays for it)."""
        self._lines += data.count(b"\n")
        newline = data.rfind(b"\n")
        self._column = (self._column if newline == -1 else 0) + _chars(data, newline + 1, len(data))
        self._previous = _char_before(data, len(data)) or self._previous
        self._before = None

    def _read_runs(self, data: bytes) -> None:
        for match in _RUNS.finditer(data):
            tag = match.lastgroup == "tag"
            start, end = match.span()
            text = match.group().decode("utf-8")
            before = self._previous if start == 0 else _char_before(data, start)
            if tag and before == _FLAG and text in _FLAGS:
                continue
            if not tag:
                if start == 0 and self._size == 0 and text[0] == "\ufeff":  # a byte-order mark: the file's start
                    text, start = text[1:], start + 3
                if not text or (text == _ZWJ and _EMOJI.match(before) and _EMOJI.match(_char_after(data, end))):
                    continue
            self._counts[tag] += 1
            if self._counts[tag] <= SHOWN:
                self._runs.append(self._run(data, start, end, text, tag))

    def _run(self, data: bytes, start: int, end: int, text: str, tag: bool) -> Run:
        line_start = data.rfind(b"\n", 0, start) + 1
        column = _chars(data, line_start, start) + (self._column if line_start == 0 else 0) + 1
        line = self._lines + data.count(b"\n", 0, start) + 1
        left = data[max(line_start, start - 4 * _CONTEXT) : start].decode("utf-8", "replace")[-_CONTEXT:]
        line_end = data.find(b"\n", end)
        right = data[end : min(end + 4 * _CONTEXT, len(data) if line_end == -1 else line_end)]
        context = left + text[:_RUN_SHOWN] + right.decode("utf-8", "replace")[:_CONTEXT]
        spelled = "".join(chr(ord(char) - 0xE0000) for char in text[:_SPELLED]) if tag else ""
        return Run(tag, line, column, text[:_RUN_SHOWN], len(text), context.rstrip("\r"), spelled)


def _may_hide(data: bytes) -> bool:
    """Whether non-ASCII `data` can hold a hidden character: a lead byte's search first (memchr), the
    pattern only where the lead byte is."""
    return (
        (b"\xe2" in data and _E2.search(data) is not None)
        or (b"\xf3" in data and b"\xf3\xa0" in data)
        or (b"\xd8" in data and b"\xd8\x9c" in data)
        or (b"\xef" in data and b"\xef\xbb\xbf" in data)
    )


def _cut(data: bytes) -> int:
    """How many bytes at the end of `data` start a character that goes on in the next chunk (0 to 3)."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:
            return 0
        if byte >= 0xC0:  # a lead byte: how many bytes its character takes
            need = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return back if need > back else 0
    return 0


def _chars(data: bytes, start: int, end: int) -> int:
    """Characters in `data[start:end]`: the bytes that start one (no continuation byte does)."""
    piece = data[start:end]
    return len(piece) if piece.isascii() else len(piece.translate(None, _CONTINUATION))


def _char_before(data: bytes, at: int) -> str:
    return data[max(0, at - 4) : at].decode("utf-8", "replace")[-1:]


def _char_after(data: bytes, at: int) -> str:
    return data[at : at + 4].decode("utf-8", "replace")[:1]


def scan_hidden(data: bytes) -> Hidden | None:
    """The hidden text of `data` (see `HiddenScan`), or None."""
    scan = HiddenScan()
    scan.feed(data)
    return scan.finish()


def hidden_diagnostics(shown: str, hidden: Hidden) -> list[Diagnostic]:
    """FLU317 for each run of tag characters, FLU318 for each run of bidi or zero-width characters, at `shown`
    (the file as diagnostics name it), then one for the runs of each not shown."""
    found = []
    for run in hidden.runs:
        where = (shown, run.line, run.column)
        if run.tag:
            found.append(diagnostic("FLU317", *where, count=run.length, run=run.text, spelled=run.spelled))
        else:
            names = ", ".join(dict.fromkeys(unicodedata.name(char, f"U+{ord(char):04X}") for char in run.text))
            found.append(diagnostic("FLU318", *where, run=run.text, names=names, context=run.context))
    if hidden.more_tags:
        found.append(diagnostic("FLU317 more", shown, more=hidden.more_tags))
    if hidden.more_other:
        found.append(diagnostic("FLU318 more", shown, more=hidden.more_other))
    return found
