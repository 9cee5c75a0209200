"""`flue_build.shipping`: which folder a file's skill is, what of it may ship, and exclusions out of the bundles."""

from __future__ import annotations

import os
from pathlib import Path

from flue_build.collect import collect
from flue_build.scan.sources import sources_under
from flue_build.shipping import SkillFolders, without_excluded
from flue_runtime.format.config import FlueConfig


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def skill(folder: Path, *files: str) -> Path:
    write(folder / "SKILL.md", f"---\nname: {folder.name}\ndescription: A test skill.\n---\nBody.\n")
    for name in files:
        write(folder / name, f"{name}\n")
    return folder


def project(tmp_path: Path) -> tuple[FlueConfig, SkillFolders]:
    root = tmp_path / "project"
    write(
        root / "pkg" / "__init__.py", 'from flue_runtime import skill\n\nREFUNDS = skill("./skills/refunds/SKILL.md")\n'
    )
    skill(root / "pkg" / "skills" / "refunds", "policy.md", "notes.md~")
    config = FlueConfig(root)
    collection = collect(config, sources_under([root / "pkg"]))
    return config, SkillFolders(collection, config)


def test_the_outermost_folder_holding_a_skill_md_below_the_root(tmp_path: Path) -> None:
    _, folders = project(tmp_path)
    root = folders.collection.root
    write(root / "SKILL.md", "the project root is never a skill folder\n")
    outer = skill(root / "docs" / "outer")
    skill(outer / "inner")
    assert folders.folder_of(outer / "inner" / "SKILL.md") == outer
    assert folders.folder_of(root / "pkg" / "skills" / "refunds" / "policy.md") == root / "pkg" / "skills" / "refunds"
    assert folders.folder_of(root / "pkg" / "__init__.py") is None
    assert folders.folder_of(root / "README.md") is None
    outside = skill(tmp_path / "elsewhere" / "shared")
    assert folders.folder_of(outside / "x" / "y.md") == outside  # a force-included folder outside the project


def test_a_path_deeper_than_the_recursion_limit(tmp_path: Path) -> None:
    _, folders = project(tmp_path)
    deep = folders.collection.root.joinpath(*["d"] * 1_500, "leaf.md")  # need not exist: only looked up
    assert folders.folder_of(deep) is None
    top = skill(folders.collection.root / "d")
    fresh = SkillFolders(folders.collection, folders.config)
    assert fresh.folder_of(deep) == top


def test_only_the_files_the_vetting_kept_ship(tmp_path: Path) -> None:
    _, folders = project(tmp_path)
    refunds = folders.collection.root / "pkg" / "skills" / "refunds"
    assert folders.ships(refunds / "policy.md") and folders.ships(refunds / "SKILL.md")
    assert not folders.ships(refunds / "notes.md~")  # editor litter: skipped by the vetting
    assert not folders.ships(refunds / "missing.md")
    assert folders.ships(folders.collection.root / "pkg" / "__init__.py")  # not in a skill folder


def test_an_unreferenced_folder_is_vetted_once_by_the_same_rules(tmp_path: Path) -> None:
    _, folders = project(tmp_path)
    orphan = skill(folders.collection.root / "pkg" / "skills" / "orphan", "guide.md")
    write(orphan / ".env", "TOKEN=1\n")
    found = folders.meet([orphan / "guide.md", orphan / ".env", orphan / "SKILL.md"])
    assert [(d.path, d.code) for d in found] == [("pkg/skills/orphan", "FLU410"), ("pkg/skills/orphan/.env", "FLU302")]
    assert folders.meet([orphan / "guide.md"]) == []  # vetted once
    assert folders.unreferenced == [orphan]
    assert folders.ships(orphan / "guide.md") and not folders.ships(orphan / ".env")


def test_a_skill_folder_reached_through_a_link_is_refused(tmp_path: Path) -> None:
    _, folders = project(tmp_path)
    real = skill(tmp_path / "real" / "linked")
    os.symlink(real.parent, folders.collection.root / "alias")
    [problem] = folders.meet([folders.collection.root / "alias" / "linked" / "SKILL.md"])
    assert (problem.path, problem.code) == ("alias/linked", "FLU301")
    assert not folders.ships(folders.collection.root / "alias" / "linked" / "SKILL.md")


def test_excluded_files_leave_the_bundles_and_are_named(tmp_path: Path) -> None:
    config, folders = project(tmp_path)
    collection = folders.collection
    refunds = collection.root / "pkg" / "skills" / "refunds"

    def excluded_by(path: str | os.PathLike[str]) -> str | None:
        return "excluded by a test rule" if os.path.basename(path) in ("policy.md", "SKILL.md") else None

    filtered, problems = without_excluded(collection, excluded_by, "wheel")
    assert [(d.path, d.code, d.message) for d in problems] == [
        (
            "pkg/skills/refunds/SKILL.md",
            "FLU412",
            "the SKILL.md of a referenced skill is left out of the wheel: excluded by a test rule",
        ),
        ("pkg/skills/refunds/policy.md", "FLU411", "left out of the wheel: excluded by a test rule"),
    ]
    assert [f.path for f in filtered.skills[refunds].files] == []
    assert filtered.skills[refunds].id != collection.skills[refunds].id
    assert not filtered.ok and collection.ok
    kept, none = without_excluded(collection, lambda path: None, "sdist")
    assert none == [] and kept.skills[refunds] is collection.skills[refunds]
