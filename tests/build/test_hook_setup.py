"""`flue-skills check PROJECT` reports a build that would not run flue-skills (FLU501), saying what to add.

Each case is a fixture project with one piece of its setup taken away; the hint, added to
pyproject.toml as written, makes the project check clean again. The configuration is
read as data: nothing of the project is imported.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support.projects import ProjectFactory

from flue_build.cli import main

HATCH_TABLE = "[tool.hatch.build.hooks.flue-skills]\n"


def check(capsys: pytest.CaptureFixture[str], project: Path) -> tuple[int, list[dict[str, object]]]:
    code = main(["check", "--format", "json", str(project)])
    found = json.loads(capsys.readouterr().out)
    return code, [d for d in found if d["code"] == "FLU501"]


def edit(project: Path, old: str, new: str) -> None:
    path = project / "pyproject.toml"
    text = path.read_text()
    assert old in text, text
    path.write_text(text.replace(old, new))


def apply_hint(project: Path, hint: str) -> None:
    """What the hint says to add, added: a new `requires = [...]` replaces the old line, anything else is appended."""
    added = hint.split("\n", 1)[1]
    path = project / "pyproject.toml"
    text = path.read_text()
    if added.startswith("requires = "):
        text = re.sub(r"(?m)^requires = .*$", lambda _: added, text, count=1)
    else:
        text += "\n" + added + "\n"
    path.write_text(text)


def test_a_hatchling_project_without_the_hook_table_fails_check_and_the_hint_fixes_it(
    project: ProjectFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = project("hatch-src")
    edit(tree, HATCH_TABLE, "")
    code, [problem] = check(capsys, tree)
    assert code == 1 and problem["severity"] == "error" and problem["path"].endswith("pyproject.toml")
    assert "5 skill()/markdown() references" in problem["message"] and "wheel and sdist" in problem["message"]
    assert problem["hint"].endswith("\n[tool.hatch.build.hooks.flue-skills]")
    apply_hint(tree, str(problem["hint"]))
    assert check(capsys, tree) == (0, [])


def test_a_missing_build_requirement_is_placed_on_the_requires_line(
    project: ProjectFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = project("hatch-src")
    edit(tree, '"hatchling>=1.24", "hatch-flue-skills"', '"hatchling>=1.24"')
    code, [problem] = check(capsys, tree)
    assert code == 1 and (problem["line"], problem["column"]) == (2, 1)
    assert "`hatch-flue-skills` is not in [build-system] requires" in problem["message"]
    assert problem["hint"].endswith('requires = ["hatchling>=1.24", "hatch-flue-skills"]')
    apply_hint(tree, str(problem["hint"]))
    assert check(capsys, tree) == (0, [])


def test_a_requirement_is_recognised_whatever_its_spelling(
    project: ProjectFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = project("hatch-src")
    edit(tree, '"hatch-flue-skills"', "\"Hatch_Flue.Skills >= 0.1 ; python_version >= '3.11'\"")
    assert check(capsys, tree) == (0, [])


def test_a_hook_on_the_wheel_target_only_leaves_the_sdist_unvetted(
    project: ProjectFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = project("hatch-flat")
    edit(tree, HATCH_TABLE, "[tool.hatch.build.targets.wheel.hooks.flue-skills]\n")
    code, [problem] = check(capsys, tree)
    assert "no flue-skills hook for the sdist" in problem["message"]
    assert "would ship unvetted" in problem["message"]


def test_a_hook_disabled_by_default_is_named_with_its_key(
    project: ProjectFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 44 item 5: the table is there; the hint is about the key that turns it off, not "add the table"."""
    tree = project("hatch-flat")
    edit(tree, HATCH_TABLE, HATCH_TABLE + "enable-by-default = false\n")
    line = (tree / "pyproject.toml").read_text().splitlines().index("enable-by-default = false") + 1
    code, [problem] = check(capsys, tree)
    assert code == 1 and (problem["line"], problem["column"]) == (line, 1)
    assert "sets `enable-by-default = false`" in problem["message"] and "wheel and sdist" in problem["message"]
    assert "add the hook's table" not in problem["hint"] and "enable-by-default = false" in problem["hint"]
    edit(tree, "enable-by-default = false\n", "")
    assert check(capsys, tree) == (0, [])


