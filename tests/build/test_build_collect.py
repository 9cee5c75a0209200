"""Collection and bundle planning as plain library calls (what every build and `check PROJECT_DIR` run)."""

from __future__ import annotations

import json
import os
import random
import sys
import textwrap
from pathlib import Path

import pytest
from support.hostile import planted
from support.paths import PROJECTS
from support.projects import copy_project

from flue_build.cli import main
from flue_build.collect import check_project, collect
from flue_build.pack import plan
from flue_build.scan.sources import sources_under
from flue_runtime.format.config import FlueConfig

SKILL = "---\nname: {name}\ndescription: A test skill. Use in tests.\n---\n\nDo the thing.\n"
PEM = planted.shaped_pem(random.Random(1))


def make_skill(folder: Path, **extra: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(SKILL.format(name=folder.name))
    for name, text in extra.items():
        (folder / name).write_text(text)
    return folder


def make_module(path: Path, source: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source))
    return path


def run(root: Path, strict: bool = False, packages: list[str] | None = None):  # type: ignore[no-untyped-def]
    (root / "pyproject.toml").write_text('[project]\nname = "t"\nversion = "1"\n')
    targets = [root / p for p in (packages or ["pkg"])]
    config = FlueConfig(root, strict=strict, packages=tuple(targets))
    return collect(config, sources_under(targets))


def codes(collection) -> list[str]:  # type: ignore[no-untyped-def]
    return sorted(d.code for d in collection.diagnostics)


def test_fixture_project_collects_cleanly() -> None:
    checked = check_project(PROJECTS / "hatch-src")
    collection = checked.collection
    assert [s.module for s in checked.sources] == [
        "hatch_src_demo",
        "hatch_src_demo.agents",
        "hatch_src_demo.agents.support",
    ]
    assert (collection.modules, collection.references, len(collection.skills)) == (3, 5, 2)
    assert [(d.code, d.location) for d in collection.diagnostics] == [
        ("FLU405", "src/hatch_src_demo/agents/support.py:8:19"),
    ]


def test_bundle_is_deterministic_and_stores_a_skill_once_per_package() -> None:
    first = plan(check_project(PROJECTS / "hatch-src").collection)
    second = plan(check_project(PROJECTS / "hatch-src").collection)
    assert first == second
    [bundle] = first
    manifest = json.loads(bundle.manifest)
    refs = manifest["references"]
    assert (
        refs["hatch_src_demo"]["./skills/refunds/SKILL.md"]
        == refs["hatch_src_demo.agents.support"]["../skills/refunds/SKILL.md"]
    )
    assert refs["hatch_src_demo.agents.support"]["acme_review_skills/review/SKILL.md"] == {
        "package": "acme_review_skills/review/SKILL.md"
    }
    dests = [f.dest for f in bundle.files]
    assert dests == sorted(dests) and len(dests) == len(set(dests)) == 6
    assert sorted(s["fields"]["name"] for s in manifest["skills"].values()) == ["pdf-tools", "refunds"]


def test_two_bundle_packages_each_get_their_copy(tmp_path: Path) -> None:
    make_skill(tmp_path / "skills" / "shared")
    for name in ("alpha", "beta"):
        make_module(
            tmp_path / name / "__init__.py", 'from flue_runtime import skill\nS = skill("../skills/shared/SKILL.md")\n'
        )
    collection = run(tmp_path, packages=["alpha", "beta"])
    assert collection.ok, collection.diagnostics
    bundles = plan(collection)
    assert [b.package for b in bundles] == ["alpha", "beta"]
    assert [f.dest.split("/", 1)[1] for f in bundles[0].files] == [f.dest.split("/", 1)[1] for f in bundles[1].files]


