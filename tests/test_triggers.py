"""A skill's trigger eval set (`flue_runtime/format/triggers.py`): `check`, the builds and dev mode vet it
through the one skill vetting (FLU316, a warning, an error under strict), each problem at its line."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from flue_build.cli import main
from flue_runtime.format.skill_folder import vet_skill
from flue_runtime.format.triggers import TRIGGERS_FILE, parse_triggers, trigger_diagnostics

VALID = [
    {"query": "Fill in this tax form", "should_trigger": True},
    {"query": "Summarise this PDF", "should_trigger": False, "split": "validation"},
]


def skill(tmp_path: Path, triggers: str) -> Path:
    folder = tmp_path / "pdf"
    (folder / "evals").mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: pdf\ndescription: Fill in PDF forms. Use for PDF forms.\n---\nBody.\n")
    (folder / TRIGGERS_FILE).write_text(triggers, encoding="utf-8")
    return folder


def test_a_valid_set_has_no_problem() -> None:
    text = json.dumps(VALID, indent=2)
    assert trigger_diagnostics(text.encode(), "pdf/evals/triggers.json") == []
    assert [q.split for q in parse_triggers(text)] == ["train", "validation"]


def test_a_schema_problem_is_at_its_entry_line_and_names_the_index() -> None:
    text = '[\n  {"query": "a", "should_trigger": true},\n  {"query": "b", "should_trigger": "no"}, {"query": ""}\n]'
    found = trigger_diagnostics(text.encode(), "p/evals/triggers.json")
    assert [(d.code, d.line, d.column, d.message) for d in found] == [
        ("FLU316", 3, 3, "eval set: entry 1: `should_trigger` must be true or false"),
        ("FLU316", 3, 43, "eval set: entry 2: `query` must be a non-empty string"),
        ("FLU316", 3, 43, "eval set: entry 2: `should_trigger` must be true or false"),
    ]
    assert all(not d.is_error and "should_trigger" in d.hint for d in found)


def test_a_json_error_is_at_the_decoder_line_and_column() -> None:
    (found,) = trigger_diagnostics(b'[{"query": "x",\n "should_trigger": true,}]', "p/evals/triggers.json")
    assert (found.location, found.message) == (
        "p/evals/triggers.json:2:25",
        "eval set is not valid JSON: Expecting property name enclosed in double quotes",
    )


def test_what_json_cannot_read_is_a_problem_not_a_crash() -> None:
    deep, digits, latin = b"[" * 100_000, b"[" + b"9" * 5000 + b"]", b'[{"query": "caf\xe9"}]'
    assert "nested too deeply" in trigger_diagnostics(deep, "p")[0].message
    assert "not readable as JSON" in trigger_diagnostics(digits, "p")[0].message
    assert trigger_diagnostics(latin, "p")[0].message == "eval set is not valid UTF-8: byte 0xe9 at offset 15"
    assert (
        trigger_diagnostics(b"{}", "p")[0].message
        == "eval set: the file must hold a JSON list of queries, not an object"
    )


def test_the_vetting_warns_and_strict_refuses(tmp_path: Path) -> None:
    folder = skill(tmp_path, '[{"query": "x", "should_trigger": 1}]')
    vetted = vet_skill(folder, display="pdf")
    assert [(d.path, d.code, d.is_error) for d in vetted.diagnostics] == [("pdf/evals/triggers.json", "FLU316", False)]
    assert vetted.ok and TRIGGERS_FILE in {f.path for f in vetted.files}  # the skill still serves and ships
    assert not vet_skill(folder, display="pdf", strict=True).ok


def test_check_reports_it(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    skill(tmp_path, "[]")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "pdf"]) == 0
    assert main(["check", "--strict", "pdf"]) == 1
    out = capsys.readouterr().out
    assert "pdf/evals/triggers.json: FLU316 warning: eval set: the list holds no queries" in out
    assert "pdf/evals/triggers.json: FLU316 error" in out


def test_define_skill_warns_as_check_does() -> None:
    from flue_runtime import define_skill
    from flue_runtime.errors import SkillWarning

    with pytest.warns(SkillWarning, match=r"evals/triggers.json:1:2: FLU316 eval set: entry 0: `query` must be"):
        define_skill(name="pdf", description="d", instructions="x", files={TRIGGERS_FILE: '[{"should_trigger": true}]'})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        define_skill(name="pdf", description="d", instructions="x", files={TRIGGERS_FILE: json.dumps(VALID)})