@pytest.mark.parametrize("where", ["tool.hatch.build.hook", "tool.hatch.build.targets.wheel.hook"])
def test_a_hook_table_under_hook_singular_is_named_with_its_line(
    where: str, project: ProjectFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 44 item 5: hatchling ignores `[tool.hatch.build.hook.flue-skills]` (it reads `hooks`) and builds with
    the raw folders; check names the table, its line, and the name hatchling reads."""
    tree = project("hatch-src")
    edit(tree, HATCH_TABLE, f"[{where}.flue-skills]\n")
    line = (tree / "pyproject.toml").read_text().splitlines().index(f"[{where}.flue-skills]") + 1
    code, [problem] = check(capsys, tree)
    assert code == 1 and (problem["line"], problem["column"]) == (line, 1)
    assert f"`[{where}.flue-skills]` is not read by hatchling" in problem["message"]
    renamed = str(problem["hint"]).split("\n", 1)[1]
    assert renamed == f"[{where}s.flue-skills]"
    if where == "tool.hatch.build.hook":
        edit(tree, f"[{where}.flue-skills]\n", renamed + "\n")
        assert check(capsys, tree) == (0, [])


@pytest.mark.parametrize("misspelled", ["flue-skills", "flue_skills", "Flue"])
def test_a_misspelled_flue_table_of_a_setuptools_project_is_named(
    misspelled: str, project: ProjectFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 44 item 5: `[tool.flue-skills]` does not opt in; check names it, its line, and `[tool.flue]`."""
    tree = project("setuptools-src")
    edit(tree, "\n[tool.flue]\n", f"\n[tool.{misspelled}]\n")
    line = (tree / "pyproject.toml").read_text().splitlines().index(f"[tool.{misspelled}]") + 1
    code, [problem] = check(capsys, tree)
    assert code == 1 and (problem["line"], problem["column"]) == (line, 1)
    assert f"`[tool.{misspelled}]`" in problem["message"] and "reads `[tool.flue]`" in problem["message"]
    renamed = str(problem["hint"]).split("\n", 1)[1]
    edit(tree, f"\n[tool.{misspelled}]\n", f"\n{renamed}\n")
    assert check(capsys, tree) == (0, [])


def test_the_hook_table_in_hatch_toml_counts(project: ProjectFactory, capsys: pytest.CaptureFixture[str]) -> None:
    tree = project("hatch-flat")
    edit(tree, HATCH_TABLE, "")
    (tree / "hatch.toml").write_text("[build.hooks.flue-skills]\n")
    assert check(capsys, tree) == (0, [])


def test_a_setuptools_project_without_flue_table_or_requirement(
    project: ProjectFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = project("setuptools-src")
    edit(tree, "\n[tool.flue]\n", "\n")
    edit(tree, '"setuptools>=77", "flue-skills"', '"setuptools>=77"')
    code, problems = check(capsys, tree)
    assert code == 1 and len(problems) == 2
    table, requirement = problems
    assert "no [tool.flue] table" in table["message"] and table["hint"].endswith("\n[tool.flue]")
    assert requirement["hint"].endswith('requires = ["setuptools>=77", "flue-skills"]')
    for problem in problems:
        apply_hint(tree, str(problem["hint"]))
    assert check(capsys, tree) == (0, [])


def test_a_project_without_a_build_system_table(project: ProjectFactory, capsys: pytest.CaptureFixture[str]) -> None:
    tree = project("setuptools-src")
    edit(
        tree,
        '[build-system]\nrequires = ["setuptools>=77", "flue-skills"]\nbuild-backend = "setuptools.build_meta"\n',
        "",
    )
    edit(tree, "\n[tool.flue]\n", "\n")
    code, [problem] = check(capsys, tree)
    assert "no [build-system] table" in problem["message"]
    assert 'requires = ["setuptools>=77", "flue-skills"]' in problem["hint"] and problem["hint"].endswith("[tool.flue]")


def test_another_backend_is_named(project: ProjectFactory, capsys: pytest.CaptureFixture[str]) -> None:
    tree = project("hatch-flat")
    edit(tree, 'build-backend = "hatchling.build"', 'build-backend = "flit_core.buildapi"')
    code, [problem] = check(capsys, tree)
    assert "builds with `flit_core.buildapi`, which runs no flue-skills hook" in problem["message"]


def test_unreferenced_skill_folders_need_the_hook_too(
    project: ProjectFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = project("hatch-flat")
    edit(tree, HATCH_TABLE, "")
    for module in (tree / "hatch_flat_demo").glob("*.py"):
        module.write_text('"""No references."""\n')
    code, [problem] = check(capsys, tree)
    assert problem["message"].startswith("the build would ship 1 skill folder, but hatchling runs no")


def test_a_project_without_skills_needs_no_hook(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "__init__.py").write_text("VALUE = 1\n")
    (tmp_path / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n'
        '[project]\nname = "plain"\nversion = "1"\n'
    )
    code = main(["check", "--format", "json", str(tmp_path)])
    # No FLU501; the one problem is that `check` was given a path that holds no skill (issue 21).
    assert [d["code"] for d in json.loads(capsys.readouterr().out)] == ["FLU100"] and code == 1


@pytest.mark.parametrize("misspelled", ["flue_skills", "flue-skill", "flueskills"])
def test_a_misspelled_hook_table_is_named_with_its_line_and_the_hint_renames_it(
    misspelled: str, project: ProjectFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = project("hatch-src")
    edit(tree, HATCH_TABLE, f"[tool.hatch.build.hooks.{misspelled}]\n")
    line = (tree / "pyproject.toml").read_text().splitlines().index(f"[tool.hatch.build.hooks.{misspelled}]") + 1
    code, [problem] = check(capsys, tree)
    assert code == 1 and (problem["line"], problem["column"]) == (line, 1)
    assert f"`[tool.hatch.build.hooks.{misspelled}]` names no hook hatchling knows" in problem["message"]
    renamed = str(problem["hint"]).split("\n", 1)[1]
    edit(tree, f"[tool.hatch.build.hooks.{misspelled}]\n", renamed + "\n")
    assert check(capsys, tree) == (0, [])
