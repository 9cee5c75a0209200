"""`[tool.flue]`: defaults, every problem reported at once with its TOML key (strict), or skipped (lenient)."""

from __future__ import annotations

from pathlib import Path

import pytest

from flue_runtime.errors import ConfigError
from flue_runtime.format.config import FlueConfig, load_config, project_config
from flue_runtime.format.vetting import DEFAULT_LIMITS


def write(tmp_path: Path, table: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(f'[project]\nname = "x"\n\n{table}\n')
    return tmp_path


def test_no_table_means_defaults(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, ""))
    assert (config.allow, config.strict, config.packages) == ((), False, None)


def test_values_are_read_and_made_absolute(tmp_path: Path) -> None:
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    config = load_config(
        write(tmp_path, '[tool.flue]\nallow = ["skills/x/.env.example"]\nstrict = true\npackages = ["src/pkg"]')
    )
    assert config.allow == (tmp_path / "skills" / "x" / ".env.example",)
    assert config.strict is True
    assert config.packages == (tmp_path / "src" / "pkg",)


def test_every_problem_is_reported_with_its_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(
            write(
                tmp_path,
                '[tool.flue]\nallow = ["ok", 3, "/etc/passwd", "../out"]\nstrict = "yes"\npackages = ["missing"]\nalow = []',
            )
        )
    problems = caught.value.problems
    assert problems == (
        "tool.flue.alow: unknown key; did you mean `allow`?",
        "tool.flue.strict: must be true or false, not a string",
        "tool.flue.allow[1]: must be a string, not a number",
        "tool.flue.allow[2]: `/etc/passwd` must be relative to the project folder, with `/` separators",
        "tool.flue.allow[3]: `../out` must stay inside the project folder (no `..`)",
        "tool.flue.packages[0]: missing is not a package folder or a .py file",
    )
    message = str(caught.value)
    assert "\n" not in message and "6 problems" in message and message.endswith(problems[-1])


def test_wrong_shapes(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"tool\.flue\.allow: must be a list"):
        load_config(write(tmp_path, '[tool.flue]\nallow = "x"'))
    with pytest.raises(ConfigError, match="tool.flue: must be a table"):
        load_config(write(tmp_path, "[tool]\nflue = 1"))


def test_broken_or_missing_pyproject(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no pyproject.toml"):
        load_config(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.flue\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(tmp_path)


def test_lenient_mode_takes_what_it_can_read(tmp_path: Path) -> None:
    """Dev mode's reading: the same parser, a bad value keeps its default, nothing raises."""
    write(
        tmp_path,
        '[tool.flue]\nallow = ["ok.env", 3, "/etc/passwd"]\nstrict = "yes"\nmax-skill-files = 5\n'
        'max-bundle-size = "huge"\nalow = []',
    )
    (tmp_path / "deeper" / "folder").mkdir(parents=True)
    config = project_config(tmp_path / "deeper" / "folder")  # the nearest pyproject.toml above
    assert config.root == tmp_path
    assert config.allow == (tmp_path / "ok.env",)
    assert config.strict is False
    assert (config.limits.skill_files, config.limits.bundle_size) == (5, DEFAULT_LIMITS.bundle_size)
    with pytest.raises(ConfigError) as caught:  # the build's reading of the same table
        load_config(tmp_path)
    assert len(caught.value.problems) == 5


def test_lenient_mode_without_a_readable_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.flue\n")
    assert project_config(tmp_path) == FlueConfig(tmp_path)
    (tmp_path / "pyproject.toml").unlink()
    assert project_config(tmp_path).limits == DEFAULT_LIMITS
