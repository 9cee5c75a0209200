"""skill()/markdown() resolution in-process: one body, three shapes of the same package.

"source": the source tree on sys.path (dev mode, no bundle); "folder": an installed copy
with its bundle; "zip": that copy zipped onto sys.path. The bundle is written with the
run time's own manifest code (rtsupport.py); test_setups.py does the same with real
backends, wheels, venvs and editable installs.
"""

from __future__ import annotations

import importlib
import os
import random
import sys
from pathlib import Path
from types import ModuleType

import pytest
from rtsupport import Call, Project, zip_folder
from support.hostile import planted
from support.imports import ImportSandbox
from support.projects import write_module, write_skill

import flue_runtime
from flue_runtime import SkillError, SkillNotFoundError, SkillReference, errors, markdown, skill
from flue_runtime.errors import MountError, SkillPathError
from flue_runtime.mount.resolve import Caller, resolve_markdown, resolve_skill

PNG = b"\x89PNG\r\n\x1a\n\x00\x00binary\xff"
TRAVERSALS = [
    "../SKILL.md",
    "../../etc/passwd",
    "/etc/passwd",
    "scripts/../../x",
    "scripts\\extract.py",
    "C:/Windows/win.ini",
    "a\x00b",
    "%2e%2e/SKILL.md",
    "%252e%252e/x",
    "scripts%2fextract.py",
    "\uff0e\uff0e/SKILL.md",
    "./SKILL.md",
    "",
    "scripts//extract.py",
]


def make_project(root: Path, pkg: str) -> Project:
    src = root / "src"
    base = src / pkg
    write_module(base / "__init__.py", "")
    write_module(
        base / "agent.py",
        """
        from flue_runtime import skill, markdown
        import flue_runtime as fr

        REFUNDS = skill("./skills/refunds/SKILL.md")
        PDF = fr.skill("./skills/pdf-tools/SKILL.md")
        PROMPT = markdown("./prompts/system.md")
        """,
    )
    write_module(base / "sub" / "__init__.py", "")
    write_module(
        base / "sub" / "deep.py",
        """
        from flue_runtime import skill as load

        REFUNDS = load("../skills/refunds/SKILL.md")
        """,
    )
    write_skill(
        base / "skills" / "refunds",
        body="# Refunds\n\nRefund within 30 days.\r\nCRLF line.\n",
        files={"policy.md": "30 days\n"},
    )
    write_skill(
        base / "skills" / "pdf-tools",
        description="Extract text from PDFs. Use when a PDF is shared.",
        files={"scripts/extract.py": "print('x')\n", "reference.md": "# Ref\n", "img/logo.png": PNG},
    )
    (base / "prompts").mkdir()
    (base / "prompts" / "system.md").write_text("\ufeffYou are helpful. é\n", encoding="utf-8")
    return Project(
        src,
        [
            Call(f"{pkg}.agent", "./skills/refunds/SKILL.md"),
            Call(f"{pkg}.agent", "./skills/pdf-tools/SKILL.md"),
            Call(f"{pkg}.agent", "./prompts/system.md", "markdown"),
            Call(f"{pkg}.sub.deep", "../skills/refunds/SKILL.md"),
        ],
    )


def shape(project: Project, pkg: str, how: str, tmp_path: Path, imports: ImportSandbox) -> None:
    if how == "source":
        imports.add(project.src)
        return
    site = tmp_path / "site"
    project.install(site, pkg, editable=how == "editable-manifest")
    if how == "zip":
        imports.add(zip_folder(site, tmp_path / f"{pkg}-1.0-py3-none-any.whl"))
    else:
        imports.add(site)


def snapshot(ref: SkillReference) -> dict[str, object]:
    return {
        "name": ref.name,
        "description": ref.description,
        "metadata": dict(ref.metadata),
        "instructions": ref.instructions,
        "resources": ref.resources,
        "files": {f.path: ref.read_bytes(f.path) for f in ref.files},
        "id": ref.id,
    }


