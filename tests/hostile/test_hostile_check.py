"""`flue-skills check` over every hostile case: the expected codes, nothing else, no traceback, bounded time."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hostile_support import ACCEPTED, CLI, REFUSED, Corpus, Verdict, corpus, run


@pytest.mark.slow
@pytest.mark.parametrize("case", REFUSED, ids=[c.folder for c in REFUSED])
def test_check_reports_each_refused_case(
    case: corpus.Case, checked: dict[str, tuple[int, dict[str, Verdict], str]]
) -> None:
    returncode, found, _ = checked["refused"]
    assert returncode == 1
    assert found[case.folder]["error"] == set(case.errors)
    assert found[case.folder]["warning"] == set(case.warnings)


@pytest.mark.slow
@pytest.mark.parametrize("case", ACCEPTED, ids=[c.folder for c in ACCEPTED])
def test_check_accepts_each_accepted_case(
    case: corpus.Case, checked: dict[str, tuple[int, dict[str, Verdict], str]]
) -> None:
    returncode, found, _ = checked["accepted"]
    assert returncode == 0
    assert found[case.folder]["error"] == set()
    assert found[case.folder]["warning"] == set(case.warnings)


@pytest.mark.slow
def test_check_text_output_is_one_printable_line_per_problem(hostile: Corpus) -> None:
    """Names with newlines or bytes that are not UTF-8 are shown escaped: the report stays parseable."""
    proc = run([*CLI, "check", ".agents/skills/unservable-names"], hostile.refused)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    lines = [line for line in proc.stdout.splitlines() if " FLU309 " in line]
    shown = sorted(line.split(": FLU309", 1)[0].rsplit("/", 1)[1] for line in lines)
    assert shown == sorted(
        [
            "back\\slash.md",
            "evil\\nname.md",
            "folder\\nwith-newline",
            "full\uff0ewidth-dot.md",
            "not-utf8-\\xff\\xfe.md",
            "percent%2e%2e.md",
            "tab\\tname.md",
        ]
    )


def test_the_corpus_readme_lists_every_case_with_its_codes() -> None:
    readme = (Path(corpus.__file__).parent / "README.md").read_text(encoding="utf-8")
    rows = {row[0]: row[1] for row in re.findall(r"^\| `([^`]+)` \| .*? \| ([^|]+) \|$", readme, re.MULTILINE)}
    for case in corpus.CASES:
        codes = ", ".join(case.errors) or "accepted"
        if case.warnings:
            codes += " (" + ", ".join(case.warnings) + " warning)"
        assert rows.get(case.folder, "").strip() == codes, case.folder
    assert set(rows) == set(corpus.BY_FOLDER)
