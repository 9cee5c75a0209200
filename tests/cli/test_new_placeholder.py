"""`flue-skills new` without `--description` writes a placeholder that `check` flags (FLU213): a warning,
an error under `--strict` and under `[tool.flue] strict`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flue_build.cli import main
from flue_runtime.errors import SkillError
from flue_runtime.format.messages import CODES
from flue_runtime.format.validate import PLACEHOLDER_DESCRIPTION
from flue_runtime.mount.disk import load_skill_dir


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict[str, object]]]:
    code = main(["check", "--format", "json", *args])
    return code, json.loads(capsys.readouterr().out)


def test_new_without_a_description_says_the_placeholder_is_flagged(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["new", "invoice-helper", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "replace its placeholder description" in out and "FLU213" in out
    assert f'description: "{PLACEHOLDER_DESCRIPTION}"\n' in (tmp_path / "invoice-helper" / "SKILL.md").read_text()


def test_check_warns_and_strict_refuses(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["new", "invoice-helper", "--dir", str(tmp_path)]) == 0
    capsys.readouterr()
    code, rows = check(capsys, str(tmp_path))
    assert code == 0
    assert [(r["code"], r["severity"], r["line"], r["column"], r["hint"]) for r in rows] == [
        (
            "FLU213",
            "warning",
            3,
            14,
            "replace it with what the skill does and when the agent should use it: "
            "the catalog line is all the model sees when it decides whether to activate the skill",
        )
    ]
    code, rows = check(capsys, "--strict", str(tmp_path))
    assert code == 1 and [(r["code"], r["severity"]) for r in rows] == [("FLU213", "error")]


def test_project_strict_refuses_it(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "1"\n\n[tool.flue]\nstrict = true\n')
    assert main(["new", "invoice-helper", "--dir", str(tmp_path / "skills")]) == 0
    capsys.readouterr()
    code, rows = check(capsys, str(tmp_path / "skills"))
    assert code == 1 and [(r["code"], r["severity"]) for r in rows] == [("FLU213", "error")]
    with pytest.raises(SkillError, match="FLU213"):
        load_skill_dir(tmp_path / "skills" / "invoice-helper")  # dev mode reads the project's strict too


def test_a_real_description_or_a_reworded_placeholder_is_not_flagged(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for name, description in [
        ("a", "Read invoices. Use when the user shares one."),
        ("b", PLACEHOLDER_DESCRIPTION[:-1]),
    ]:
        assert main(["new", name, "--dir", str(tmp_path), "--description", description]) == 0
    capsys.readouterr()
    assert check(capsys, "--strict", str(tmp_path)) == (0, [])


def test_the_code_is_registered_as_a_warning() -> None:
    assert CODES["FLU213"].severity == "warning"