@pytest.mark.parametrize("how", ["source", "folder", "zip", "editable-manifest"])
def test_every_shape_gives_the_same_skills(how: str, tmp_path: Path, pkg_name: str, imports: ImportSandbox) -> None:
    project = make_project(tmp_path / "project", pkg_name)
    expected_refunds = (project.src / pkg_name / "skills" / "refunds" / "SKILL.md").read_bytes()
    shape(project, pkg_name, how, tmp_path, imports)

    agent = importlib.import_module(f"{pkg_name}.agent")
    deep = importlib.import_module(f"{pkg_name}.sub.deep")

    refunds = snapshot(agent.REFUNDS)
    assert refunds["name"] == "refunds"
    assert refunds["instructions"] == "# Refunds\n\nRefund within 30 days.\r\nCRLF line.\n"
    assert refunds["resources"] == ("policy.md",)
    assert refunds["files"] == {"SKILL.md": expected_refunds, "policy.md": b"30 days\n"}
    pdf = snapshot(agent.PDF)
    assert pdf["description"] == "Extract text from PDFs. Use when a PDF is shared."
    assert pdf["resources"] == ("img/logo.png", "reference.md", "scripts/extract.py")
    assert agent.PDF.read_bytes("img/logo.png") == PNG
    assert agent.PDF.read_text("scripts/extract.py") == "print('x')\n"
    assert agent.PROMPT == "You are helpful. é\n"
    assert deep.REFUNDS == agent.REFUNDS and hash(deep.REFUNDS) == hash(agent.REFUNDS)
    origin = agent.REFUNDS.origin
    assert ("bundled" in origin) == (how in ("folder", "zip")), origin
    # A bundle never changes; a folder read from disk is vetted again (tests/runtime/test_dev_mode.py).
    assert (agent.REFUNDS.current() is agent.REFUNDS) == (how in ("folder", "zip"))
    assert snapshot(agent.REFUNDS.current()) == refunds
    for path in TRAVERSALS:
        with pytest.raises(SkillPathError):
            agent.PDF.read_bytes(path)
        with pytest.raises(SkillPathError):
            agent.PDF.read_text(path)
    with pytest.raises(SkillNotFoundError, match="has no file 'missing.md'"):
        agent.PDF.read_text("missing.md")


def test_bundled_references_are_shared_and_need_no_yaml(tmp_path: Path, pkg_name: str, imports: ImportSandbox) -> None:
    project = make_project(tmp_path / "project", pkg_name)
    shape(project, pkg_name, "zip", tmp_path, imports)
    agent = importlib.import_module(f"{pkg_name}.agent")
    deep = importlib.import_module(f"{pkg_name}.sub.deep")
    assert deep.REFUNDS is agent.REFUNDS  # one reference per bundled skill
    assert agent.REFUNDS.origin.endswith(f"(bundled in {pkg_name!r})")


def test_python_dash_m_resolves_from_the_spec_name(tmp_path: Path, pkg_name: str, imports: ImportSandbox) -> None:
    project = make_project(tmp_path / "project", pkg_name)
    shape(project, pkg_name, "folder", tmp_path, imports)
    importlib.import_module(pkg_name)
    ref = resolve_skill("./skills/refunds/SKILL.md", Caller(f"{pkg_name}.agent", None))
    assert ref.name == "refunds" and "bundled" in ref.origin


# --- dev mode: edits, secrets, links ---------------------------------------------------


def test_dev_mode_sees_edits_and_refuses_new_secrets(tmp_path: Path, pkg_name: str, imports: ImportSandbox) -> None:
    project = make_project(tmp_path / "project", pkg_name)
    shape(project, pkg_name, "source", tmp_path, imports)
    agent = importlib.import_module(f"{pkg_name}.agent")
    skill_md = project.src / pkg_name / "skills" / "refunds" / "SKILL.md"
    ref = agent.REFUNDS
    assert "30 days" in ref.instructions
    skill_md.write_text(skill_md.read_text(encoding="utf-8").replace("30 days", "60 days"), encoding="utf-8")
    os.utime(skill_md, ns=(1, 1))  # a new stamp even on a coarse clock
    assert "60 days" in ref.instructions
    (skill_md.parent / ".env").write_text("TOKEN=1\n")
    with pytest.raises(SkillError) as info:
        importlib.reload(agent)
    assert [d.code for d in info.value.diagnostics if d.is_error] == ["FLU302"]
    assert ".env" in str(info.value) and "refunds" in str(info.value)


