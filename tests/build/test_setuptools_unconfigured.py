"""Issue 44 item 5: a setuptools project whose code calls `skill()` but has no `[tool.flue]` builds a wheel without
its skills; the plugin, present in the build environment, says so during the build, naming the table to add (the
words are FLU501's, as `flue-skills check` gives them, as a warning: the project did not opt in, so its build goes
on as setuptools makes it). One small build; the misspelled tables are `check`'s tests (test_hook_setup.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.builds import build, payload, wheel_files

pytestmark = pytest.mark.slow  # a real build

SKILL_MD = "---\nname: notes\ndescription: Take notes. Use when asked to.\n---\nWrite them down.\n"


def _project(root: Path) -> Path:
    (root / "src" / "acme_notes" / "skills" / "notes").mkdir(parents=True)
    (root / "src" / "acme_notes" / "__init__.py").write_text(
        'from flue_runtime import skill\n\nNOTES = skill("./skills/notes/SKILL.md")\n'
    )
    (root / "src" / "acme_notes" / "skills" / "notes" / "SKILL.md").write_text(SKILL_MD)
    (root / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=77", "flue-skills"]\nbuild-backend = "setuptools.build_meta"\n\n'
        '[project]\nname = "acme-notes"\nversion = "0.1.0"\ndependencies = ["flue-skills"]\n'
    )
    return root


def test_a_build_without_tool_flue_warns_that_the_wheel_ships_no_skills(tmp_path: Path) -> None:
    result = build(_project(tmp_path / "acme-notes"), "--wheel", outdir=tmp_path / "dist")
    assert result.returncode == 0, result.output
    assert not any("_flue_skills" in name for name in payload(wheel_files(result.wheel)))  # built as it was
    [warning] = [line for line in result.output.splitlines() if "FLU501" in line]
    assert warning.startswith("pyproject.toml: FLU501 warning: the code makes 1 skill()/markdown() reference, but")
    assert "no [tool.flue] table" in warning and "its wheel would ship no skills" in warning
    hint = result.output.split(warning, 1)[1].splitlines()[1:3]
    assert [line.strip() for line in hint] == [
        "hint: add the table to pyproject.toml (it may stay empty):",
        "[tool.flue]",
    ]
