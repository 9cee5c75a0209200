"""Which modules can hold a reference, and on which lines, read from bytes before any parsing.

Most modules of a package never call `skill()`: skipping them unparsed is what keeps a
scan of thousands of modules fast. The search runs on the text Python itself would read
identifiers from: decoded by the declared encoding (a `# coding: utf-7` cookie turns
`+AHM-kill` into `skill`), NFKC-normalised (`ｓkill` is `skill` to Python), line ends as
`\\n`. Everything here may say yes too often, never no when a reference is there.
"""

from __future__ import annotations

import io
import re
import tokenize
import unicodedata
from dataclasses import dataclass

__all__ = ["MODULE", "NEEDLE", "Prefilter", "might_reference", "prefilter", "searchable"]


MODULE = "flue_runtime"
NEEDLE = MODULE.encode()
#: An identifier in UTF-8 text (bytes from 0x80 up are letters of some script, or may be).
_WORD = rb"[A-Za-z0-9_\x80-\xff]"
_IDENTIFIER = rb"[A-Za-z_\x80-\xff]" + _WORD + rb"*"
_ALIAS = re.compile(rb"\bas\s+(" + _IDENTIFIER + rb")")
#: An encoding declaration (PEP 263) may sit on the first two lines: look for one there.
_COOKIE = re.compile(rb"coding[:=]")
#: White space, line continuations and comments between tokens.
_GAP = re.compile(rb"(?:\s|\\\n|#[^\n]*)*")
#: Attributes after a name (`.mount.resolve.skill`), then white space up to what follows.
_CHAIN = re.compile(rb"(?:[ \t\f]|\\\n)*(?:\.(?:\s|\\\n)*" + _IDENTIFIER + rb"(?:[ \t\f]|\\\n)*)*")
#: Nothing but white space, brackets and commas: an assignment may have begun on the line before.
_OPENING = re.compile(rb"[\s(\[,\\]*")
#: An assignment or an assignment expression (not `==`, `<=`, `+=`...).
_ASSIGN = re.compile(rb"(?::=|(?<![=!<>:+\-*/%&|^@])=(?!=))")


@dataclass(frozen=True)
class Prefilter:
    """What the bytes of one module say about its references.

    `hot`: lines where a reference could start; None when every line may (a simple alias
    by assignment, `load = skill`, can make any later call a reference).
    """

    possible: bool
    hot: frozenset[int] | None


def searchable(data: bytes) -> bytes:
    """`data` as Python reads its identifiers, UTF-8 encoded, lines ending in `\\n`.

    A source that does not decode is searched as it is: Python cannot import it, and the
    parser reports it when it mentions `flue_runtime`.
    """
    text = data
    encoding = "utf-8"
    if not data.isascii() or _COOKIE.search(data, 0, _second_line_end(data)):
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except SyntaxError:
            pass
    if not (data.isascii() and encoding in ("utf-8", "utf-8-sig")):
        try:
            decoded = data.decode(encoding)
        except (UnicodeDecodeError, LookupError):
            decoded = None
        if decoded is not None:
            if not unicodedata.is_normalized("NFKC", decoded):
                decoded = unicodedata.normalize("NFKC", decoded)
            text = decoded.encode("utf-8", "surrogatepass")
    if b"\r" in text:
        text = text.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return text


def _second_line_end(data: bytes) -> int:
    """Where an encoding cookie must end: the end of the second line (PEP 263)."""
    first = data.find(b"\n")
    if first < 0:
        return len(data)
    second = data.find(b"\n", first + 1)
    return len(data) if second < 0 else second


_IMPOSSIBLE = Prefilter(False, frozenset())


def prefilter(data: bytes) -> Prefilter:
    """Whether `data` can hold a reference, and where: one pass over the places a name of flue's appears."""
    if NEEDLE not in data and data.isascii() and not _COOKIE.search(data, 0, _second_line_end(data)):
        return _IMPOSSIBLE  # most modules: ASCII, no encoding declared, so Python reads these very bytes
    text = searchable(data)
    if NEEDLE not in text:
        return _IMPOSSIBLE
    names = {b"skill", b"markdown", NEEDLE, *_ALIAS.findall(text)}
    # `\b` also matches next to a non-ASCII letter (`éskill`): too often, which a prefilter may.
    pattern = re.compile(rb"\b(?:" + b"|".join(re.escape(n) for n in sorted(names)) + rb")\b")
    hot: set[int] = set()
    line, position = 1, 0
    for match in pattern.finditer(text):
        line += text.count(b"\n", position, match.start())
        position = match.start()
        follows = _GAP.match(text, match.end())
        following = text[follows.end() : follows.end() + 1] if follows else b""
        if following in (b"(", b".", b")"):
            hot.add(line)
        if _bound_by_assignment(text, match.start(), match.end()):
            return Prefilter(True, None)
    return Prefilter(bool(hot), frozenset(hot))


def might_reference(data: bytes) -> bool:
    """False when the module cannot hold a reference, so it need not be parsed: it never names
    `flue_runtime`, or it never follows `skill`, `markdown`, `flue_runtime` or an `as` alias
    with a call or an attribute, nor binds one of them to another name (a module that only
    imports `SkillReference` for typing)."""
    return prefilter(data).possible


def _bound_by_assignment(text: bytes, start: int, end: int) -> bool:
    """`load = skill`, `a, b = markdown, skill`, `r = fr.mount`: the name (and its attributes)
    is not called, and its statement, up to the name, assigns (`=` or `:=`)."""
    chain = _CHAIN.match(text, end)
    after = chain.end() if chain else end
    if text[after : after + 1] == b"(":
        return False
    begin = max(text.rfind(b"\n", 0, start), text.rfind(b";", 0, start)) + 1
    if _OPENING.fullmatch(text, begin, start) and begin > 0:  # `x = (\n    skill`, `x = \\\n    skill`
        begin = text.rfind(b"\n", 0, begin - 1) + 1
    return _ASSIGN.search(text, begin, start) is not None