def test_namespace_portions_are_skipped_for_the_bundle_package(tmp_path: Path) -> None:
    make_skill(tmp_path / "acme" / "agents" / "skills" / "triage")
    make_module(tmp_path / "acme" / "agents" / "__init__.py", "")
    make_module(
        tmp_path / "acme" / "agents" / "support.py",
        'import flue_runtime\nT = flue_runtime.skill("./skills/triage/SKILL.md")\n',
    )
    collection = run(tmp_path, packages=["acme"])
    [bundle] = plan(collection)
    assert (bundle.package, bundle.path) == ("acme.agents", "acme/agents")
    assert bundle.manifest_path == "acme/agents/_flue_skills/manifest.json"


def test_editable_plan_points_at_sources_and_copies_nothing() -> None:
    collection = check_project(PROJECTS / "hatch-src").collection
    [bundle] = plan(collection, editable=True)
    assert bundle.files == ()
    manifest = json.loads(bundle.manifest)
    sources = sorted(entry["source"] for entry in [*manifest["skills"].values(), *manifest["markdown"].values()])
    assert all(os.path.isabs(s) and os.path.exists(s) for s in sources)
    assert any(s.endswith("skills/pdf-tools") for s in sources)


@pytest.mark.parametrize(
    ("source", "code"),
    [
        ('skill("./skills/missing/SKILL.md")', "FLU404"),
        ('markdown("./missing.md")', "FLU404"),
        ('skill("../../../../outside/SKILL.md")', "FLU406"),
        ('skill("./inner/SKILL.md")', "FLU408"),
        ('skill("./SKILL.md")', "FLU408"),
    ],
)
def test_reference_problems_are_reported_at_the_call(tmp_path: Path, source: str, code: str) -> None:
    (tmp_path / "pkg" / "inner").mkdir(parents=True)
    make_skill(tmp_path / "pkg" / "inner")
    (tmp_path / "pkg" / "inner" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "SKILL.md").write_text(SKILL.format(name="pkg"))
    make_module(tmp_path / "pkg" / "__init__.py", f"from flue_runtime import skill, markdown\n\nX = {source}\n")
    collection = run(tmp_path)
    [problem] = collection.diagnostics
    column = 11 if source.startswith("skill") else 14  # the spec argument
    assert (problem.code, problem.location) == (code, f"pkg/__init__.py:3:{column}")


def test_a_top_level_module_cannot_carry_a_bundle(tmp_path: Path) -> None:
    make_skill(tmp_path / "skills" / "x")
    make_module(tmp_path / "tool.py", 'from flue_runtime import skill\nX = skill("./skills/x/SKILL.md")\n')
    collection = run(tmp_path, packages=["tool.py"])
    assert codes(collection) == ["FLU407"]


def test_a_symlinked_skill_folder_is_refused(tmp_path: Path) -> None:
    real = make_skill(tmp_path / "elsewhere" / "x")
    (tmp_path / "pkg" / "skills").mkdir(parents=True)
    os.symlink(real, tmp_path / "pkg" / "skills" / "x")
    make_module(tmp_path / "pkg" / "__init__.py", 'from flue_runtime import skill\nX = skill("./skills/x/SKILL.md")\n')
    collection = run(tmp_path)
    [problem] = collection.diagnostics
    assert problem.code == "FLU301" and "pkg/skills/x" in problem.message


@pytest.mark.parametrize(
    ("name", "content", "code"),
    [
        (".env.md", "x", "FLU302"),
        ("notes.md", "notes\n" + PEM, "FLU303"),
        ("latin.md", b"caf\xe9", "FLU102"),
        ("linked.md", None, "FLU301"),
    ],
)
def test_markdown_targets_follow_the_packing_rules(
    tmp_path: Path, name: str, content: str | bytes | None, code: str
) -> None:
    target = tmp_path / "pkg" / name
    target.parent.mkdir(parents=True)
    if content is None:
        (tmp_path / "real.md").write_text("# real\n")
        os.symlink(tmp_path / "real.md", target)
    elif isinstance(content, bytes):
        target.write_bytes(content)
    else:
        target.write_text(content)
    make_module(tmp_path / "pkg" / "__init__.py", f'from flue_runtime import markdown\nX = markdown("./{name}")\n')
    collection = run(tmp_path)
    assert codes(collection) == [code]
    problem = collection.diagnostics[0]
    assert problem.path == f"pkg/{name}" or (problem.path == "pkg/__init__.py" and f"pkg/{name}" in problem.message)