def test_dev_mode_refuses_links_and_keys_like_the_build(tmp_path: Path, pkg_name: str, imports: ImportSandbox) -> None:
    project = make_project(tmp_path / "project", pkg_name)
    shape(project, pkg_name, "source", tmp_path, imports)
    folder = project.src / pkg_name / "skills" / "pdf-tools"
    (folder / "link.md").symlink_to(folder / "reference.md")
    (folder / "notes.txt").write_text(planted.shaped_pem(random.Random(1), "OPENSSH PRIVATE KEY"))
    with pytest.raises(SkillError) as info:
        importlib.import_module(f"{pkg_name}.agent")
    assert sorted(d.code for d in info.value.diagnostics if d.is_error) == ["FLU301", "FLU303"]


def test_dev_mode_allow_list_comes_from_the_project(tmp_path: Path, pkg_name: str, imports: ImportSandbox) -> None:
    project = make_project(tmp_path / "project", pkg_name)
    folder = project.src / pkg_name / "skills" / "refunds"
    (folder / ".env.local").write_text("TOKEN=changeme\n")
    (tmp_path / "project" / "pyproject.toml").write_text(
        f'[tool.flue]\nallow = ["src/{pkg_name}/skills/refunds/.env.local"]\n', encoding="utf-8"
    )
    shape(project, pkg_name, "source", tmp_path, imports)
    agent = importlib.import_module(f"{pkg_name}.agent")
    assert agent.REFUNDS.read_text(".env.local") == "TOKEN=changeme\n"


def test_dev_mode_refuses_a_file_turned_into_a_link_after_loading(
    tmp_path: Path, pkg_name: str, imports: ImportSandbox
) -> None:
    project = make_project(tmp_path / "project", pkg_name)
    shape(project, pkg_name, "source", tmp_path, imports)
    agent = importlib.import_module(f"{pkg_name}.agent")
    policy = project.src / pkg_name / "skills" / "refunds" / "policy.md"
    policy.unlink()
    policy.symlink_to(tmp_path / "elsewhere")
    (tmp_path / "elsewhere").write_text("secret")
    with pytest.raises(SkillError, match="FLU301"):
        agent.REFUNDS.read_text("policy.md")


@pytest.mark.parametrize(
    "name, content, code",
    [
        (".env.md", "x", "FLU302"),
        ("key.md", planted.shaped_pem(random.Random(1)), "FLU303"),
        ("bad.md", b"\xff\xfe", "FLU102"),
    ],
)
def test_dev_mode_markdown_follows_the_packing_rules(
    name: str, content: str | bytes, code: str, tmp_path: Path, pkg_name: str, imports: ImportSandbox
) -> None:
    base = tmp_path / "src" / pkg_name
    write_module(base / "__init__.py", "")
    write_module(base / "agent.py", f"from flue_runtime import markdown\nTEXT = markdown('./{name}')\n")
    target = base / name
    target.write_bytes(content if isinstance(content, bytes) else content.encode())
    imports.add(tmp_path / "src")
    with pytest.raises(SkillError) as info:
        importlib.import_module(f"{pkg_name}.agent")
    assert [d.code for d in info.value.diagnostics] == [code]


