"""Random and mutated Python source through the source scanner: a `ScanResult`, never an exception.

Contract of `flue_build.scan.scanner.scan_source(data, display)`: for *any* bytes it returns a
`ScanResult` whose diagnostics carry registered codes (FLU401, FLU402 or FLU403) with
1-based positions, and whose calls hold well-formed specs found in the source. It raises
nothing: a file Python cannot parse (syntax error, NUL byte, bad encoding cookie, nesting
too deep for the parser) is FLU402, and the scope walk is iterative, so an expression or
nesting depth the parser accepts never overflows the scanner's stack.

`scan_file(path, display)` adds reading: a FIFO, socket or device is FLU307 (opened
without blocking, never read), a file that cannot be read is FLU308; it raises nothing
either.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flue_build.scan.scanner import ScanResult, scan_file, scan_source
from flue_runtime.format.messages import CODES
from flue_runtime.format.specs import spec_problem

pytestmark = pytest.mark.slow  # hypothesis campaigns

VALID = b'''\
# -*- coding: utf-8 -*-
"""A module with references."""
from flue_runtime import skill as s, markdown
import flue_runtime as fr

REFUNDS = s("./skills/refunds/SKILL.md")
GUIDE = markdown("./prompts/guide.md")


class Agent:
    PDF = fr.skill("pkg/pdf/SKILL.md")

    def run(self, skill):
        return skill(name)


def load():
    which = "x"
    return s(f"./skills/{which}/SKILL.md")


LAMBDA = lambda markdown: markdown("ignored")
ITEMS = [s("./a/SKILL.md") for s in loaders]
'''

PIECES = [
    "from flue_runtime import skill",
    "from flue_runtime import *",
    "import flue_runtime as fr",
    "from flue_runtime import markdown as m",
    "from flue_runtime.mount.resolve import skill",
    "import flue_runtime.mount.resolve as r",
    "r.skill(",
    "load = skill",
    "load = fr.skill",
    "a, b = skill, markdown",
    "load(",
    "(load := skill)",
    "ｓkill(",
    "skill(",
    "markdown(",
    "fr.skill(",
    "m(",
    ")",
    "(",
    '"./a/SKILL.md"',
    "'./b.md'",
    'f"./{x}/SKILL.md"',
    "x",
    "+",
    ",",
    "*",
    "**",
    "spec=",
    "\n",
    "    ",
    "\t",
    "def f(skill):",
    "class C:",
    "lambda skill:",
    "global skill",
    "nonlocal skill",
    "for skill in y:",
    "[skill for skill in z]",
    "(skill := 1)",
    "match x:",
    "case {**skill}:",
    "case [*skill]:",
    "try:",
    "except E as skill:",
    "async def g():",
    "await ",
    "yield ",
    "@",
    ":",
    "=",
    "\\",
    "#",
    '"""',
    "\x00",
    "\r",
    "\x0c",
    "é",
    "𝔘",
    "\ufeff",
    "# -*- coding: latin-1 -*-",
    "# coding: utf-16",
    "# coding: nope",
    "\xff",
    "pass",
    "return",
    "if",
    "else",
    "not",
    "-",
    "~",
]


def check(data: bytes) -> None:
    result = scan_source(data, "pkg/mod.py")
    assert isinstance(result, ScanResult)
    for d in result.diagnostics:
        assert d.code in {"FLU401", "FLU402", "FLU403"} and d.code in CODES and d.message
        assert d.line is not None and d.line >= 1 and d.column is not None and d.column >= 1
    for call in result.calls:
        assert call.kind in ("skill", "markdown") and spec_problem(call.kind, call.spec) == ""
        assert call.line >= 1 and call.column >= 1
    if any(d.code == "FLU402" for d in result.diagnostics):
        assert result.calls == [] and len(result.diagnostics) == 1


@given(st.binary(max_size=2000))
def test_random_bytes(data: bytes) -> None:
    check(data)


@given(st.lists(st.sampled_from(PIECES), max_size=80))
def test_python_shaped_noise(pieces: list[str]) -> None:
    check(" ".join(pieces).encode("utf-8", "surrogatepass"))


@given(st.lists(st.tuples(st.integers(0, len(VALID)), st.binary(max_size=8), st.integers(0, 4)), max_size=6))
def test_mutated_valid_module(mutations: list[tuple[int, bytes, int]]) -> None:
    data = bytearray(VALID)
    for position, insert, delete in mutations:
        position = min(position, len(data))
        data[position : position + delete] = insert
    check(bytes(data))


@given(st.lists(st.sampled_from(PIECES), max_size=30), st.integers(0, len(VALID)))
def test_valid_module_with_noise_spliced_in(pieces: list[str], position: int) -> None:
    check(VALID[:position] + "".join(pieces).encode("utf-8", "surrogatepass") + VALID[position:])


@given(st.text(max_size=200))
def test_any_literal_spec(spec: str) -> None:
    source = f"from flue_runtime import skill, markdown\nA = skill({spec!r})\nB = markdown({spec!r})\n"
    result = scan_source(source.encode("utf-8", "surrogatepass"), "m.py")
    check(source.encode("utf-8", "surrogatepass"))
    found = {c.kind for c in result.calls}
    for kind in ("skill", "markdown"):
        assert (kind in found) == (spec_problem(kind, spec) == "")  # a literal is a reference or an FLU403
    assert {c.spec for c in result.calls} <= {spec}


@settings(max_examples=60)  # each example parses up to 3,000 levels: keep the CI budget small
@given(
    st.sampled_from(["+", "*", " or ", " and ", " if c else ", ".x(", "[", "lambda: ", "not "]), st.integers(1, 3000)
)
def test_deep_expressions_never_overflow(operator: str, depth: int) -> None:
    closing = {".x(": ")", "[": "]"}.get(operator, "")
    expression = "a" + (operator + "a") * depth if not closing else "a" + operator * depth + "1" + closing * depth
    if operator in ("lambda: ", "not "):
        expression = operator * depth + "a"
    source = f"from flue_runtime import skill\nX = {expression}\nY = skill('./s/SKILL.md')\n".encode()
    result = scan_source(source, "deep.py")
    check(source)
    try:
        ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        assert [d.code for d in result.diagnostics] == ["FLU402"]
    else:
        assert [c.spec for c in result.calls] == ["./s/SKILL.md"], result.diagnostics


def test_scan_file_refuses_a_fifo_without_blocking_and_reports_a_folder(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)  # nobody writes to it: a blocking open would never return
    [problem] = scan_file(fifo, "pkg/pipe.py").diagnostics
    assert (problem.code, problem.path) == ("FLU307", "pkg/pipe.py")
    folder = tmp_path / "folder.py"
    folder.mkdir()
    [problem] = scan_file(folder, lambda: "pkg/folder.py").diagnostics
    assert problem.code == "FLU308" and "cannot read" in problem.message
