"""Random and mutated SKILL.md files end in a result with diagnostics, never an exception.

Contract of `flue_runtime.format.validate.check_skill_md(data, path, directory)` (and of
`flue_runtime.format.frontmatter.parse` under it): for *any* bytes it returns a `SkillFile`; it
raises nothing. Every problem is a diagnostic with a registered code (FLU102-FLU109 for
the file and its YAML, FLU2xx for the fields); the YAML is read from parser events, so
aliases (FLU109), nesting deeper than 32 levels (FLU109) and frontmatter over the size
limit (FLU105) are refused before anything is built from them.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from flue_runtime.format import frontmatter
from flue_runtime.format.messages import CODES
from flue_runtime.format.validate import check_skill_md

pytestmark = pytest.mark.slow  # hypothesis campaigns

VALID = (
    b'---\nname: pdf-tools\ndescription: "Extract text: PDFs"\nlicense: MIT\ncompatibility: any\n'
    b'metadata:\n  author: me\n  version: "1.0"\nallowed-tools: Read Write\n---\n# Body\n'
)

YAML_PIECES = [
    "---",
    "\n",
    "\r\n",
    ":",
    ": ",
    "- ",
    "[",
    "]",
    "{",
    "}",
    "&a",
    "*a",
    "!!str",
    "!!python/object:os.system",
    "|",
    ">",
    "'",
    '"',
    "#",
    "?",
    "%YAML 1.2",
    "...",
    "\t",
    "\x00",
    "\ufeff",
    "name",
    "description",
    "metadata",
    "allowed-tools",
    "a",
    "é",
    "𝔘",
    "\\",
    "<<",
    "~",
    "null",
    "1.0",
    "  ",
    "\x85",
    "\u2028",
]


def check(data: bytes) -> None:
    result = check_skill_md(data, "s/SKILL.md", "pdf-tools")
    for d in result.diagnostics:
        assert d.code in CODES and d.message
        assert d.line is None or d.line >= 1
    if result.ok:
        assert result.metadata is not None and result.metadata.name == "pdf-tools"
        assert data[result.body_offset :].decode("utf-8") == result.body


@given(st.binary(max_size=2000))
def test_random_bytes(data: bytes) -> None:
    check(data)


@given(st.lists(st.sampled_from(YAML_PIECES), max_size=60))
def test_yaml_shaped_noise(pieces: list[str]) -> None:
    check(("---\n" + "".join(pieces) + "\n---\nbody").encode("utf-8", "surrogatepass"))


@given(
    st.lists(st.tuples(st.integers(0, len(VALID)), st.binary(min_size=0, max_size=8), st.integers(0, 4)), max_size=6)
)
def test_mutated_valid_file(mutations: list[tuple[int, bytes, int]]) -> None:
    data = bytearray(VALID)
    for position, insert, delete in mutations:
        position = min(position, len(data))
        data[position : position + delete] = insert
    check(bytes(data))


@given(st.text(max_size=300), st.text(max_size=300))
def test_any_text_values(name: str, description: str) -> None:
    import json

    check(
        f"---\nname: {json.dumps(name)}\ndescription: {json.dumps(description)}\n---\n".encode("utf-8", "surrogatepass")
    )


LINES = ["---", "--- \t", "---\r", "----", "---x", "-- -", " ---", "a---", "a", ""]


@given(st.lists(st.sampled_from(LINES), max_size=12), st.sampled_from(["\n", "\r\n"]))
@example(["", "---"], "\n")  # the first line empty, the closing line next
@example(["---"], "\n")  # the closing line first: empty frontmatter
@example([" ---", "---x", "----", "---\r"], "\n")
def test_the_closing_line_is_found_where_a_multiline_search_finds_it(lines: list[str], newline: str) -> None:
    """`_closing` looks only where a line starts with `---`; it finds what the multiline pattern finds."""
    text = "---\n" + newline.join(lines)
    start = 4  # after the opening line
    found, expected = frontmatter._closing(text, start), frontmatter._CLOSING.search(text, start)
    assert (found and found.span()) == (expected and expected.span())


# --- the plain reader agrees with PyYAML wherever it reads ---------------------------------------
#
# `frontmatter._read_plain` reads the common shape (`key: value` lines, a block of scalars, a
# list of scalars) without PyYAML and declines everything else. Wherever it reads, the result
# must be PyYAML's exactly: the same data, no diagnostic, every key and value at the same place.

GOOD_KEYS = ["name", "description", "metadata", "allowed-tools", "a", "a.b", "x_y"]
GOOD_VALUES = [
    "pdf-tools",
    "Extract text from PDFs. Use when a PDF is shared",
    "a:b",
    "https://x.y/z",
    "C#",
    "Read, Grep",
    "a]b",
    "-1",
    "~",
    "yes",
    "1.0",
    "null",
    '"quoted: with # inside"',
    "'single'",
    "''",
    '""',
    "é ü 𝔘",
    "a\\b",
    "x  y",
]
KEY_NAMES = [*GOOD_KEYS, "é", "1a", "-a", "a b", '"q"']
VALUE_PIECES = [
    *GOOD_VALUES,
    "Use when: a PDF",
    "a #b",
    "#c",
    "[a, b]",
    "{a: b}",
    "- x",
    "?x",
    ":x",
    "&a",
    "*a",
    "!t",
    "|",
    ">-",
    "%x",
    "@x",
    "`x`",
    '"esc\\n"',
    '"in"side"',
    "'it''s'",
    "\u2028",
    "\x85",
    "\ufeff",
    "\t",
    "\x7f",
    "x:",
    " ",
    "",
]
INDENTS = ["", " ", "  ", "    "]


@st.composite
def plain_shaped(draw: st.DrawFn, near_misses: bool = True) -> str:
    """Frontmatter built from the shapes the plain reader reads, with (`near_misses`) what is just outside them."""
    keys, values = (KEY_NAMES, VALUE_PIECES) if near_misses else (GOOD_KEYS, GOOD_VALUES)
    lines: list[str] = []
    for key in draw(st.lists(st.sampled_from(keys), min_size=1, max_size=6, unique=not near_misses)):
        shapes = ["scalar", "scalar", "scalar", "block", "list", "blank", "text"]
        shape = draw(st.sampled_from([*shapes, "comment", "raw"] if near_misses else shapes))
        if shape == "scalar":
            space = draw(st.sampled_from([" ", "  ", ""] if near_misses else [" ", "  "]))
            lines.append(f"{key}:{space}{draw(st.sampled_from(values))}{draw(st.sampled_from(['', ' ']))}")
        elif shape in {"block", "list"}:
            lines.append(f"{key}:" + draw(st.sampled_from(["", " ", " # c"] if near_misses else ["", " "])))
            indent = draw(st.sampled_from(INDENTS[1:] if shape == "block" else INDENTS))
            inner_keys = draw(
                st.lists(st.sampled_from(keys), min_size=0 if near_misses else 1, max_size=3, unique=True)
            )
            for inner_key in inner_keys:
                inner = draw(st.sampled_from(INDENTS[:3] + [indent, indent])) if near_misses else indent
                value = draw(st.sampled_from(values))
                if shape == "block":
                    lines.append(f"{inner}{inner_key}: {value}")
                else:
                    lines.append(f"{inner}- {value}")
                if draw(st.integers(0, 5)) == 0:
                    lines.append(draw(st.sampled_from(["", "  ", "  more", "# c"] if near_misses else ["", "  "])))
        elif shape == "text":  # a block scalar: `key: >-` and lines of text
            headers = [">", ">-", "|", "|-"] + ([">+", "|2", ">- # c", "> x"] if near_misses else [])
            lines.append(f"{key}: {draw(st.sampled_from(headers))}")
            indent = draw(st.sampled_from(INDENTS[1:]))
            for _ in range(draw(st.integers(0 if near_misses else 1, 3))):
                text = draw(st.sampled_from(values + (["#x", "a: b", " more", "", "x "] if near_misses else [])))
                lines.append(f"{indent}{text}".rstrip(" ") if not near_misses else f"{indent}{text}")
        elif shape == "blank":
            lines.append(draw(st.sampled_from(["", "  "])))
        elif shape == "comment":
            lines.append("# a comment")
        else:
            lines.append(draw(st.sampled_from(values)))
    ending = draw(st.sampled_from(["\n", "\r\n"])) if near_misses else "\n"
    return ending.join(lines) + ending


def read_both(text: str) -> tuple[frontmatter.Frontmatter, frontmatter.Frontmatter, bool]:
    plain, reference = frontmatter.Frontmatter("s/SKILL.md"), frontmatter.Frontmatter("s/SKILL.md")
    read = frontmatter._read_plain(text, plain)
    frontmatter._read_yaml(text, reference, first_line=2)
    return plain, reference, read


@given(plain_shaped() | plain_shaped(near_misses=False))
def test_plain_reader_agrees_with_pyyaml(text: str) -> None:
    plain, reference, read = read_both(text)
    if not read:
        assert plain.data is None and not plain.keys and not plain.values
        return
    assert reference.diagnostics == [], (text, reference.diagnostics)
    assert plain.data == reference.data, text
    paths = set(reference.keys) | set(reference.values) | set(plain.keys) | set(plain.values)
    for path in paths:
        assert plain.key_span(path) == reference.key_span(path), (text, path)
        assert plain.value_span(path) == reference.value_span(path), (text, path)


def test_plain_reader_reads_the_common_shapes() -> None:
    """It is not a reader that always declines: the shapes of the test data above are read."""
    for text in (
        "name: pdf-tools\ndescription: Extract text. Use when a PDF is shared.\n",
        "name: \"pdf-tools\"\ndescription: 'Quoted'\nlicense: MIT\n",
        "name: a\nmetadata:\n  author: me\n  version: 1.0\nallowed-tools: Read Grep\n",
        "name: a\nallowed-tools:\n- Read\n- Edit\n\ndescription: d\n",
        "name: a\ntags:\n  - x\n  - y\n",
        "name: a\ndescription: >-\n  Extract text from PDFs.\n  Use when a PDF is shared.\n\nlicense: MIT\n",
        "name: a\ndescription: |\n  line one\n  line two\n",
    ):
        plain, reference, read = read_both(text)
        assert read, text
        assert plain.data == reference.data


def test_plain_reader_declines_what_pyyaml_must_judge() -> None:
    for text in (
        "name: a\nname: b\n",  # duplicate: FLU108 comes from the YAML reader
        "description: Use when: x\n",  # an error
        "description: >-\n  folded\n\n  after a blank line\n",  # block scalars beyond the simple ones
        "description: >-\n  folded\n    more indented\n",
        "name: a # comment\n",
        "name: &x a\n",
        "name: a\n  continued\n",
        "name: a\r\nb: c\r\n",
        "metadata:\n  a:\n    b: c\n",
        "",
    ):
        assert not frontmatter._read_plain(text, frontmatter.Frontmatter("s/SKILL.md")), text


def test_reading_plain_frontmatter_never_imports_pyyaml() -> None:
    import subprocess
    import sys

    code = (
        "import sys\nfrom flue_runtime.format.validate import check_skill_md\n"
        "r = check_skill_md(b'---\\nname: a\\ndescription: d\\nmetadata:\\n  k: v\\n---\\nbody', 'a/SKILL.md', 'a')\n"
        "assert r.ok, r.diagnostics\nprint('yaml' in sys.modules)"
    )
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"
