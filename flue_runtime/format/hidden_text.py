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
read. ASCII text and binary files cost a byte search; other text is searched in the few bytes these
characters are made of in UTF-8, and only text that holds one is read run by run (BENCHMARKS.md,
"Hidden text and frontmatter other readers take differently").
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from flue_runtime.format.diagnostics import Diagnostic, diagnostic
from flue_runtime.format.text_files import SNIFF, head_is_text

__all__ = ["Hidden", "HiddenScan", "Run", "hidden_diagnostics", "scan_hidden"]


#: Runs of each code reported per file; past it, one diagnostic says how many more.
SHOWN = 3
#: Characters of a run shown escaped, and of the line on either side of it.
_RUN_SHOWN = 8
_CONTEXT = 24
#: Characters of what tag characters spell shown in the message.
_SPELLED = 120

# The characters in UTF-8 (a match in valid UTF-8 is exactly one of them: no continuation byte starts a character).
_TAG = rb"\xf3\xa0[\x80\x81][\x80-\xbf]"
_ZWJ = rb"\xe2\x80\x8d"
_NOT_ZWJ = rb"\xe2\x80[\x8b\x8c\x8e\x8f\xaa-\xae]|\xe2\x81[\xa0\xa6-\xa9]|\xd8\x9c|\xef\xbb\xbf"
_OTHER = _NOT_ZWJ + b"|" + _ZWJ
#: What may stand either side of a zero-width joiner in an emoji sequence, in UTF-8: pictographs (U+1F000-U+1FAFF,
#: skin tones among them), symbols and dingbats (U+2080-U+2BFF, past the punctuation block that holds the hidden
#: characters), U+203C, U+2049, U+3030, U+303D, U+3297, U+3299, U+00A9, U+00AE, and before it the emoji
#: presentation selector (U+FE0F).
_EMOJI = (
    rb"\xf0\x9f[\x80-\xab][\x80-\xbf]",
    rb"\xe2[\x82-\xaf][\x80-\xbf]",
    rb"\xe2\x80\xbc",
    rb"\xe2\x81\x89",
    rb"\xe3\x80[\xb0\xbd]",
    rb"\xe3\x8a[\x97\x99]",
    rb"\xc2[\xa9\xae]",
)
_AHEAD = b"(?=" + b"|".join(_EMOJI) + b")"
_NOT_AFTER = b"".join(b"(?<!" + emoji + _ZWJ + b")" for emoji in (*_EMOJI, rb"\xef\xb8\x8f"))
#: A joiner that is not one between two emoji (each pattern starts with its bytes: a fast search).
_NO_EMOJI_SIDE = b"(?:(?!" + _AHEAD + b")|" + _NOT_AFTER + b")"
_LONE_ZWJ = _ZWJ + _NO_EMOJI_SIDE
#: The emoji flags tag characters exist for: a black flag (U+1F3F4), a subdivision in tags, a cancel tag (U+E007F).
_FLAGS = (
    "\U0001f3f4" + "".join(chr(0xE0000 + ord(c)) for c in f"{region}\x7f") for region in ("gbeng", "gbsct", "gbwls")
)
#: A run of each kind (other characters, tags), but a joiner alone between two emoji and a flag's tag sequence: a
#: run starts with its first character (never inside another run) and is taken whole (`*+`: no shorter run is tried).
_RUNS = (
    re.compile(b"(?:" + _NOT_ZWJ + b"|" + _LONE_ZWJ + b")(?:" + _OTHER + b")*+"),
    re.compile(
        _TAG
        + b"(?<!"
        + _TAG
        + _TAG
        + b")(?:"
        + _TAG
        + b")*+"
        + b"".join(b"(?<!" + re.escape(f.encode()) + b")" for f in _FLAGS)
    ),
)
#: The hidden characters after U+2000 but a joiner between emoji, searched for only where their lead byte is (one
#: pattern, starting with that byte: a fast search); U+061C and U+FEFF likewise.
_AFTER_2000 = re.compile(
    rb"\xe2(?:\x80[\x8b\x8c\x8e\x8f\xaa-\xae]|\x81[\xa0\xa6-\xa9]|\x80\x8d" + _NO_EMOJI_SIDE + b")"
)
_ALM, _BOM = re.compile(rb"\xd8\x9c"), re.compile(rb"\xef\xbb\xbf")
#: The bytes before a chunk kept for the next (a character: what precedes a joiner or a flag's tags), and the
#: longest run of hidden characters at a chunk's end held for the next (a flag's tags, a joiner before an emoji).
_TAIL, _HELD = 4, 32
_CONTINUATION = bytes(range(0x80, 0xC0))


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