def test_dev_mode_markdown_link_refused(tmp_path: Path, pkg_name: str, imports: ImportSandbox) -> None:
    base = tmp_path / "src" / pkg_name
    write_module(base / "__init__.py", "")
    write_module(base / "agent.py", "from flue_runtime import markdown\nTEXT = markdown('./linked.md')\n")
    (tmp_path / "real.md").write_text("hi")
    (base / "linked.md").symlink_to(tmp_path / "real.md")
    imports.add(tmp_path / "src")
    with pytest.raises(SkillError, match="FLU301"):
        importlib.import_module(f"{pkg_name}.agent")


def test_dev_mode_markdown_is_read_anew(tmp_path: Path, pkg_name: str, imports: ImportSandbox) -> None:
    base = tmp_path / "src" / pkg_name
    write_module(base / "__init__.py", "")
    write_module(base / "agent.py", "from flue_runtime import markdown\ndef text():\n    return markdown('./p.md')\n")
    (base / "p.md").write_text("one")
    imports.add(tmp_path / "src")
    agent = importlib.import_module(f"{pkg_name}.agent")
    assert agent.text() == "one"
    (base / "p.md").write_text("two")
    assert agent.text() == "two"


# --- package specs -------------------------------------------------------------------


def make_library(root: Path, lib: str) -> Project:
    base = root / "src" / lib
    write_module(base / "__init__.py", "from flue_runtime import skill\nREVIEW = skill('./review/SKILL.md')\n")
    write_module(base / "tools.py", f"from flue_runtime import skill\nSELF = skill('{lib}/review/SKILL.md')\n")
    write_module(base / "docs" / "__init__.py", "from flue_runtime import markdown\nGUIDE = markdown('../guide.md')\n")
    write_skill(base / "review", description="Review code. Use for pull requests.", files={"checklist.md": "- tests\n"})
    (base / "guide.md").write_text("# Guide\n")
    return Project(
        root / "src",
        [
            Call(lib, "./review/SKILL.md"),
            Call(f"{lib}.tools", f"{lib}/review/SKILL.md"),
            Call(f"{lib}.docs", "../guide.md", "markdown"),
        ],
    )


@pytest.mark.parametrize("how", ["source", "folder", "zip"])
def test_package_specs(how: str, tmp_path: Path, pkg_name: str, imports: ImportSandbox) -> None:
    lib = pkg_name + "_lib"
    library = make_library(tmp_path / "lib", lib)
    app = tmp_path / "app" / "src" / pkg_name
    write_module(app / "__init__.py", "")
    write_module(
        app / "agent.py",
        f"""
        from flue_runtime import skill, markdown
        REVIEW = skill("{lib}/review/SKILL.md")
        GUIDE = markdown("{lib}/guide.md")
        """,
    )
    consumer = Project(
        tmp_path / "app" / "src",
        [
            Call(f"{pkg_name}.agent", f"{lib}/review/SKILL.md", package=True),
            Call(f"{pkg_name}.agent", f"{lib}/guide.md", "markdown", package=True),
        ],
    )
    if how == "source":
        imports.add(library.src)
        imports.add(consumer.src)
    else:
        site = tmp_path / "site"
        library.install(site, lib)
        consumer.install(site, pkg_name)
        imports.add(zip_folder(site, tmp_path / "all.zip") if how == "zip" else site)
    agent = importlib.import_module(f"{pkg_name}.agent")
    library_module = importlib.import_module(lib)
    tools = importlib.import_module(f"{lib}.tools")
    assert agent.REVIEW == library_module.REVIEW == tools.SELF
    assert agent.REVIEW.read_text("checklist.md") == "- tests\n"
    assert agent.GUIDE == "# Guide\n"
    assert ("bundled" in agent.REVIEW.origin) == (how != "source")


def test_a_package_spec_the_bundle_lacks_lists_what_it_holds(
    tmp_path: Path, pkg_name: str, imports: ImportSandbox
) -> None:
    lib = pkg_name + "_lib"
    make_library(tmp_path / "lib", lib).install(tmp_path / "site", lib)
    imports.add(zip_folder(tmp_path / "site", tmp_path / "lib.whl"))
    with pytest.raises(SkillNotFoundError, match=f"its bundle holds {lib}/review/SKILL.md, and it is not on disk"):
        resolve_skill(f"{lib}/nope/SKILL.md", Caller("app.agent", None))
    with pytest.raises(SkillNotFoundError, match=f"its bundle holds {lib}/guide.md"):
        resolve_markdown(f"{lib}/nope.md", Caller("app.agent", None))


