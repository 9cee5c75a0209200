"""The read-only /.flue/skills tree over mounted skills: bundled ones from a zipped wheel, and defined ones."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from rtsupport import Call, Project, zip_folder
from support.imports import ImportSandbox
from support.projects import write_module, write_skill

from flue_runtime import FlueError, SkillReference, define_skill
from flue_runtime.errors import MountError, SkillNotFoundError, SkillPathError
from flue_runtime.mount.vfs import SKILLS_ROOT, SkillTree


@pytest.fixture
def bundled(tmp_path: Path, pkg_name: str, imports: ImportSandbox) -> SkillReference:
    src = tmp_path / "src"
    write_module(
        src / pkg_name / "__init__.py", "from flue_runtime import skill\nPDF = skill('./pdf-tools/SKILL.md')\n"
    )
    write_skill(
        src / pkg_name / "pdf-tools",
        files={"reference.md": "# Ref\n", "scripts/extract.py": "print(1)\n", "scripts/lib/util.py": "x = 1\n"},
    )
    Project(src, [Call(pkg_name, "./pdf-tools/SKILL.md")]).install(tmp_path / "site", pkg_name)
    imports.add(zip_folder(tmp_path / "site", tmp_path / "pdf.whl"))
    ref: SkillReference = importlib.import_module(pkg_name).PDF
    assert "bundled" in ref.origin
    return ref


@pytest.fixture
def tree(bundled: SkillReference) -> SkillTree:
    return SkillTree(
        [
            bundled,
            define_skill(
                name="notes", description="Take notes. Use always.", instructions="Write.", files={"a.md": "A"}
            ),
        ]
    )


def test_list_stat_read(tree: SkillTree, bundled: SkillReference) -> None:
    assert SKILLS_ROOT == "/.flue/skills"
    assert [(e.name, e.is_dir) for e in tree.list(SKILLS_ROOT)] == [("pdf-tools", True), ("notes", True)]
    assert [(e.name, e.is_dir) for e in tree.list("/.flue/skills/pdf-tools")] == [
        ("SKILL.md", False),
        ("reference.md", False),
        ("scripts", True),
    ]
    assert [e.name for e in tree.list("/.flue/skills/pdf-tools/scripts/")] == ["extract.py", "lib"]
    entry = tree.stat("/.flue/skills/pdf-tools/scripts/extract.py")
    assert (entry.name, entry.is_dir, entry.size) == ("extract.py", False, len(b"print(1)\n"))
    assert tree.stat("/.flue/skills/pdf-tools/scripts").is_dir
    assert tree.read("/.flue/skills/pdf-tools/scripts/lib/util.py") == b"x = 1\n"
    assert tree.read("/.flue/skills/pdf-tools/SKILL.md") == bundled.read_bytes("SKILL.md")
    assert tree.read("/.flue/skills/notes/a.md") == b"A"


@pytest.mark.parametrize(
    "path", ["/.flue/skills", "/.flue/skills/notes/a.md", "/.flue/skills/pdf-tools/scripts/../SKILL.md"]
)
def test_is_skill_path(path: str) -> None:
    assert SkillTree.is_skill_path(path)
    assert not SkillTree.is_skill_path("/tmp/.flue/skills/x")
    assert not SkillTree.is_skill_path("/work/notes.md")


def test_writes_are_refused(tree: SkillTree) -> None:
    for attempt in (
        lambda: tree.write("/.flue/skills/notes/a.md", b"x"),
        lambda: tree.write("/.flue/skills/notes/new.md", b"x"),
        lambda: tree.remove("/.flue/skills/pdf-tools/SKILL.md"),
        lambda: tree.rename("/.flue/skills/notes/a.md", "/.flue/skills/notes/b.md"),
    ):
        with pytest.raises(MountError, match="read-only") as info:
            attempt()
        assert isinstance(info.value, FlueError)
    assert tree.read("/.flue/skills/notes/a.md") == b"A"


@pytest.mark.parametrize(
    "path, error",
    [
        ("/.flue/skills/nope/SKILL.md", SkillNotFoundError),
        ("/.flue/skills/notes/missing.md", SkillNotFoundError),
        ("/.flue/skills/pdf-tools/scripts", SkillNotFoundError),  # a folder is not read
        ("/.flue/skills/pdf-tools/../notes/a.md", SkillPathError),
        ("/.flue/skills/pdf-tools/scripts/%2e%2e/SKILL.md", SkillPathError),
        ("/.flue/skills/pdf-tools\\SKILL.md", SkillPathError),
        ("/.flue/skills/pdf-tools/SKILL.md\x00", SkillPathError),
        ("/etc/passwd", SkillPathError),
    ],
)
def test_bad_reads(tree: SkillTree, path: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        tree.read(path)


def test_a_name_mounts_once(bundled: SkillReference) -> None:
    other = define_skill(name="pdf-tools", description="Another. Use never.", instructions="x")
    with pytest.raises(FlueError, match="pdf-tools"):
        SkillTree([bundled, other])


def test_closest_names_the_files_nearest_a_path_and_close_is_its_deprecated_name(tree: SkillTree) -> None:
    """`SkillTree.closest` (issue 42 item 6: `close()` read as closing the tree); `close` until 0.3, warning."""
    expected = [f"{SKILLS_ROOT}/pdf-tools/reference.md"]
    assert tree.closest("referance.md", ["pdf-tools"]) == expected
    with pytest.warns(DeprecationWarning, match=r"SkillTree\.close\(\) is SkillTree\.closest\(\)"):
        assert tree.close("referance.md", ["pdf-tools"]) == expected
