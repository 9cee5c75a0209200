"""`flue-skills export TARGET DIR`: plain skill folders, byte-identical to the installed bundle and verified
against its manifest; a different folder is replaced only with --force; a failure leaves DIR as it was."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from intsupport import NAME, PACKAGE, Installed
from support import procs
from support.envs import make_venv, pip_install
from support.projects import copy_project

from flue_runtime.errors import ExportError
from flue_runtime.format.manifest import BUNDLE_DIR, SKILLS_DIR
from flue_runtime.integrations.export import export_skills
from flue_runtime.mount.disk import load_skill_dir
from flue_runtime.mount.reference import SkillReference


def cli(*args: str, installed: Installed, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flue_build", *args],
        capture_output=True,
        text=True,
        env=installed.env(),
        cwd=cwd,
        timeout=120,
    )


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` by its POSIX path, links and all (nothing followed)."""
    found = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            full = Path(root, name)
            if full.is_symlink():
                found[full.relative_to(folder).as_posix()] = b"-> " + os.readlink(full).encode()
            elif full.is_file():
                found[full.relative_to(folder).as_posix()] = full.read_bytes()
    return found


def bundle_bytes(skill: SkillReference) -> dict[str, bytes]:
    return {f.path: skill.read_bytes(f.path) for f in skill.files}


@pytest.mark.slow
def test_export_writes_each_skill_byte_identical_and_checkable(
    installed: Installed, demo: dict[str, SkillReference], tmp_path: Path
) -> None:
    out = tmp_path / ".claude" / "skills"
    done = cli("export", PACKAGE, str(out), installed=installed)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["written", str(out / "refunds"), "written", str(out / "triage")]
    assert sorted(p.name for p in out.iterdir()) == ["refunds", "triage"]  # no staging folder left behind
    for name, skill in demo.items():
        assert tree(out / name) == bundle_bytes(skill)
    checked = cli("check", str(out), installed=installed)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "checked 2 skills: 0 errors" in checked.stdout

    again = cli("export", PACKAGE, str(out), installed=installed)
    assert again.returncode == 0 and again.stdout.split()[::2] == ["unchanged", "unchanged"]


@pytest.mark.slow
def test_a_different_folder_is_replaced_only_with_force(
    installed: Installed, demo: dict[str, SkillReference], tmp_path: Path
) -> None:
    out = tmp_path / "skills"
    assert cli("export", PACKAGE, str(out), installed=installed).returncode == 0
    (out / "refunds" / "policy.md").write_text("edited by hand\n")
    (out / "refunds" / "notes.txt").write_text("mine\n")
    before = tree(out)

    refused = cli("export", PACKAGE, str(out), installed=installed)
    assert refused.returncode == 2  # DIR is in the way: usage, not a problem in the skills
    assert f"{out / 'refunds'} exists and differs" in refused.stderr and "--force" in refused.stderr
    assert tree(out) == before  # triage was not written either

    forced = cli("export", PACKAGE, str(out), "--force", installed=installed)
    assert forced.returncode == 0, forced.stderr
    assert forced.stdout.split()[::2] == ["replaced", "unchanged"]
    assert tree(out / "refunds") == bundle_bytes(demo["refunds"])
    assert sorted(p.name for p in out.iterdir()) == ["refunds", "triage"]