def test_package_spec_falls_back_to_the_package_folder(tmp_path: Path, pkg_name: str, imports: ImportSandbox) -> None:
    lib = tmp_path / "site" / pkg_name
    write_module(lib / "__init__.py", "")
    write_skill(lib / "plain")
    imports.add(tmp_path / "site")
    ref = resolve_skill(f"{pkg_name}/plain/SKILL.md", Caller("__main__", None))
    assert ref.name == "plain" and ref.origin.endswith("(from disk)")


def test_namespace_packages_are_skipped_for_the_bundle(tmp_path: Path, pkg_name: str, imports: ImportSandbox) -> None:
    src = tmp_path / "src"
    write_module(src / pkg_name / "agents" / "__init__.py", "")  # pkg_name itself is a namespace package
    write_module(src / pkg_name / "agents" / "bot.py", "from flue_runtime import skill\nS = skill('./s/SKILL.md')\n")
    write_skill(src / pkg_name / "agents" / "s")
    project = Project(src, [Call(f"{pkg_name}.agents.bot", "./s/SKILL.md")])
    project.install(tmp_path / "site", f"{pkg_name}.agents")
    assert (tmp_path / "site" / pkg_name / "agents" / "_flue_skills" / "manifest.json").is_file()
    imports.add(tmp_path / "site")
    bot = importlib.import_module(f"{pkg_name}.agents.bot")
    assert "bundled" in bot.S.origin
    ref = resolve_skill(f"{pkg_name}/agents/s/SKILL.md", Caller("__main__", None))
    assert ref is bot.S


# --- errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec, words",
    [
        ("./skills/refunds", "must end in `/SKILL.md`"),
        ("./skills/refunds/skill.md", "must end in `/SKILL.md`"),
        ("./skills/refunds/", "empty"),
        ("./skills/refunds/SKILL.md/", "empty"),
        ("SKILL.md", "not an importable package name"),
        ("/abs/x/SKILL.md", "absolute"),
        ("./a/../b/SKILL.md", "misplaced `..`"),
        ("./a\\b/SKILL.md", "backslash"),
        ("my-skills/x/SKILL.md", "not an importable package name"),
        ("", "empty"),
    ],
)
def test_malformed_specs(spec: str, words: str) -> None:
    with pytest.raises(MountError) as info:
        skill(spec)
    assert words in str(info.value)


def test_markdown_spec_must_end_in_md() -> None:
    with pytest.raises(MountError, match="must end in `.md`"):
        markdown("./notes.txt")
    with pytest.raises(MountError, match="takes one string"):
        skill(42)  # type: ignore[arg-type]


def test_unknown_package() -> None:
    with pytest.raises(SkillNotFoundError) as info:
        skill("no_such_package_anywhere/review/SKILL.md")
    message = str(info.value)
    assert "no importable package 'no_such_package_anywhere'" in message and __name__ in message
    assert isinstance(info.value, SkillNotFoundError) and isinstance(info.value, LookupError)


