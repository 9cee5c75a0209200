"""Random and mutated SKILL.md files end in a result with diagnostics, never an exception.

Contract of `flue_runtime.format.validate.check_skill_md(data, path, directory)` (and of
`flue_runtime.format.frontmatter.parse` under it): for *any* bytes it returns a `SkillFile`; it
raises nothing. Every problem is a diagnostic with a registered code (FLU102-FLU109 for
the file and its YAML, FLU2xx for the fields); the YAML is read from parser events, so
aliases (FLU109), nesting deeper than 32 levels (FLU109) and frontmatter over the size
limit (FLU105) are refused before anything is built from them.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from flue_runtime.format.diagnostics import CODES
from flue_runtime.format.validate import check_skill_md

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
