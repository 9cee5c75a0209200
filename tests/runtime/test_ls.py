"""`flue-skills ls TARGET`: a wheel, a project folder, an installed package or distribution, a zipped wheel."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest
from rtsetups import AGENT, LIB, Builds, Setup
from support.paths import PROJECTS
from support.projects import copy_project

from flue_build.cli import main
from flue_runtime.format.skill_folder import vet_skill

BILLING = PROJECTS / AGENT / "src" / "runtime_agent_demo" / "skills" / "billing"
DATA = PROJECTS / AGENT / "skills" / "data-tools"
REVIEW = PROJECTS / LIB / "acme_review_skills" / "review"


def listed(package: str, folder: Path, allow: tuple[Path, ...] = ()) -> dict[str, Any]:
    vetted = vet_skill(folder, allow=allow)
    assert vetted.metadata is not None
    return {
        "package": package,
        "name": vetted.metadata.name,
        "description": vetted.metadata.description,
        "files": len(vetted.files),
        "size": sum(f.size for f in vetted.files),
        "id": vetted.id,
    }


AGENT_SKILLS = [
    listed("runtime_agent_demo", BILLING, (BILLING / ".env.example",)),
    listed("runtime_agent_demo", DATA),
]
LIB_SKILLS = [listed("acme_review_skills", REVIEW)]


def ls(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["ls", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.slow
def test_a_wheel(builds: Builds, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = ls(capsys, str(builds.agent), "--format", "json")
    assert code == 0
    assert json.loads(out) == AGENT_SKILLS
    code, out, _ = ls(capsys, str(builds.agent))
    lines = out.splitlines()
    assert lines[0].split() == ["NAME", "FILES", "SIZE", "PACKAGE", "DESCRIPTION"]
    assert lines[1].split()[:5] == ["billing", "4", "365", "B", "runtime_agent_demo"]
    assert lines[2].split()[:3] == ["data-tools", "3", "1.2"]
    assert lines[-1] == "2 skills in runtime_agent_demo"


@pytest.mark.parametrize("project, expected", [(AGENT, AGENT_SKILLS), (LIB, LIB_SKILLS)])
def test_a_project_folder_lists_what_its_build_ships(
    project: str, expected: list[dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = copy_project(project, tmp_path / project)
    code, out, err = ls(capsys, str(copy), "--format", "json")
    assert code == 0, err
    assert json.loads(out) == expected


def test_a_broken_project_reports_its_problems(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = copy_project(AGENT, tmp_path / AGENT)
    (copy / "skills" / "data-tools" / "id_rsa").write_text("x")
    code, _, err = ls(capsys, str(copy))
    assert code == 1
    assert "FLU302" in err and "id_rsa" in err and "would not build" in err


@pytest.mark.slow
@pytest.mark.parametrize(
    "target", ["runtime_agent_demo", "runtime-agent-demo", "acme_review_skills", "acme-review-skills"]
)
def test_an_installed_package_or_distribution(target: str, setups: dict[str, Setup]) -> None:
    out = setups["wheel"].run("-m", "flue_build", "ls", target, "--format", "json")
    assert json.loads(out.stdout) == (AGENT_SKILLS if "agent" in target else LIB_SKILLS)


@pytest.mark.slow
def test_a_zipped_wheel_on_sys_path(setups: dict[str, Setup]) -> None:
    out = setups["zip"].run("-m", "flue_build", "ls", "runtime_agent_demo", "--format", "json")
    assert json.loads(out.stdout) == AGENT_SKILLS


@pytest.mark.slow
def test_an_editable_install_lists_from_the_source_tree(setups: dict[str, Setup]) -> None:
    setup = setups["editable"]
    out = setup.run("-m", "flue_build", "ls", "runtime_agent_demo", "--format", "json")
    assert json.loads(out.stdout) == AGENT_SKILLS
    # Edits show without reinstalling: the listing is planned from the project, as its build would.
    project = setup.projects[AGENT]
    added = project / "skills" / "data-tools" / "notes.md"
    added.write_text("more\n")
    try:
        relisted = json.loads(setup.run("-m", "flue_build", "ls", "runtime-agent-demo", "--format", "json").stdout)
    finally:
        added.unlink()  # the setup is shared by the session: later tests expect the project as it was
    assert [s["files"] for s in relisted] == [AGENT_SKILLS[0]["files"], AGENT_SKILLS[1]["files"] + 1]


@pytest.mark.slow
def test_descriptions_are_whole_when_piped_and_cut_on_a_terminal(builds: Builds) -> None:
    from flue_build.cli.commands.ls import format_text
    from flue_runtime.mount.distribution import wheel_skills

    skills = wheel_skills(builds.agent)
    whole = format_text(skills)
    assert all(" ".join(s.description.split()) in whole for s in skills)
    cut = format_text(skills, width=60)
    assert "…" in cut and "…" not in whole
    piped = subprocess.run(
        [sys.executable, "-m", "flue_build", "ls", str(builds.agent)], capture_output=True, text=True, check=True
    )
    assert piped.stdout.strip() == whole


@pytest.mark.parametrize(
    "target, status, words",
    [
        ("no_such_package_xyz", 2, "no installed package or distribution"),  # names nothing: a usage error
        ("missing.whl", 2, "no such wheel"),
        ("json", 1, "has no skill bundle"),  # an importable package that ships nothing
    ],
)
def test_errors(target: str, status: int, words: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = ls(capsys, target)
    assert code == status and words in err


@pytest.mark.slow
def test_a_wheel_without_a_bundle(builds: Builds, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = ls(capsys, str(builds.flue))
    assert code == 1 and "no skill bundle in this wheel" in err


def test_a_plain_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = ls(capsys, str(tmp_path))
    assert code == 2 and "must be a project" in err


def test_the_console_script_has_ls() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "flue_build", "ls", "--help"], capture_output=True, text=True, check=True
    )
    assert "TARGET" in out.stdout and "--format" in out.stdout


# --- a file that is not a wheel: said what it is, and what to give instead (issue 31) ----------------


def write_sdist(path: Path) -> Path:
    """An sdist as a build writes it: `<name>-<version>/` holding PKG-INFO and the project's files."""
    with tarfile.open(path, "w:gz") as archive:
        for name, text in [("PKG-INFO", "Metadata-Version: 2.3\nName: acme\nVersion: 0.1.0\n"), ("pyproject.toml", "")]:
            data = text.encode()
            info = tarfile.TarInfo(f"acme-0.1.0/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def test_an_sdist_is_named_and_the_wheel_or_the_project_suggested(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "dist").mkdir()
    sdist = write_sdist(tmp_path / "dist" / "acme-0.1.0.tar.gz")
    code, _, err = ls(capsys, str(sdist))
    assert code == 2
    assert f"{sdist}: a source distribution (sdist), which ls does not read" in err
    assert "give the wheel" in err and "or the project folder" in err
    assert "no such" not in err
    # Named from its own folder (a name an installed distribution could have): the file still wins over "not installed".
    monkeypatch.chdir(sdist.parent)
    code, _, err = ls(capsys, sdist.name)
    assert code == 2 and "acme-0.1.0.tar.gz: a source distribution (sdist)" in err


def test_another_file_is_said_not_to_be_a_wheel(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    archive = tmp_path / "skills.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(BILLING, arcname="billing")
    notes = tmp_path / "notes.txt"
    notes.write_text("not a wheel\n")
    for path, what in [(archive, "an archive"), (notes, "a file")]:
        code, _, err = ls(capsys, str(path))
        assert code == 2 and f"{path}: {what}, not a wheel; ls reads a wheel (.whl), a project folder" in err, err