def test_missing_build_hook(tmp_path: Path, pkg_name: str, imports: ImportSandbox) -> None:
    # A package installed from a wheel built without the hook: the code is there, the skill is not.
    write_module(tmp_path / "site" / pkg_name / "__init__.py", "")
    write_module(
        tmp_path / "site" / pkg_name / "agent.py", "from flue_runtime import skill\nS = skill('./skills/x/SKILL.md')\n"
    )
    imports.add(zip_folder(tmp_path / "site", tmp_path / "nohook.whl"))
    with pytest.raises(SkillNotFoundError) as info:
        importlib.import_module(f"{pkg_name}.agent")
    message = str(info.value)
    for words in (
        "built without the flue-skills build hook",
        "[tool.hatch.build.hooks.flue-skills]",
        "hatch-flue-skills",
        "requires",
        "[tool.flue]",
        f"{pkg_name}.agent",
        "pip install -e",
    ):
        assert words in message, message
    # Issue 44 item 10: what is wrong on the first line, then how to fix it, a backend a line, each fitting a
    # terminal (it was one line of some 700 characters).
    first, *fix = message.splitlines()
    assert f"module '{pkg_name}.agent'" in first and "built without the flue-skills build hook" in first
    assert [line.split(":", 1)[0].strip() for line in fix if line.startswith("    ")] == ["hatchling", "setuptools"]
    assert fix and all(len(line) <= 110 for line in fix), fix


def test_missing_hook_in_a_package_spec_target(tmp_path: Path, pkg_name: str, imports: ImportSandbox) -> None:
    write_module(tmp_path / "site" / pkg_name / "__init__.py", "")
    imports.add(zip_folder(tmp_path / "site", tmp_path / "lib.whl"))
    with pytest.raises(SkillNotFoundError, match=f"package '{pkg_name}'.*no bundled skills"):
        resolve_skill(f"{pkg_name}/review/SKILL.md", Caller("app.agent", "/x/app/agent.py"))


def test_not_in_the_bundle(tmp_path: Path, pkg_name: str, imports: ImportSandbox) -> None:
    project = make_project(tmp_path / "project", pkg_name)
    project.calls = [c for c in project.calls if "pdf" not in c.spec]
    shape(project, pkg_name, "zip", tmp_path, imports)
    with pytest.raises(SkillNotFoundError, match="lists no such call") as info:
        importlib.import_module(f"{pkg_name}.agent")
    assert "build hook" not in str(info.value)  # (not the missing hook's words)


def test_top_level_module_without_package(tmp_path: Path, imports: ImportSandbox) -> None:
    with pytest.raises(SkillNotFoundError, match="not inside a regular package"):
        resolve_skill("./nothing/SKILL.md", Caller("lonely_module", str(tmp_path / "lonely_module.py")))


def test_a_changed_bundle_file_is_refused(tmp_path: Path, pkg_name: str, imports: ImportSandbox) -> None:
    project = make_project(tmp_path / "project", pkg_name)
    shape(project, pkg_name, "folder", tmp_path, imports)
    agent = importlib.import_module(f"{pkg_name}.agent")
    [policy] = (tmp_path / "site" / pkg_name / "_flue_skills" / "skills").glob("*/policy.md")
    policy.write_text("tampered")
    with pytest.raises(MountError, match="differs from the bundle manifest"):
        agent.REFUNDS.read_text("policy.md")
    policy.unlink()
    with pytest.raises(MountError, match="missing from the installed package"):
        agent.REFUNDS.read_text("policy.md")


def test_an_unknown_manifest_format_is_refused(tmp_path: Path, pkg_name: str, imports: ImportSandbox) -> None:
    project = make_project(tmp_path / "project", pkg_name)
    shape(project, pkg_name, "folder", tmp_path, imports)
    (tmp_path / "site" / pkg_name / "_flue_skills" / "manifest.json").write_text('{"format": 99}')
    with pytest.raises(MountError, match="format 99"):
        importlib.import_module(f"{pkg_name}.agent")


def test_public_names() -> None:
    for name in ("skill", "markdown", "define_skill", "SkillReference", "SkillTree", "SkillNotFoundError"):
        assert name in flue_runtime.__all__
        assert getattr(flue_runtime, name) is not None
    for name in ("SkillPathError", "UnsafeFileError", "RemoteSkillsError"):
        assert name in errors.__all__ and name not in flue_runtime.__all__
    assert isinstance(sys.modules["flue_runtime"], ModuleType)


# --- a missing file in a source tree (issue 31, item 6a) -------------------------------