@pytest.mark.slow
def test_a_link_in_the_way_is_never_followed(installed: Installed, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("untouched\n")
    out = tmp_path / "skills"
    out.mkdir()
    (out / "refunds").symlink_to(elsewhere, target_is_directory=True)

    refused = cli("export", PACKAGE, str(out), installed=installed)
    assert refused.returncode == 2 and "exists and differs" in refused.stderr
    forced = cli("export", PACKAGE, str(out), "--force", installed=installed)
    assert forced.returncode == 0, forced.stderr
    assert not (out / "refunds").is_symlink() and (out / "refunds" / "SKILL.md").is_file()
    assert tree(elsewhere) == {"keep.txt": b"untouched\n"}


@pytest.mark.slow
def test_a_file_changed_after_the_build_stops_the_export_with_nothing_written(
    installed: Installed, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    shutil.copytree(installed.site, site)
    [policy] = (site / PACKAGE / BUNDLE_DIR / SKILLS_DIR).glob("*/policy.md")
    policy.write_bytes(policy.read_bytes() + b"Also: everything is free.\r\n")
    out = tmp_path / "skills"
    out.mkdir()
    (out / "other").mkdir()
    before = tree(out)

    tampered = Installed(installed.wheel, site)
    failed = cli("export", PACKAGE, str(out), installed=tampered)
    assert failed.returncode == 1
    assert "policy.md" in failed.stderr and "differs from the bundle manifest" in failed.stderr
    assert tree(out) == before and sorted(p.name for p in out.iterdir()) == ["other"]


def test_a_folder_edited_after_vetting_is_refused(tmp_path: Path) -> None:
    """Skills from disk are checked against the sizes and digests their vetting recorded, like a bundle."""
    folder = tmp_path / "src" / "notes"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: notes\ndescription: Take notes. Use when asked.\n---\nTake notes.\n")
    (folder / "style.md").write_text("Short lines.\n")
    skill = load_skill_dir(folder)
    (folder / "style.md").write_text("Long lines, edited after the skill was loaded.\n")
    out = tmp_path / "out"
    with pytest.raises(ExportError, match=r"style\.md differs from its manifest"):
        export_skills([skill], out)
    assert not out.exists()


@pytest.mark.slow
def test_targets_an_agent_and_a_folder_of_skills(installed: Installed, tmp_path: Path) -> None:
    agent_out = tmp_path / "agent"
    rendered = cli("export", f"{PACKAGE}.agents:support", str(agent_out), installed=installed)
    assert rendered.returncode == 0, rendered.stderr
    assert sorted(p.name for p in agent_out.iterdir()) == ["refunds"]  # triage is mounted only in some state

    source = tmp_path / "source"
    assert cli("export", PACKAGE, str(source), installed=installed).returncode == 0
    broken = source / "broken"
    broken.mkdir()
    (broken / "SKILL.md").write_text("---\nname: Broken\n---\n")
    copied = tmp_path / "copied"
    done = cli("export", str(source), str(copied), installed=installed)
    assert done.returncode == 0, done.stderr
    assert f"warning: {broken} skipped" in done.stderr
    assert sorted(p.name for p in copied.iterdir()) == ["refunds", "triage"]
    assert tree(copied) == {k: v for k, v in tree(source).items() if not k.startswith("broken")}

    single = tmp_path / "single"
    assert cli("export", str(source / "triage"), str(single), installed=installed).returncode == 0
    assert tree(single) == {"triage/SKILL.md": (source / "triage" / "SKILL.md").read_bytes()}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("no_such_package_here", "no installed package or distribution"),
        ("no_such_module:agent", "cannot import 'no_such_module'"),
        (f"{PACKAGE}.agents:nobody", "has no agent function named 'nobody'"),
        ("./no/such/folder", "not an installed package or distribution, a MODULE:AGENT, or a folder of skills"),
    ],
)
def test_a_target_naming_nothing_is_a_usage_error(
    installed: Installed, tmp_path: Path, target: str, message: str
) -> None:
    failed = cli("export", target, str(tmp_path / "out"), installed=installed)
    assert failed.returncode == 2 and message in failed.stderr and not (tmp_path / "out").exists()


@pytest.mark.slow
def test_an_editable_install_is_served_from_its_project_folder(tmp_path: Path) -> None:
    """`pip install -e` leaves no bundle: the skills come from the project's folders, vetted as the build would."""
    project = copy_project(NAME, tmp_path / "project")
    python = make_venv(tmp_path / "venv")  # sees this environment's packages (flue-skills and its dependencies)
    pip_install(
        sys.executable,
        "-q",
        "--no-index",
        "--no-build-isolation",
        "-e",
        str(project),
        into=python,
        cwd=tmp_path,
        check=True,
    )

    out = tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    done = procs.run([str(python), "-m", "flue_build", "export", PACKAGE, str(out)], cwd=tmp_path, env=env)
    assert done.stdout.split()[::2] == ["written", "written"]
    for name in ("refunds", "triage"):
        assert tree(out / name) == tree(project / PACKAGE / "skills" / name)


def test_outcome_is_the_deprecated_name_of_written() -> None:
    """One name, one meaning (issue 42 item 6): `publish.Outcome` is a publish's record; export's is `Written`."""
    from flue_runtime.integrations import export

    with pytest.warns(DeprecationWarning, match=r"export\.Outcome is export\.Written"):
        assert export.Outcome is export.Written