def test_allow_lets_a_named_file_through_with_a_notice(tmp_path: Path) -> None:
    skill = make_skill(tmp_path / "pkg" / "skills" / "x", **{".env.local": "TOKEN=changeme\n"})
    make_module(tmp_path / "pkg" / "__init__.py", 'from flue_runtime import skill\nX = skill("./skills/x/SKILL.md")\n')
    assert codes(run(tmp_path)) == ["FLU302"]
    config = FlueConfig(tmp_path, allow=(skill / ".env.local",), packages=(tmp_path / "pkg",))
    collection = collect(config, sources_under([tmp_path / "pkg"]))
    assert codes(collection) == ["FLU306"] and collection.ok
    [bundle] = plan(collection)
    assert any(f.dest.endswith("/.env.local") for f in bundle.files)


def test_package_specs_are_checked_when_importable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    make_skill(site / "acme_ext_skills" / "review")
    make_skill(site / "acme_ext_skills" / "broken").joinpath("SKILL.md").write_text("no frontmatter\n")
    (site / "acme_ext_skills" / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(site))
    project = tmp_path / "project"
    make_module(
        project / "pkg" / "__init__.py",
        """\
        from flue_runtime import skill
        A = skill("acme_ext_skills/review/SKILL.md")
        B = skill("acme_ext_skills/broken/SKILL.md")
        C = skill("acme_ext_skills/absent/SKILL.md")
        D = skill("not_installed_anywhere/x/SKILL.md")
        """,
    )
    collection = run(project)
    assert codes(collection) == ["FLU103", "FLU404", "FLU405"]
    assert {p.name for p in collection.skills} == {"review", "broken"}  # vetted where they lie
    (site / "acme_ext_skills" / "broken" / "SKILL.md").write_text(SKILL.format(name="broken"))
    (site / "acme_ext_skills" / "_flue_skills").mkdir()
    (site / "acme_ext_skills" / "_flue_skills" / "manifest.json").write_text("{}")  # built with the hook
    collection = run(project)
    assert codes(collection) == ["FLU405"]
    [bundle] = plan(collection)
    assert bundle.files == ()  # another distribution's files are never copied
    refs = json.loads(bundle.manifest)["references"]["pkg"]
    assert all(list(r) == ["package"] for r in refs.values()) and len(refs) == 4


def test_strict_makes_warnings_errors(tmp_path: Path) -> None:
    make_module(
        tmp_path / "pkg" / "__init__.py",
        'from flue_runtime import skill\nX = skill("not_installed_anywhere/x/SKILL.md")\n',
    )
    assert run(tmp_path).ok
    assert not run(tmp_path, strict=True).ok


def test_check_project_dir_from_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    project = copy_project("hatch-src", tmp_path / "p")
    support = project / "src" / "hatch_src_demo" / "agents" / "support.py"
    support.write_text(support.read_text() + '\nname = "x"\nDYNAMIC = load(name)\n')
    (project / "src" / "hatch_src_demo" / "skills" / "refunds" / "id_ed25519").write_text("key")
    code = main(["check", "p"])
    out = capsys.readouterr().out
    assert code == 1
    assert "\np/src/hatch_src_demo/agents/support.py:16:16: FLU401 error: dynamic skill reference" in out
    assert "\np/src/hatch_src_demo/skills/refunds/id_ed25519: FLU302 error" in out
    assert "FLU405 warning" in out
    assert "scanned 3 modules, found 5 references" in out
    assert main(["check", "--format", "json", str(project)]) == 1
    rows = json.loads(capsys.readouterr().out)
    assert sorted(r["code"] for r in rows) == ["FLU302", "FLU401", "FLU405"]


