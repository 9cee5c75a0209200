"""The `flue-skills` command: check, new, schema, exit codes and output formats."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import flue_runtime
from flue_build.cli import main
from flue_runtime.format.schema import schema
from flue_runtime.format.validate import check_skill_file

GOOD = Path("fixtures/skills/good")
COLLECTIONS = Path("fixtures/skills/collections")


@pytest.fixture(autouse=True)
def _in_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).resolve().parent.parent)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse usage errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_check_good_skills_passes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", str(GOOD))
    assert code == 0
    assert out.strip() == "checked 3 skills: 0 errors, 0 warnings"


def test_check_reports_compiler_style_with_hints(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", str(COLLECTIONS / "list-tools"))
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == (
        "fixtures/skills/collections/list-tools/SKILL.md:5:3: FLU202 error: `allowed-tools` must be a string, not a list"
    )
    assert lines[1] == "    hint: write it as a space-separated string: `allowed-tools: Read Edit`"
    assert lines[-1] == "checked 1 skill: 1 error, 0 warnings"


def test_check_a_skill_md_file_directly(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", str(GOOD / "refunds" / "SKILL.md"))
    assert code == 0 and "checked 1 skill:" in out


def test_check_common_collection_shapes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", "--format", "json", str(COLLECTIONS))
    assert code == 1
    by_skill: dict[str, list[tuple[str, str]]] = {}
    for d in json.loads(out):
        by_skill.setdefault(Path(d["path"]).parent.name, []).append((d["code"], d["severity"]))
    assert by_skill == {
        "comma-tools": [("FLU211", "warning")],
        "list-tools": [("FLU202", "error")],
        "nested-metadata": [("FLU209", "error")],
        "claude-fields": [("FLU210", "warning"), ("FLU210", "warning")],
        "versioned": [("FLU210", "warning"), ("FLU210", "warning")],
        "unquoted-colon": [("FLU106", "error")],
        "inner": [("FLU212", "warning")],
    }


def test_json_format_fields(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", "--format", "json", str(COLLECTIONS / "comma-tools"))
    assert code == 0  # warnings only
    assert json.loads(out) == [
        {
            "path": "fixtures/skills/collections/comma-tools/SKILL.md",
            "line": 4,
            "column": 16,
            "code": "FLU211",
            "severity": "warning",
            "message": "allowed-tools looks comma-separated; the spec separates tools with spaces",
            "hint": "write it as a space-separated string: `allowed-tools: Read Grep Glob`",
        }
    ]


def test_strict_turns_warnings_into_errors(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", "--strict", str(COLLECTIONS / "versioned"))
    assert code == 1
    assert "FLU210 error: unknown field `version`" in out


def test_nested_skill_is_reported_on_the_inner_one(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", str(COLLECTIONS / "outer"))
    assert code == 0
    assert "outer/inner/SKILL.md: FLU212 warning: skill `inner` sits inside skill `outer`" in out
    assert "checked 2 skills" in out


def test_a_folder_without_skills_is_an_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("# not a skill\n")
    code, out, _ = run(capsys, "check", str(tmp_path))
    assert code == 1
    assert out.splitlines() == [
        f"{tmp_path}: FLU100 error: holds no skill: no SKILL.md in this folder or below it",
        "    hint: pass a skill folder, a SKILL.md, a folder of skills or a project folder (one with a "
        "pyproject.toml); create a skill with `flue-skills new NAME`",
        "checked 0 skills: 1 error, 0 warnings",
    ]


def test_a_project_that_holds_no_skill_is_an_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "plain"\nversion = "1"\n')
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "__init__.py").write_text("X = 1\n")
    code, out, _ = run(capsys, "check", str(tmp_path))
    assert code == 1
    assert "FLU100 error: holds no skill: its modules reference no skill or markdown file" in out


@pytest.mark.parametrize("named", ["folder", "SKILL.md"])
def test_a_skill_md_that_is_a_folder_is_an_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, named: str
) -> None:
    (tmp_path / "refunds" / "SKILL.md").mkdir(parents=True)
    path = tmp_path / "refunds" if named == "folder" else tmp_path / "refunds" / "SKILL.md"
    code, out, _ = run(capsys, "check", str(path))
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == f"{tmp_path}/refunds/SKILL.md: FLU101 error: `SKILL.md` is a folder, not a file"
    assert lines[1].startswith("    hint: a skill's SKILL.md is a file holding its frontmatter and instructions")


@pytest.mark.parametrize("named", ["folder", "SKILL.md"])
def test_a_skill_md_that_is_a_fifo_is_an_error(capsys: pytest.CaptureFixture[str], tmp_path: Path, named: str) -> None:
    (tmp_path / "refunds").mkdir()
    os.mkfifo(tmp_path / "refunds" / "SKILL.md")
    path = tmp_path / "refunds" if named == "folder" else tmp_path / "refunds" / "SKILL.md"
    code, out, _ = run(capsys, "check", str(path))  # never opened: a FIFO nobody writes to would hang a read
    assert code == 1
    assert out.splitlines()[0] == f"{tmp_path}/refunds/SKILL.md: FLU307 error: not a regular file (a FIFO); refused"


def test_a_device_holds_no_skill(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", os.devnull)
    assert code == 1 and out.startswith(f"{os.devnull}: FLU100 error: holds no skill: a device, not a folder or a file")


def test_an_invalid_name_that_differs_from_the_folder_gets_both_diagnostics(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "refunds").mkdir()
    (tmp_path / "refunds" / "SKILL.md").write_text("---\nname: Refund_Desk\ndescription: Refunds.\n---\nBody.\n")
    code, out, _ = run(capsys, "check", "--format", "json", str(tmp_path / "refunds"))
    assert code == 1
    found = [(d["code"], d["line"], d["column"], d["hint"]) for d in json.loads(out)]
    assert [(code, line, column) for code, line, column, _ in found] == [("FLU204", 2, 7), ("FLU205", 2, 7)]
    assert found[1][3] == "set `name: refunds`"


def test_misnamed_skill_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "skill.md").write_text("---\nname: x\ndescription: d\n---\n")
    code, out, _ = run(capsys, "check", str(tmp_path))
    assert code == 1 and "FLU101" in out and "rename it to SKILL.md" in out


def test_noise_folders_are_not_searched(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    shutil.copytree(COLLECTIONS / "list-tools", tmp_path / "node_modules" / "list-tools")
    shutil.copytree(GOOD / "refunds", tmp_path / "skills" / "refunds")
    code, out, _ = run(capsys, "check", str(tmp_path))
    assert code == 0 and "checked 1 skill:" in out


@pytest.mark.parametrize("argv", [["check", "does/not/exist"], ["frobnicate"], []])
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2 and err


def test_check_without_a_path_checks_the_working_folder(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(GOOD / "refunds", tmp_path / "skills" / "refunds")
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "check")
    assert code == 0 and "checked 1 skill:" in out
    (tmp_path / "skills" / "refunds" / ".env").write_text("TOKEN=1\n")
    code, out, _ = run(capsys, "check")
    assert code == 1 and "skills/refunds/.env: FLU302" in out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"flue-skills {flue_runtime.__version__}"


def test_new_scaffolds_a_valid_skill(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "new", "invoice-helper", "--dir", str(tmp_path), "--description", "Use when: invoices")
    assert code == 0 and "created" in out
    result = check_skill_file(tmp_path / "invoice-helper" / "SKILL.md")
    assert result.ok and result.metadata is not None
    assert result.metadata.description == "Use when: invoices"
    assert run(capsys, "check", "--strict", str(tmp_path))[0] == 0


def test_new_refuses_invalid_name_with_the_rule(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "new", "Invoice_Helper", "--dir", str(tmp_path))
    assert code == 2
    assert "must be lowercase" in err and "'_'" in err and "try `invoice-helper`" in err
    assert list(tmp_path.iterdir()) == []


def test_new_refuses_existing_folder(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "taken").mkdir()
    code, _, err = run(capsys, "new", "taken", "--dir", str(tmp_path))
    assert code == 2 and "already exists" in err


def test_schema_prints_the_shipped_schema(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "schema")
    assert code == 0 and json.loads(out) == schema()


def test_console_script_and_module_entry_points() -> None:
    script = Path(sys.executable).with_name("flue-skills")
    for argv in ([str(script)], [sys.executable, "-m", "flue_build"]):
        proc = subprocess.run([*argv, "check", str(GOOD)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == "checked 3 skills: 0 errors, 0 warnings"
