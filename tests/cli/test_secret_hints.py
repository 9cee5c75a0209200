"""FLU302/FLU303 hints: inside a project they point to `[tool.flue] allow`; outside any project, which has no
such list, they say what to do instead."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flue_build.cli import main
from flue_runtime import define_skill
from flue_runtime.errors import SkillError
from flue_runtime.format.config import PYPROJECT
from flue_runtime.mount.disk import load_skill_dir

KEY = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw\n"
HINTS = {
    ("FLU302", ".env"): "move it out of the skill folder; if it is harmless (an example, a test key), ",
    ("FLU302", ".ssh"): "move `.ssh/` out of the skill folder ",
    ("FLU303", "notes.md"): "remove the key from the file; never ship private keys inside a package ",
}
IN_PROJECT = {
    ("FLU302", ".env"): "list its path, relative to the project root, in [tool.flue] allow",
    ("FLU302", ".ssh"): "(add it to [tool.flue] allow only if it is test data)",
    ("FLU303", "notes.md"): "(a throwaway test key may be listed in [tool.flue] allow)",
}
NO_PROJECT = "this skill belongs to no project (no pyproject.toml), so no [tool.flue] allow can let it through"
OUTSIDE = {
    ("FLU302", ".env"): f"rename it so that it no longer looks like a secret: {NO_PROJECT}",
    ("FLU302", ".ssh"): f"({NO_PROJECT})",
    ("FLU303", "notes.md"): f"({NO_PROJECT})",
}


def skill_with_secrets(parent: Path) -> Path:
    folder = parent / "refunds"
    (folder / ".ssh").mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: refunds\ndescription: Handle refunds.\n---\nBody.\n")
    (folder / ".env").write_text("TOKEN=x\n")
    (folder / ".ssh" / "config").write_text("Host *\n")
    (folder / "notes.md").write_text(KEY)
    return folder


def hints(rows: list[dict[str, str]]) -> dict[tuple[str, str], str]:
    return {(row["code"], Path(row["path"]).name): row["hint"] for row in rows if row["code"] in ("FLU302", "FLU303")}


def expected(ends: dict[tuple[str, str], str]) -> dict[tuple[str, str], str]:
    return {key: HINTS[key] + end for key, end in ends.items()}


def check_json(capsys: pytest.CaptureFixture[str], path: Path) -> list[dict[str, str]]:
    assert main(["check", "--format", "json", str(path)]) == 1
    rows: list[dict[str, str]] = json.loads(capsys.readouterr().out)
    return rows


def test_outside_any_project_check_says_what_to_do_instead(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert not any((folder / PYPROJECT).exists() for folder in (tmp_path, *tmp_path.parents))
    folder = skill_with_secrets(tmp_path)
    assert hints(check_json(capsys, folder)) == expected(OUTSIDE)


def test_inside_a_project_check_points_to_its_allow_list(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / PYPROJECT).write_text('[project]\nname = "p"\nversion = "1"\n')
    folder = skill_with_secrets(tmp_path / "skills")
    assert hints(check_json(capsys, folder)) == expected(IN_PROJECT)


def test_dev_mode_outside_a_project_says_the_same(tmp_path: Path) -> None:
    with pytest.raises(SkillError) as refused:
        load_skill_dir(skill_with_secrets(tmp_path))
    found = {(d.code, Path(d.path).name): d.hint for d in refused.value.diagnostics if d.code in ("FLU302", "FLU303")}
    assert found == expected(OUTSIDE)


def test_define_skill_files_belong_to_no_project() -> None:
    with pytest.raises(SkillError) as refused:
        define_skill(name="refunds", description="Handle refunds.", instructions="Body.", files={".env": "TOKEN=x"})
    [diagnostic] = refused.value.diagnostics
    assert diagnostic.code == "FLU302" and diagnostic.hint == HINTS[("FLU302", ".env")] + OUTSIDE[("FLU302", ".env")]