class HiddenScan:
    """The hidden text of a file read in chunks (`feed` each, then `finish`); a run split between two is found
    whole (up to `_HELD` bytes of it). Memory: the file's first chunk (whether it is text) and the last, and the
    runs kept.

    The first `SHOWN` runs of each kind are found one by one; the rest are only counted, by the pattern alone,
    so a file made of hidden characters costs a pattern's speed, not Python's per run."""

    __slots__ = ("_head", "_size", "_carry", "_lines", "_column", "_tail", "_before", "_text", "_runs", "_counts")

    def __init__(self) -> None:
        #: The file's first bytes, `SNIFF` of them or more once read (the first chunk itself: no copy).
        self._head = b""
        self._size = 0
        #: Bytes at the end of the last chunk read with the next: a character cut there, or a short hidden run.
        self._carry = b""
        #: Line breaks before the bytes being read, and characters after the last of them.
        self._lines = self._column = 0
        #: The last bytes read before (a character: what precedes a joiner or a flag's tags at a chunk's start).
        self._tail = b""
        #: The bytes of the last chunk, until the next comes.
        self._before: bytes | None = None
        #: Whether the file is text (`text_files`), once known.
        self._text: bool | None = None
        self._runs: list[Run] = []
        self._counts = [0, 0]  # runs met: of other characters, of tags

    def feed(self, chunk: bytes) -> None:
        if self._before is not None and self._text is not False:  # a later chunk: positions go on from the last
            self._move_past(self._before)
        if len(self._head) < SNIFF:
            self._head = self._head + chunk if self._head else chunk
        self._size += len(chunk)
        if not self._carry and chunk.isascii():  # nothing hides in ASCII, and no character is cut at its end
            self._before = chunk
            return
        if self._text is None and self._head.find(b"\x00", 0, SNIFF) != -1:
            self._text = False  # not text: a model is shown base64 (whether the head is UTF-8 is judged if need be)
        if self._text is False:
            return
        data = self._carry + chunk if self._carry else chunk
        cut = _held(data)
        data, self._carry = (data[:-cut], data[-cut:]) if cut else (data, b"")
        self._read(data)

    def finish(self) -> Hidden | None:
        """The runs found, or None: none, or not a text file."""
        if self._carry:
            if self._before is not None:
                self._move_past(self._before)
            self._read(self._carry)
            self._carry = b""
        if not any(self._counts) or self._text is False:
            return None
        if not head_is_text(self._head[:SNIFF], complete=self._size <= SNIFF):
            return None
        other, tags = self._counts
        runs = sorted(self._runs, key=lambda run: (run.line, run.column))
        shown_tags = sum(run.tag for run in runs)
        return Hidden(tuple(runs), tags - shown_tags, other - (len(runs) - shown_tags))

    def _read(self, data: bytes) -> None:
        if not data.isascii() and self._text is not False:
            may = _may_hide(data)
            if (may[0] or may[1]) and self._is_text():
                for tag in (False, True):
                    if may[tag]:
                        self._read_runs(data, tag)
        self._before = data

    def _is_text(self) -> bool:
        """Whether the file is text as far as its head has come (decided once the head is whole)."""
        if self._text is None:
            text = head_is_text(self._head[:SNIFF], complete=False)
            if not text or len(self._head) >= SNIFF:
                self._text = text
            return text
        return self._text

    def _move_past(self, data: bytes) -> None:
        """Count the lines and the last line's characters of `data` (a file of one chunk never pays for it)."""
        self._lines += data.count(b"\n")
        newline = data.rfind(b"\n")
        self._column = (self._column if newline == -1 else 0) + _chars(data, newline + 1, len(data))
        self._tail = (self._tail + data[-_TAIL:])[-_TAIL:]
        self._before = None

    def _read_runs(self, data: bytes, tag: bool) -> None:
        """Keep the first runs of a kind (`SHOWN` in all), then count the rest."""
        shift = len(self._tail)
        text = self._tail + data if shift else data  # (the bytes before, for what precedes a run)
        at = shift
        kept = sum(run.tag is tag for run in self._runs)
        for match in _RUNS[tag].finditer(text, shift) if kept < SHOWN else ():
            start, end = match.start() - shift, match.end() - shift
            at = match.end()
            if not tag and start == 0 and self._lines == self._column == 0 and data.startswith(b"\xef\xbb\xbf"):
                start += 3  # a byte-order mark at the file's start is not hidden text
                if start == end:
                    continue
            self._counts[tag] += 1
            self._runs.append(self._run(data, start, end, tag))
            kept += 1
            if kept == SHOWN:
                break
        else:
            if kept < SHOWN:
                return
        self._counts[tag] += len(_RUNS[tag].findall(text, at))  # the rest, counted by the pattern alone

    def _run(self, data: bytes, start: int, end: int, tag: bool) -> Run:
        line_start = data.rfind(b"\n", 0, start) + 1
        column = _chars(data, line_start, start) + (self._column if line_start == 0 else 0) + 1
        line = self._lines + data.count(b"\n", 0, start) + 1
        width = 4 if tag else 3
        shown = data[start : min(end, start + width * max(_RUN_SHOWN, _SPELLED if tag else 0))].decode(
            "utf-8", "ignore"
        )
        length = (end - start) // 4 if tag else _chars(data, start, end)
        left = data[max(line_start, start - 4 * _CONTEXT) : start].decode("utf-8", "replace")[-_CONTEXT:]
        line_end = data.find(b"\n", end)
        right = data[end : min(end + 4 * _CONTEXT, len(data) if line_end == -1 else line_end)]
        context = left + shown[:_RUN_SHOWN] + ("\u2026" if length > _RUN_SHOWN else "")
        context += right.decode("utf-8", "replace")[:_CONTEXT]
        spelled = "".join(chr(ord(char) - 0xE0000) for char in shown[:_SPELLED]) if tag else ""
        return Run(tag, line, column, shown[:_RUN_SHOWN], length, context.rstrip("\r"), spelled)


