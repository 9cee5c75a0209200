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


def test_exports_are_read_as_written(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, "[tool.flue]")).exports is None  # none declared: every spec resolves
    assert load_config(write(tmp_path, "[tool.flue]\nexports = []")).exports == ()  # declared: nothing resolves
    config = load_config(write(tmp_path, '[tool.flue]\nexports = ["acme/review/SKILL.md", "acme/docs/style.md"]'))
    assert config.exports == ("acme/review/SKILL.md", "acme/docs/style.md")


def test_every_exports_problem_is_reported_with_its_key_and_the_scanners_words(tmp_path: Path) -> None:
    from flue_runtime.format.specs import spec_problem

    specs = [
        "acme/review/SKILL.md",
        "./review/SKILL.md",
        "acme/review",
        "acme\\\\review\\\\SKILL.md",
        "9acme/review/SKILL.md",
        "acme/../x/SKILL.md",
        "acme/review/SKILL.md",
    ]
    body = ", ".join(f'"{s}"' for s in specs)
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, f"[tool.flue]\nexports = [{body}, 7]"))
    problems = caught.value.problems
    assert problems[0].startswith("tool.flue.exports[1]: malformed spec './review/SKILL.md': an export is written as")
    assert problems[1] == (
        f"tool.flue.exports[2]: malformed spec 'acme/review': {spec_problem('skill', 'acme/review')}; "
        "for example 'acme_skills/review/SKILL.md'"
    )
    assert spec_problem("skill", "acme\\review\\SKILL.md") in problems[2]  # the scanner's own words
    assert spec_problem("skill", "9acme/review/SKILL.md") in problems[3]
    assert spec_problem("skill", "acme/../x/SKILL.md") in problems[4]
    assert problems[5] == "tool.flue.exports[6]: 'acme/review/SKILL.md' is listed twice"
    assert (
        problems[6]
        == "tool.flue.exports[7]: must be a string, a package spec like 'acme_skills/review/SKILL.md', not a number"
    )
    assert len(problems) == 7
    with pytest.raises(ConfigError, match=r"tool\.flue\.exports: must be a list of package specs"):
        load_config(write(tmp_path, '[tool.flue]\nexports = "acme/review/SKILL.md"'))


def test_lenient_mode_keeps_the_good_exports(tmp_path: Path) -> None:
    write(tmp_path, '[tool.flue]\nexports = ["acme/review/SKILL.md", "./x/SKILL.md", 3, "acme/docs/a.md"]')
    assert project_config(tmp_path).exports == ("acme/review/SKILL.md", "acme/docs/a.md")


def test_an_installed_package_belongs_to_no_project(tmp_path: Path) -> None:
    """A virtual environment inside a project: its installed packages do not take the project's table."""
    write(tmp_path, "[tool.flue]\nexports = []\nstrict = true")
    installed = tmp_path / ".venv" / "lib" / "python3.11" / "site-packages" / "acme"
    installed.mkdir(parents=True)
    assert project_config(installed) == FlueConfig(installed, in_project=False)
    assert project_config(tmp_path / ".venv").exports == ()  # above site-packages: still the project's


def test_dev_mode_keeps_a_projects_config_while_its_pyproject_is_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Dev mode reads `[tool.flue]` at every render (issue 21): the answer is kept while the nearest
    pyproject.toml is the same file with the same `stat`, and read again when it changes or a nearer one appears."""
    from flue_runtime.format import config as config_module

    skill = tmp_path / "src" / "pkg" / "skills" / "x"
    skill.mkdir(parents=True)
    write(tmp_path, "[tool.flue]\nstrict = true")
    # Written within the settle time: its stat proves nothing yet (a rewrite in the same clock tick), so read again.
    assert project_config(skill) is not project_config(skill)
    monkeypatch.setattr(config_module, "_SETTLE_NS", 0)  # every pyproject old enough to trust its stat
    first = project_config(skill)
    assert first.strict is True and project_config(skill) is first
    write(tmp_path, "[tool.flue]\nstrict = false")
    edited = project_config(skill)
    assert edited.strict is False and edited is not first
    (tmp_path / "src" / "pyproject.toml").write_text("[tool.flue]\nmax-skill-files = 3\n")
    nearer = project_config(skill)
    assert (nearer.root, nearer.limits.skill_files) == (tmp_path / "src", 3)
    (tmp_path / "src" / "pyproject.toml").unlink()
    assert project_config(skill).root == tmp_path
