"""Split a SKILL.md into frontmatter and body, and read the frontmatter YAML safely.

The YAML is read from parser events, never constructed: every scalar stays a string,
duplicate keys are reported, aliases are refused (no billion-laughs expansion), nesting
is bounded without recursion, and every key and value keeps its line and column.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from flue_runtime.errors import SkillError
from flue_runtime.format.diagnostics import Diagnostic, diagnostic
from flue_runtime.format.messages import piece

__all__ = ["FRONTMATTER_LIMIT", "Frontmatter", "MAX_NESTING", "Mark", "Span", "decode_text", "parse", "yaml_quote"]


#: Frontmatter larger than this is refused; SKILL.md metadata is a few hundred bytes.
FRONTMATTER_LIMIT = 64 * 1024
#: Deepest nesting of mappings and sequences accepted in frontmatter.
MAX_NESTING = 32

_CLOSING = re.compile(r"^---[ \t]*\r?$", re.MULTILINE)
_OPENING = re.compile(r"---[ \t]*\r?(?:\n|$)")

Path = tuple[str | int, ...]


class Mark(Protocol):
    """A position as the YAML parser reports it, 0-based."""

    @property
    def line(self) -> int: ...

    @property
    def column(self) -> int: ...


class Span(NamedTuple):
    """A 1-based line and column inside SKILL.md (a tuple: one is made per key and value read)."""

    line: int
    column: int


@dataclass
class Frontmatter:
    """What a SKILL.md holds, with the place of every frontmatter key and value.

    `data` is None when the frontmatter could not be read; `diagnostics` says why.
    """

    path: str
    data: dict[str, Any] | None = None
    #: The YAML text between the `---` lines, for readers that type it (the MCP entry's frontmatter).
    yaml: str = ""
    body: str = ""
    body_offset: int = 0
    #: Where each key and value starts, as the YAML parser marked it (0-based inside the YAML
    #: text, which starts on line `first_line`): made spans only when a diagnostic needs one.
    keys: dict[Path, Mark] = field(default_factory=dict)
    values: dict[Path, Mark] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    first_line: int = 2

    def key_span(self, path: Path) -> Span:
        return self.span(self.keys.get(path) or self.values.get(path))

    def value_span(self, path: Path) -> Span:
        return self.span(self.values.get(path) or self.keys.get(path))

    def span(self, mark: Mark | None) -> Span:
        """The 1-based line and column in SKILL.md of a parser mark (line 1 column 1 without one)."""
        return Span(mark.line + self.first_line, mark.column + 1) if mark is not None else Span(1, 1)


def decode_text(data: bytes, path: str) -> tuple[str | None, list[Diagnostic]]:
    """UTF-8 text without its BOM, or a diagnostic at the first bad byte."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _position(data[: exc.start].decode("utf-8", "replace"), None)
        return None, [diagnostic("FLU102 utf-8", path, line, column, byte=data[exc.start], offset=exc.start)]
    if text.startswith("\ufeff"):
        text = text[1:]
    nul = text.find("\x00")
    if nul >= 0:
        line, column = _position(text, nul)
        return None, [diagnostic("FLU102 nul", path, line, column)]
    return text, []


def parse(data: bytes, path: str, limit: int = FRONTMATTER_LIMIT) -> Frontmatter:
    """Read SKILL.md bytes into a `Frontmatter`; problems land in its diagnostics."""
    result = Frontmatter(path)
    text, problems = decode_text(data, path)
    if text is None:
        result.diagnostics.extend(problems)
        return result
    opening = _OPENING.match(text)
    if opening is None:
        late = text.lstrip().startswith("---")  # something comes before the opening line
        result.diagnostics.append(diagnostic("FLU103 late" if late else "FLU103", path, 1, 1))
        return result
    start = opening.end()
    closing = _closing(text, start)
    if closing is None:
        result.diagnostics.append(diagnostic("FLU104", path, 1, 1))
        return result
    yaml_text = result.yaml = text[start : closing.start()]
    close_line = 1 + text.count("\n", 0, closing.start())
    # Characters never outnumber UTF-8 bytes: encode only when the count is close.
    if len(yaml_text) > limit or len(yaml_text.encode("utf-8")) > limit:
        result.diagnostics.append(diagnostic("FLU105", path, close_line, 1, limit=limit))
        return result
    body_start = closing.end() + 1 if text.startswith("\n", closing.end()) else closing.end()
    result.body = text[body_start:]
    # The body is a suffix of the file, so its byte offset needs no BOM or newline arithmetic.
    result.body_offset = len(data) - len(result.body.encode("utf-8"))
    if not _read_plain(yaml_text, result):
        _read_yaml(yaml_text, result, first_line=2)
    return result