def _may_hide(data: bytes) -> tuple[bool, bool]:
    """Whether non-ASCII `data` holds a bidi or zero-width character (but a joiner between emoji), and whether it
    may hold a tag character: each lead byte found by memchr first, its pattern searched only where it is."""
    other = (
        (b"\xe2" in data and _AFTER_2000.search(data) is not None)
        or (b"\xd8" in data and _ALM.search(data) is not None)
        or (b"\xef" in data and _BOM.search(data) is not None)
    )
    return other, b"\xf3" in data and b"\xf3\xa0" in data


def _held(data: bytes) -> int:
    """How many bytes at the end of `data` to read with the next chunk: a character cut there, and before it a
    short run of hidden characters (a flag's tags or a joiner whose other side comes next)."""
    cut = _cut(data)
    at = len(data) - cut
    while cut < _HELD and at >= 3:
        if data[at - 1] < 0x80:
            break
        width = 4 if at >= 4 and data[at - 4] == 0xF3 else 3 if data[at - 3] >= 0xE0 else 2
        if not any(pattern.fullmatch(data, at - width, at) for pattern in _ONE):
            break
        at -= width
        cut += width
    return cut if cut < _HELD else _cut(data)


#: One hidden character of each kind.
_ONE = (re.compile(_OTHER), re.compile(_TAG))


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