def test_check_project_reports_config_problems(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = copy_project("hatch-flat", tmp_path / "p")
    with open(project / "pyproject.toml", "a") as handle:
        handle.write('\n[tool.flue]\nallow = [1]\nstrict = "no"\n')
    assert main(["check", str(project)]) == 1  # a problem in the project checked (flue_build.cli.exits)
    err = capsys.readouterr().err
    assert "tool.flue.allow[0]: must be a string, not a number" in err
    assert "tool.flue.strict: must be true or false, not a string" in err


def test_plain_skill_folders_are_still_checked_as_before(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(PROJECTS / "hatch-src" / "skills")]) == 0
    assert capsys.readouterr().out.strip().endswith("checked 1 skill: 0 errors, 0 warnings")


def test_setuptools_and_flat_projects_are_discovered_as_their_backends_would() -> None:
    flat = check_project(PROJECTS / "hatch-flat")
    assert [s.module for s in flat.sources] == ["hatch_flat_demo", "hatch_flat_demo.tools"]  # tests/ is not shipped
    tools = check_project(PROJECTS / "setuptools-src")
    assert [s.module for s in tools.sources] == ["setuptools_src_demo", "setuptools_src_demo.agents"]
    assert tools.collection.ok and flat.collection.ok
    assert sys.modules.get("setuptools_src_demo") is None


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ("./skills/refund/SKILL.md", "./skills/refunds/SKILL.md"),  # a sibling
        ("./skils/refunds/SKILL.md", "./skills/refunds/SKILL.md"),  # a cousin
        ("hatch_src_demo/skills/refnds/SKILL.md", "hatch_src_demo/skills/refunds/SKILL.md"),  # a package spec
    ],
)
def test_a_missing_skill_folder_says_which_one_was_meant(
    written: str, meant: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = copy_project("hatch-src", tmp_path / "p")
    module = project / "src" / "hatch_src_demo" / "__init__.py"
    module.write_text(module.read_text().replace("./skills/refunds/SKILL.md", written))
    assert main(["check", "--format", "json", str(project)]) == 1
    [missing] = [r for r in json.loads(capsys.readouterr().out) if r["code"] == "FLU404"]
    assert missing["hint"] == f"did you mean `{meant}`?"
    module.write_text(module.read_text().replace(written, meant))  # the hint, followed, checks clean
    assert main(["check", str(project)]) == 0, capsys.readouterr().out


def test_no_guess_when_nothing_is_close(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = copy_project("hatch-src", tmp_path / "p")
    module = project / "src" / "hatch_src_demo" / "__init__.py"
    module.write_text(module.read_text().replace("./skills/refunds/SKILL.md", "./skills/invoices/SKILL.md"))
    main(["check", "--format", "json", str(project)])
    [missing] = [r for r in json.loads(capsys.readouterr().out) if r["code"] == "FLU404"]
    assert "did you mean" not in missing["hint"]


def test_check_names_the_project_before_what_it_found(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = copy_project("hatch-src", tmp_path / "p")
    (project / "src" / "hatch_src_demo" / "skills" / "refunds" / "id_ed25519").write_text("key")
    assert main(["check", str(project)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"project {project} (hatch-src-demo 0.1.0): scanned 3 modules"), lines
    assert any("FLU302 error" in line for line in lines[1:-1]) and lines[-1].startswith("checked 2 skills")


def test_a_folder_importable_by_chance_does_not_hide_a_spec_without_dot_slash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`python -m` puts the working folder on sys.path: a project's top-level `skills/` is then an importable
    namespace package `skills`, which does not hold what a spec meant relative to the module names."""
    project = copy_project("hatch-src", tmp_path / "p")
    monkeypatch.syspath_prepend(str(project))  # `skills` importable: project/skills (pdf-tools)
    module = project / "src" / "hatch_src_demo" / "__init__.py"
    module.write_text(module.read_text().replace("./skills/refunds/SKILL.md", "skills/refunds/SKILL.md"))
    assert main(["check", "--format", "json", str(project)]) == 1
    [wrong] = [r for r in json.loads(capsys.readouterr().out) if r["code"] == "FLU415"]
    assert wrong["hint"] == 'did you mean `./skills/refunds/SKILL.md`? write skill("./skills/refunds/SKILL.md")'
