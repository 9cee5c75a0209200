"""Issue 41.6: each rule says at most a few things about one file, then how many more; vetting an eval set costs
time in proportion to its size (`flue_runtime/format/diagnostics.py`, `bounded`: the one owner of the bound).

Before, `evals/triggers.json` was vetted in time quadratic in its size (480 KB: 20.6 s) and every problem of every
entry was a warning of its own (80,000 warnings, 32 MB printed by `check`); the same held for any rule that can
find many problems in one file (unknown fields of a SKILL.md, dynamic references in one module).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from flue_build.cli import main
from flue_build.collect import collect
from flue_build.scan.sources import sources_under
from flue_runtime.format.config import FlueConfig
from flue_runtime.format.diagnostics import PER_FILE, Diagnostic, bounded, diagnostic
from flue_runtime.format.skill_folder import vet_skill, vet_tree
from flue_runtime.format.trees import MemoryTree
from flue_runtime.format.triggers import TRIGGERS_FILE
from flue_runtime.format.validate import check_skill_md

SKILL_MD = b"---\nname: pdf\ndescription: Fill in PDF forms. Use for PDF forms.\n---\nBody.\n"
#: An entry with two problems (no `query`, no `should_trigger`), one a line.
EMPTY_ENTRY = b"{},\n"


def eval_set(size: int) -> bytes:
    """A JSON list of `size` bytes or so, every entry of it wrong twice."""
    return b"[\n" + EMPTY_ENTRY * (size // len(EMPTY_ENTRY)) + b"{}\n]\n"


def vetted(triggers: bytes) -> list[Diagnostic]:
    tree = MemoryTree({"SKILL.md": SKILL_MD, TRIGGERS_FILE: triggers})
    return list(vet_tree(tree, Path("pdf"), display="pdf").diagnostics)


def test_an_eval_set_of_1_mib_costs_about_ten_times_one_of_100_kib() -> None:
    """The ratio of two sizes measured in one run, alternated, each its fastest of three (CPU time): linear
    vetting makes it about 10.24 (the ratio of the sizes), quadratic about a hundred."""
    small, big = eval_set(100 * 1024), eval_set(1024 * 1024)
    best = {small: float("inf"), big: float("inf")}
    for _ in range(3):
        for data in (small, big):
            start = time.process_time()
            vetted(data)
            best[data] = min(best[data], time.process_time() - start)
    assert best[big] < 14 * best[small], (best[small], best[big])


def test_an_eval_set_gets_a_few_diagnostics_then_one_saying_how_many_more() -> None:
    entries = 10_000
    found = [d for d in vetted(eval_set(len(EMPTY_ENTRY) * entries)) if d.code == "FLU316"]
    assert len(found) == PER_FILE + 1
    shown, more = found[:PER_FILE], found[PER_FILE]
    assert [d.message for d in shown[:2]] == [
        "eval set: entry 0: `query` must be a non-empty string",
        "eval set: entry 0: `should_trigger` must be true or false",
    ]
    problems = 2 * (entries + 1)
    assert more.message == f"and {problems - PER_FILE:,} more FLU316 in this file, not shown"
    assert (more.path, more.line, more.column, more.is_error) == (
        "pdf/evals/triggers.json",
        2 + PER_FILE // 2,
        1,
        False,
    )
    assert "the first 5" in more.hint


def test_every_rule_is_bounded_per_file_the_frontmatters_too() -> None:
    unknown = "".join(f"field{i}: v\n" for i in range(40))
    data = f"---\nname: pdf\ndescription: Fill in PDF forms.\n{unknown}---\nBody.\n".encode()
    found = check_skill_md(data, "pdf/SKILL.md", "pdf").diagnostics
    assert [d.code for d in found] == ["FLU210"] * (PER_FILE + 1)
    assert found[-1].message == f"and {40 - PER_FILE} more FLU210 in this file, not shown"
    assert found[-1].line == 4 + PER_FILE  # where the first one not shown is
    tree = MemoryTree({"SKILL.md": data, TRIGGERS_FILE: eval_set(400)})
    through_the_walk = vet_tree(tree, Path("pdf"), display="pdf").diagnostics
    assert sorted({(d.path, d.code) for d in through_the_walk}) == [
        ("pdf/SKILL.md", "FLU210"),
        ("pdf/evals/triggers.json", "FLU316"),
    ]
    assert len(through_the_walk) == 2 * (PER_FILE + 1)


def test_every_rule_is_bounded_per_file_the_builds_too(tmp_path: Path) -> None:
    """A module of 30 dynamic references (FLU401), as a build and `check PROJECT` collect it."""
    module = tmp_path / "pkg" / "m.py"
    module.parent.mkdir()
    (module.parent / "__init__.py").write_text("")
    calls = "".join(f"S{i} = skill(NAME + '{i}/SKILL.md')\n" for i in range(30))
    module.write_text(f"from flue_runtime import skill\nNAME = './s'\n{calls}")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "t"\nversion = "1"\n')
    config = FlueConfig(tmp_path, packages=(tmp_path / "pkg",))
    found = [d for d in collect(config, sources_under([tmp_path / "pkg"])).diagnostics if d.code == "FLU401"]
    assert len(found) == PER_FILE + 1 and found[-1].is_error
    assert found[-1].message == f"and {30 - PER_FILE} more FLU401 in this file, not shown"


def test_check_prints_a_bounded_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "pdf"
    (folder / "evals").mkdir(parents=True)
    (folder / "SKILL.md").write_bytes(SKILL_MD)
    (folder / TRIGGERS_FILE).write_bytes(eval_set(64 * 1024))
    monkeypatch.chdir(tmp_path)
    assert main(["check", "pdf"]) == 0
    assert main(["check", "--strict", "pdf"]) == 1
    out = capsys.readouterr().out
    assert len(out) < 8 * 1024, len(out)
    assert out.count("FLU316 warning") == out.count("FLU316 error") == PER_FILE + 1


def test_the_bound_holds_for_what_is_bounded_again() -> None:
    """Where lists bounded before are gathered (a skill's walk, its SKILL.md, its eval set), bounding them again
    counts what each left out: the bound of the union, not of each part."""
    first = [diagnostic("FLU316", "p/x.json", line, 1, problem="bad") for line in range(1, 9)]
    second = [diagnostic("FLU316", "p/x.json", line, 1, problem="bad") for line in range(9, 13)]
    other = [diagnostic("FLU316", "p/y.json", 1, 1, problem="bad")]
    again = bounded([*bounded(first), *bounded(second), *other])
    assert [(d.path, d.line) for d in again] == [
        *[("p/x.json", line) for line in range(1, PER_FILE + 1)],
        ("p/x.json", PER_FILE + 1),
        ("p/y.json", 1),
    ]
    assert again[PER_FILE].message == f"and {12 - PER_FILE} more FLU316 in this file, not shown"
    assert bounded(again) == again


def test_strict_makes_the_count_of_warnings_an_error(tmp_path: Path) -> None:
    folder = tmp_path / "pdf"
    (folder / "evals").mkdir(parents=True)
    (folder / "SKILL.md").write_bytes(SKILL_MD)
    (folder / TRIGGERS_FILE).write_bytes(eval_set(400))
    found = vet_skill(folder, display="pdf", strict=True).diagnostics
    assert len(found) == PER_FILE + 1 and all(d.is_error for d in found)