def _closing(text: str, start: int) -> re.Match[str] | None:
    """The closing line: `_CLOSING` is tried only where a line starts with `---`, found by `str.find`, which
    passes over a large file (a hostile one: tens of megabytes) many times faster than a multiline search."""
    at = start
    while True:
        if text.startswith("---", at) and (closing := _CLOSING.match(text, at)):
            return closing
        newline = text.find("\n---", at)
        if newline == -1:
            return None
        at = newline + 1


def _position(text: str, offset: int | None) -> tuple[int, int]:
    """1-based line and column of `offset` (or of the end) in `text`."""
    if offset is None:
        offset = len(text)
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


def _refused(result: Frontmatter, mark: Mark, key: str, /, **values: Any) -> SkillError:
    """A YAML feature refused (FLU109) at `mark`: `key` of `messages.CODES` and its values."""
    where = result.span(mark)
    return SkillError([diagnostic(key, result.path, where.line, where.column, **values)])


_KEY_LINE = re.compile(r"^(\s*[\w.-]+):[ \t]+(\S.*?)\s*$")


def _yaml_hint(problem: str, offending: str, line: str) -> str:
    """What PyYAML's `problem` most likely means, from its words (PyYAML has no error codes)."""
    if "mapping values are not allowed" in problem:
        keyed = _KEY_LINE.match(line)
        example = piece("yaml: colon example")
        if keyed:
            example = f"{keyed.group(1)}: {json.dumps(keyed.group(2), ensure_ascii=False)}"
        return piece("yaml: colon", example=example)
    if offending == "\t":
        return piece("yaml: tab")
    if "cannot start any token" in problem:
        return piece("yaml: token", char=offending)
    if "control characters" in problem or "special characters" in problem:
        return piece("yaml: control")
    if "expected <block end>" in problem or "did not find expected key" in problem:
        return piece("yaml: indentation")
    return piece("yaml: other")


# --- the common shape, without PyYAML -------------------------------------------------------
#
# Most frontmatter is `key: value` lines, maybe one `metadata:` block and a list of plain items.
# That shape is read here directly, so a process need not import PyYAML. Kept by measurement (issue 35):
# without it `flue-skills check` of three skills and a dev-mode agent's start-up pay that import, more than
# a few percent of either; an installed agent never reads YAML (the manifest carries the frontmatter), and
# verdicts are byte-identical with or without this reader on every corpus we have (BENCHMARKS.md, "Issue 35:
# hand-written code beside PyYAML and jsonschema"). Anything else, including every mistake, is declined and
# goes to PyYAML, which reports it; a property test proves both readers agree wherever this one reads
# (tests/fuzz/test_fuzz_frontmatter.py).

_ENTRY = re.compile(r"( *)([A-Za-z_][A-Za-z0-9_.-]*):(?: +(.*))?")
_ITEM = re.compile(r"( *)- +(.*)")
_PLAIN_START = re.compile(r"[^-?:,\[\]{}#&*!|>'\"%@` ]")


class _At(NamedTuple):
    """A 0-based position, as the YAML parser would mark it."""

    line: int
    column: int


def _scalar(text: str) -> str | None:
    """The string a one-line scalar means, or None when it is not one of the plain forms read here."""
    if text[:1] in {'"', "'"}:
        quote, inner = text[0], text[1:-1]
        return inner if len(text) > 1 and text[-1] == quote and quote not in inner and "\\" not in inner else None
    if not text or not _PLAIN_START.match(text) or ": " in text or " #" in text or text.endswith(":"):
        return None
    return text


