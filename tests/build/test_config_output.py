"""How `[tool.flue]` problems reach the user: each once, with its key; invalid TOML said to be
invalid TOML, at its line and column; sizes in decimal units accepted, the units listed otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from flue_build.cli import main
from flue_runtime.errors import ConfigError
from flue_runtime.format.config import load_config

HEADER = '[project]\nname = "demo"\nversion = "1"\n'


def run_check(capsys: pytest.CaptureFixture[str], project: Path) -> tuple[int, list[str]]:
    code = main(["check", str(project)])
    captured = capsys.readouterr()
    return code, captured.err.splitlines()


def test_each_problem_is_printed_once_then_one_line_says_what_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text(HEADER + '[tool.flue]\nallow = [1]\nstrict = "yes"\n')
    code, lines = run_check(capsys, tmp_path)
    shown = f"{tmp_path}/pyproject.toml"
    assert code == 1
    assert lines == [
        f"{shown}: tool.flue.strict: must be true or false, not a string",
        f"{shown}: tool.flue.allow[0]: must be a string, not a number",
        f"flue-skills check: error: {shown}: invalid [tool.flue] configuration (2 problems)",
    ]


def test_a_pyproject_that_is_not_toml_is_reported_as_such(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "pyproject.toml").write_text(HEADER + "[tool.flue]\nstrict = \n")
    code, lines = run_check(capsys, tmp_path)
    shown = f"{tmp_path}/pyproject.toml"
    assert code == 1
    assert lines == [
        f"{shown}:5:10: not valid TOML: Invalid value",
        f"flue-skills check: error: {shown}: not valid TOML",
    ]
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    assert (caught.value.line, caught.value.column, caught.value.headline) == (5, 10, "not valid TOML")
    assert "[tool.flue]" not in str(caught.value)  # the file is at fault, not the table


def test_ls_reports_configuration_problems_the_same_way(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "pyproject.toml").write_text(HEADER + "[tool.flue]\nmax-skill-files = 0\n")
    assert main(["ls", str(tmp_path)]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2 and lines[0].endswith(
        "tool.flue.max-skill-files: must be a whole number, at least 1, like 20000; not 0"
    )
    assert lines[1].endswith("pyproject.toml: invalid [tool.flue] configuration (1 problem)")


@pytest.mark.parametrize(("written", "size"), [('"10 MB"', 10_000_000), ('"64 KiB"', 65_536), ('"2GB"', 2 * 10**9)])
def test_sizes_take_binary_and_decimal_units(tmp_path: Path, written: str, size: int) -> None:
    (tmp_path / "pyproject.toml").write_text(HEADER + f"[tool.flue]\nmax-bundle-size = {written}\n")
    assert load_config(tmp_path).limits.bundle_size == size


def test_an_unknown_unit_lists_the_accepted_ones(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(HEADER + '[tool.flue]\nmax-bundle-size = "10 megs"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    [problem] = caught.value.problems
    assert "(B, KiB, MiB, GiB, kB, MB, GB)" in problem and problem.endswith("not '10 megs'")