def typo_package(root: Path, pkg: str, calls: dict[str, str]) -> Path:
    """A source tree `root/src/<pkg>` holding playbooks/refunds, playbooks/triage and notes/system.md, with a module per entry of
    `calls` (module name: the statement it runs); returns `src`."""
    base = root / "src" / pkg
    write_module(base / "__init__.py", "")
    write_skill(base / "playbooks" / "refunds")
    write_skill(base / "playbooks" / "triage")
    write_module(base / "notes" / "system.md", "You are helpful.\n")
    for module, statement in calls.items():
        write_module(base / f"{module}.py", f"from flue_runtime import skill, markdown\n\nX = {statement}\n")
    return root / "src"


@pytest.mark.parametrize(
    "statement, guess",
    [
        ("skill('./playbooks/refnds/SKILL.md')", "./playbooks/refunds/SKILL.md"),
        ("skill('./playbook/refunds/SKILL.md')", "./playbooks/refunds/SKILL.md"),
        ("markdown('./notes/sytem.md')", "./notes/system.md"),
        ("skill('./playbooks/zzzqqq/SKILL.md')", None),
    ],
)
def test_a_path_typo_in_a_source_tree_is_a_missing_folder_not_a_missing_hook(
    statement: str, guess: str | None, tmp_path: Path, pkg_name: str, imports: ImportSandbox
) -> None:
    """Run from a source tree (PYTHONPATH=src), a skill folder not on disk is a wrong path: no hook would help."""
    imports.add(typo_package(tmp_path, pkg_name, {"agent": statement}))
    with pytest.raises(SkillNotFoundError) as info:
        importlib.import_module(f"{pkg_name}.agent")
    message = str(info.value)
    spec = statement.split("'")[1]
    missing = os.path.normpath(tmp_path / "src" / pkg_name / spec)
    assert spec in message and f"{pkg_name}.agent" in message
    assert (os.path.dirname(missing) if spec.endswith("/SKILL.md") else missing) in message, message
    assert "build hook" not in message, message
    if guess is None:
        assert "did you mean" not in message, message
    else:
        assert f"did you mean `{guess}`?" in message, message


def test_a_package_spec_typo_in_a_source_tree_is_a_missing_folder(
    tmp_path: Path, pkg_name: str, imports: ImportSandbox
) -> None:
    imports.add(typo_package(tmp_path, pkg_name, {"agent": f"skill('{pkg_name}/playbooks/triag/SKILL.md')"}))
    with pytest.raises(SkillNotFoundError) as info:
        importlib.import_module(f"{pkg_name}.agent")
    message = str(info.value)
    assert f"did you mean `{pkg_name}/playbooks/triage/SKILL.md`?" in message, message
    assert str(tmp_path / "src" / pkg_name / "playbooks" / "triag") in message and "build hook" not in message, message


@pytest.mark.parametrize(
    "statement, guess",
    [
        ("skill('playbooks/refunds/SKILL.md')", "./playbooks/refunds/SKILL.md"),
        ("markdown('notes/system.md')", "./notes/system.md"),
    ],
)
def test_a_spec_without_dot_slash_naming_a_file_next_to_the_module_says_so(
    statement: str, guess: str, tmp_path: Path, pkg_name: str, imports: ImportSandbox
) -> None:
    imports.add(typo_package(tmp_path, pkg_name, {"agent": statement}))
    with pytest.raises(SkillNotFoundError) as info:
        importlib.import_module(f"{pkg_name}.agent")
    message = str(info.value)
    assert f"no importable package {guess.split('/')[1]!r}" in message, message
    assert f"did you mean `{guess}`?" in message, message


def test_a_spec_without_dot_slash_and_nothing_next_to_the_module_guesses_nothing(
    tmp_path: Path, pkg_name: str, imports: ImportSandbox
) -> None:
    imports.add(typo_package(tmp_path, pkg_name, {"agent": "skill('playbooks/elsewhere/SKILL.md')"}))
    with pytest.raises(SkillNotFoundError) as info:
        importlib.import_module(f"{pkg_name}.agent")
    assert "did you mean" not in str(info.value)
