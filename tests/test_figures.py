"""Figures live in BENCHMARKS.md only: the code's comments and docstrings say why, never how many milliseconds.

A timing quoted in a docstring goes stale the day the code or the machine changes (issue 23 found several
describing optimisations since undone); BENCHMARKS.md dates every figure."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest
from support.paths import ROOT

#: A measured duration, share or speed-up: "~7 ms", "1 µs", "5%", "a tenth of", "3× faster".
FIGURE = re.compile(
    r"\b\d[\d.,]*\s?(?:ms|µs|us|ns|milliseconds?|microseconds?)\b|\b\d[\d.]*\s?%"
    r"|\ba (?:tenth|third|quarter) of\b|\b\d[\d.]*\s?[x×] (?:faster|slower)\b",
    re.IGNORECASE,
)
FILES = sorted(
    path
    for package in ("flue_runtime", "flue_build", "hatch_plugin/hatch_flue_skills")
    for path in (ROOT / package).rglob("*.py")
)


def prose(source: str) -> list[tuple[int, str]]:
    """Every comment and docstring of `source`, with its line."""
    out = [
        (tok.start[0], tok.string)
        for tok in tokenize.generate_tokens(io.StringIO(source).readline)
        if tok.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc is not None:
                out.append((node.body[0].lineno, doc))
    return out


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_figures_in_comments_or_docstrings(path: Path) -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: {match.group(0)!r}"
        for line, text in prose(path.read_text(encoding="utf-8"))
        for match in FIGURE.finditer(text)
    ]
    assert not found, "figures belong in BENCHMARKS.md: " + "; ".join(found)


def test_the_check_sees_a_figure() -> None:
    source = '"""Fast: ~7 ms to import."""\nx = "10 ms"  # a tenth of the parse\n'
    assert [FIGURE.findall(text) for _, text in prose(source)] == [["a tenth of"], ["7 ms"]]


def test_the_test_files_comments_and_docstrings_name_exist() -> None:
    """A docstring that sends a reader to `tests/...` for the proof names a file that is there."""
    missing = [
        f"{path.relative_to(ROOT)}:{line}: {named}"
        for path in FILES
        for line, text in prose(path.read_text(encoding="utf-8"))
        for named in re.findall(r"\btests/[\w/.-]*\w", text)
        if not (ROOT / named).exists()
    ]
    assert not missing, missing
