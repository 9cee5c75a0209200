"""FLU502 as `check` reads a project's runtime dependencies without running its code (the builds' own
verdicts: tests/build/test_installed_wheel_works.py, tests/build/test_check_agrees.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support.projects import pyproject, write_module, write_skill

from flue_build.backends.dependency import static_requirements
from flue_build.cli import main
from flue_runtime.format.config import read_pyproject


def project(root: Path, backend: str = "setuptools") -> Path:
    root.mkdir()
    (root / "pyproject.toml").write_text(pyproject(backend, "acme"))
    write_module(
        root / "src/acme/__init__.py", 'from flue_runtime import skill\n\nPDF = skill("./skills/pdf/SKILL.md")\n'
    )
    write_skill(root / "src/acme/skills/pdf")
    return root


def set_dependencies(root: Path, line: str) -> None:
    path = root / "pyproject.toml"
    path.write_text(path.read_text().replace('dependencies = ["flue-skills"]\n', line))


def verdict(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str], str]:
    code = main(["check", "--format", "json", str(root)])
    rows = json.loads(capsys.readouterr().out)
    main(["check", str(root)])
    return code, [r["code"] for r in rows], capsys.readouterr().out


@pytest.mark.parametrize(
    "line",
    [
        'dependencies = ["Flue_Skills[mcp] >= 0.1"]\n',  # any spelling, extras and version an installer accepts
        'dependencies = ["requests", "flue.skills; python_version >= \'3.11\'"]\n',
        'dependencies = ["FLUE--skills @ https://example.invalid/flue_skills-0.1.0-py3-none-any.whl"]\n',  # a URL
    ],
)
def test_any_spelling_of_the_requirement_counts(line: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path / "acme")
    set_dependencies(root, line)
    assert verdict(root, capsys)[:2] == (0, [])


@pytest.mark.parametrize(
    "line",
    [
        'dependencies = ["flue-skillsx"]\n',  # another distribution, whose name starts the same
        'dependencies = ["flue-skills-extra >= 1"]\n',
    ],
)
def test_a_requirement_of_another_distribution_does_not_count(
    line: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path / "acme")
    set_dependencies(root, line)
    assert verdict(root, capsys)[:2] == (1, ["FLU502"])


def test_an_optional_dependency_is_not_a_runtime_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path / "acme")
    set_dependencies(root, "")
    (root / "pyproject.toml").write_text(
        (root / "pyproject.toml").read_text() + '\n[project.optional-dependencies]\nskills = ["flue-skills"]\n'
    )
    code, codes, out = verdict(root, capsys)
    assert (code, codes) == (1, ["FLU502"])
    assert 'dependencies = ["flue-skills"]' in out


def test_setuptools_dynamic_requirement_files_are_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path / "acme")
    set_dependencies(root, 'dynamic = ["dependencies"]\n')
    text = (root / "pyproject.toml").read_text()
    text += '\n[tool.setuptools.dynamic]\ndependencies = {file = ["requirements.txt"]}\n'
    (root / "pyproject.toml").write_text(text)
    (root / "requirements.txt").write_text("# runtime\nrequests>=2\n")
    assert verdict(root, capsys)[:2] == (1, ["FLU502"])
    (root / "requirements.txt").write_text("# runtime\nrequests>=2\nflue-skills  # skill()\n")
    assert verdict(root, capsys)[:2] == (0, [])


def test_dependencies_only_the_build_computes_are_said_to_be_the_builds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path / "acme", "hatchling")
    set_dependencies(root, 'dynamic = ["dependencies"]\n')
    assert static_requirements(root, read_pyproject(root)) is None
    code, codes, out = verdict(root, capsys)
    assert (code, codes) == (0, [])
    assert (
        "its runtime dependencies are computed by its build (dynamic), which checks that they list flue-skills" in out
    )


def test_a_project_without_references_needs_no_dependency(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path / "acme")
    set_dependencies(root, "")
    write_module(root / "src/acme/__init__.py", "")
    (root / "pyproject.toml").write_text(
        (root / "pyproject.toml").read_text() + '\nexports = ["acme/skills/pdf/SKILL.md"]\n'
    )
    assert verdict(root, capsys)[:2] == (0, [])


@pytest.mark.parametrize("hostile", ["fifo", "outside", "link-to-fifo"])
def test_a_requirement_file_check_must_not_read_is_left_to_the_build(
    hostile: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A project is input: a FIFO (which would block a plain read), a file outside the project, a link to a FIFO
    are never read; check says the build decides, and returns at once."""
    root = project(tmp_path / "acme")
    set_dependencies(root, 'dynamic = ["dependencies"]\n')
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("flue-skills\n")
    name = {"fifo": "requirements.txt", "outside": "../elsewhere.txt", "link-to-fifo": "requirements.txt"}[hostile]
    if hostile == "fifo":
        os.mkfifo(root / name)
    elif hostile == "link-to-fifo":
        os.mkfifo(tmp_path / "pipe")
        (root / name).symlink_to(tmp_path / "pipe")
    text = (root / "pyproject.toml").read_text()
    (root / "pyproject.toml").write_text(text + f'\n[tool.setuptools.dynamic]\ndependencies = {{file = ["{name}"]}}\n')
    assert static_requirements(root, read_pyproject(root)) is None
    code, codes, out = verdict(root, capsys)
    assert (code, codes) == (0, []) and "computed by its build" in out


def test_a_setup_cfg_that_is_a_fifo_is_not_read(tmp_path: Path) -> None:
    root = tmp_path / "legacy"
    root.mkdir()
    os.mkfifo(root / "setup.cfg")
    assert static_requirements(root, {"build-system": {"build-backend": "setuptools.build_meta"}}) is None
    (root / "setup.cfg").unlink()
    (root / "setup.cfg").write_text("[options]\ninstall_requires =\n    requests\n    flue-skills\n")
    assert static_requirements(root, {}) == ["requests", "flue-skills"]


def test_check_of_a_project_whose_setup_cfg_is_a_fifo_returns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """setuptools' layout and the requirements are both read from setup.cfg: through one reader, which never
    blocks on a FIFO (a plain open did, before check said anything)."""
    root = project(tmp_path / "acme")
    os.mkfifo(root / "setup.cfg")
    assert verdict(root, capsys)[:2] == (0, [])