def _read_plain(text: str, result: Frontmatter) -> bool:
    """Read `text` when it has the common shape (see above); False, with `result` untouched, otherwise."""
    # Printable in Python's sense is narrower than YAML's: no tab, CR, control, line or paragraph
    # separator, BOM or unassigned code point. Text holding any of those goes to PyYAML.
    if not text.replace("\n", "").isprintable():
        return False
    lines = text.split("\n")
    data: dict[str, Any] = {}
    keys: dict[Path, Mark] = {}
    values: dict[Path, Mark] = {}
    index, count = 0, len(lines)
    while index < count:
        line = lines[index]
        if not line.strip(" "):
            index += 1
            continue
        entry = _ENTRY.fullmatch(line)
        if entry is None or entry.group(1) or entry.group(2) in data:
            return False  # not a top-level `key:` line, or a duplicate key: PyYAML says what is wrong
        key, raw = entry.group(2), (entry.group(3) or "").rstrip(" ")
        keys[(key,)] = _At(index, 0)
        index += 1
        if raw in _BLOCK_SCALARS:  # `key: >-` and the like: lines of text, all at one indentation
            found_text = _block_scalar(lines, index)
            if found_text is None:
                return False
            index, lines_read = found_text
            folded, chomp = _BLOCK_SCALARS[raw]
            data[key] = (" " if folded else "\n").join(lines_read) + ("" if chomp else "\n")
            values[(key,)] = _At(index - len(lines_read) - 1, entry.start(3))
            continue
        if raw:
            value = _scalar(raw)
            if value is None:
                return False
            data[key] = value
            values[(key,)] = _At(index - 1, entry.start(3))
            continue
        # `key:` alone: a block mapping of scalars or a list of scalars follows, on the next lines
        while index < count and not lines[index].strip(" "):
            index += 1
        if index == count:
            return False
        first = lines[index]
        item = _ITEM.fullmatch(first)
        nested = _ENTRY.fullmatch(first)
        if item is not None:
            indent = len(item.group(1))
            found: list[str] = []
            values[(key,)] = _At(index, indent)
            while index < count and (item := _ITEM.fullmatch(lines[index])) and len(item.group(1)) == indent:
                value = _scalar(item.group(2).rstrip(" "))
                if value is None:
                    return False
                values[(key, len(found))] = _At(index, item.start(2))
                found.append(value)
                index = _skip_blank(lines, index + 1)
            data[key] = found
        elif nested is not None and nested.group(1):
            indent = len(nested.group(1))
            block: dict[str, str] = {}
            values[(key,)] = _At(index, indent)
            while index < count and (nested := _ENTRY.fullmatch(lines[index])) and len(nested.group(1)) == indent:
                name, raw = nested.group(2), (nested.group(3) or "").rstrip(" ")
                value = _scalar(raw) if raw else None
                if value is None or name in block:
                    return False
                keys[(key, name)] = _At(index, indent)
                values[(key, name)] = _At(index, nested.start(3))
                block[name] = value
                index = _skip_blank(lines, index + 1)
            data[key] = block
        else:
            return False
        if index < count and lines[index].startswith(" "):
            return False  # a line indented otherwise than its block
    if not data:
        return False
    result.data, result.keys, result.values = data, keys, values
    return True


#: The block scalar headers read here: folded (`>`) or literal (`|`), and whether the final line break is stripped.
_BLOCK_SCALARS = {">": (True, False), ">-": (True, True), "|": (False, False), "|-": (False, True)}


def _block_scalar(lines: list[str], index: int) -> tuple[int, list[str]] | None:
    """The lines of a block scalar starting at `index` and the index after them, when they are simple:
    one indentation, no blank line inside, no trailing space, followed by a line that is not indented."""
    first = lines[index] if index < len(lines) else ""
    indent = len(first) - len(first.lstrip(" "))
    if not indent or not first.strip(" "):
        return None
    found: list[str] = []
    while index < len(lines) and lines[index].startswith(" "):
        line = lines[index]
        if line[indent : indent + 1] in {" ", ""} or not line.startswith(" " * indent) or line.endswith(" "):
            return None
        found.append(line[indent:])
        index += 1
    return index, found


def _skip_blank(lines: list[str], index: int) -> int:
    while index < len(lines) and not lines[index].strip(" "):
        index += 1
    return index


def _read_yaml(text: str, result: Frontmatter, first_line: int) -> None:
    import yaml

    # libyaml's event parser alone (a loader would also set up a constructor and a resolver)
    parser_class: Any = getattr(getattr(yaml, "cyaml", None), "CParser", yaml.BaseLoader)
    path = result.path
    result.first_line = first_line
    span = result.span
    parser = parser_class(text)
    try:
        result.data = _compose(parser, result)
    except SkillError as exc:
        result.data = None
        result.diagnostics.extend(exc.diagnostics)
    except yaml.MarkedYAMLError as exc:
        result.data = None
        mark = exc.problem_mark or exc.context_mark
        where = span(mark) if mark is not None else Span(first_line, 1)
        problem = exc.problem or piece("yaml: invalid")
        offending = line_text = ""
        if mark is not None:
            lines = text.split("\n")
            line_text = lines[mark.line].rstrip("\r") if mark.line < len(lines) else ""
            offending = line_text[mark.column : mark.column + 1]
        hint = _yaml_hint(problem, offending, line_text)
        at = (where.line, where.column)
        if exc.context:
            result.diagnostics.append(
                diagnostic("FLU106 in context", path, *at, problem=problem, context=exc.context, hint=hint)
            )
        else:
            result.diagnostics.append(diagnostic("FLU106", path, *at, problem=problem, hint=hint))
    except yaml.reader.ReaderError as exc:
        result.data = None
        line, column = _position(text, exc.position)
        hint = _yaml_hint("control characters", chr(exc.character), "")
        result.diagnostics.append(
            diagnostic("FLU106 character", path, line + first_line - 1, column, code=exc.character, hint=hint)
        )
    except yaml.YAMLError as exc:  # pragma: no cover - every PyYAML error above is marked
        result.data = None
        result.diagnostics.append(diagnostic("FLU106 other", path, first_line, 1, problem=exc))
    if result.data is None and not result.diagnostics:
        result.diagnostics.append(diagnostic("FLU107 empty", path, 1, 1))


class _Frame:
    __slots__ = ("container", "mapping", "path", "key")

    def __init__(self, container: dict[str, Any] | list[Any], path: Path) -> None:
        self.container = container
        self.mapping = isinstance(container, dict)
        self.path = path
        #: In a mapping: the key read whose value comes next, and where it was.
        self.key: tuple[str, Mark] | None = None


def _compose(parser: Any, result: Frontmatter) -> dict[str, Any] | None:
    """Build plain dicts, lists and strings from the parser's events, recording where each starts.

    This loop is most of `check`'s time per skill: the parser is driven directly (`get_event`
    until it returns None), events are told apart by their exact class, and positions stay
    the parser's marks until a diagnostic needs one.
    """
    import yaml

    scalar, mapping_start, sequence_start = yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent
    ends = (yaml.MappingEndEvent, yaml.SequenceEndEvent)
    keys, values = result.keys, result.values
    root: Any = None
    documents = 0
    stack: list[_Frame] = []
    try:
        while (event := parser.get_event()) is not None:
            event_type = type(event)
            if event_type is not scalar and event_type is not mapping_start and event_type is not sequence_start:
                if event_type in ends:
                    stack.pop()
                elif event_type is yaml.DocumentStartEvent:
                    documents += 1
                    if documents > 1:
                        raise _refused(result, event.start_mark, "FLU109 documents")
                elif event_type is yaml.AliasEvent:
                    raise _refused(result, event.start_mark, "FLU109 alias", anchor=event.anchor)
                continue
            mark = event.start_mark
            parent = stack[-1] if stack else None
            if parent is not None and parent.mapping and parent.key is None:  # a key
                if event_type is not scalar:
                    raise _refused(result, mark, "FLU109 complex key")
                key = event.value
                if key in parent.container:
                    first = result.span(keys[(*parent.path, key)])
                    dotted = ".".join(str(p) for p in (*parent.path, key))
                    where = result.span(mark)
                    result.diagnostics.append(
                        diagnostic("FLU108", result.path, where.line, where.column, key=dotted, first=first.line)
                    )
                parent.key = (key, mark)
                continue
            value: Any = event.value if event_type is scalar else {} if event_type is mapping_start else []
            node_path: Path
            if parent is None:
                root, node_path = value, ()
            elif parent.mapping:  # the value of the key before it
                assert parent.key is not None
                key, key_mark = parent.key
                node_path = (*parent.path, key)
                container = parent.container
                if key not in container:  # a duplicate key's value is read, then dropped
                    keys[node_path] = key_mark
                    values[node_path] = mark
                    container[key] = value  # type: ignore[call-overload]
                parent.key = None
            else:
                node_path = (*parent.path, len(parent.container))
                values[node_path] = mark
                parent.container.append(value)  # type: ignore[union-attr]
            if event_type is not scalar:
                if len(stack) >= MAX_NESTING:
                    raise _refused(result, mark, "FLU109 nesting", limit=MAX_NESTING)
                stack.append(_Frame(value, node_path))
    finally:
        parser.dispose()
    if root is None or isinstance(root, dict):
        return root
    where = Span(2, 1)
    key = "FLU107 list" if isinstance(root, list) else "FLU107 string"
    result.diagnostics.append(diagnostic(key, result.path, where.line, where.column))
    return None


def yaml_quote(text: str) -> str:
    """A YAML double-quoted scalar that this reader reads back as `text`: every character it would not is escaped."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif (
            0x20 <= code <= 0x7E
            or (0xA0 <= code <= 0xD7FF and code != 0xFEFF)
            or 0xE000 <= code <= 0xFFFD
            or code >= 0x10000
        ):
            out.append(char)
        elif code <= 0xFF:
            out.append(f"\\x{code:02x}")
        else:
            out.append(f"\\u{code:04x}")
    out.append('"')
    return "".join(out)
