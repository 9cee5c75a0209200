"""`[tool.flue] exports` at build time, as library calls: the producer's build vets and bundles what it
exports and records the list; a consumer's build refuses a package spec its producer does not export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flue_build.collect import Collection, collect
from flue_build.pack import plan
from flue_build.scan.sources import sources_under
from flue_runtime.format.config import load_config
from flue_runtime.format.manifest import Manifest

SKILL = "---\nname: {name}\ndescription: A test skill. Use in tests.\n---\n\nDo the thing.\n"


def make_skill(folder: Path, **files: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(SKILL.format(name=folder.name))
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


def producer(root: Path, exports: str, packages: str = '["acme"]') -> Collection:
    """A project with package `acme` (skills review, internal; docs/style.md) whose code references only internal."""
    (root / "acme" / "docs").mkdir(parents=True, exist_ok=True)
    (root / "acme" / "__init__.py").write_text(
        'from flue_runtime import skill\nINTERNAL = skill("./internal/SKILL.md")\n'
    )
    make_skill(root / "acme" / "review", **{"checklist.md": "- tests\n"})
    make_skill(root / "acme" / "internal")
    (root / "acme" / "docs" / "style.md").write_text("# Style\n")
    (root / "pyproject.toml").write_text(
        f'[project]\nname = "acme"\nversion = "1"\n\n[tool.flue]\npackages = {packages}\n{exports}\n'
    )
    config = load_config(root)
    assert config.packages is not None
    return collect(config, sources_under(config.packages))


def manifests(collection: Collection) -> dict[str, dict]:  # type: ignore[type-arg]
    return {bundle.package: json.loads(bundle.manifest) for bundle in plan(collection)}


def test_exported_targets_are_vetted_bundled_and_listed(tmp_path: Path) -> None:
    collection = producer(tmp_path, 'exports = ["acme/review/SKILL.md", "acme/docs/style.md"]')
    assert collection.ok, collection.diagnostics
    assert {p.name for p in collection.skills} == {"review", "internal"}  # review: exported, never referenced
    [bundle] = plan(collection)
    data = json.loads(bundle.manifest)
    assert data["exports"] == ["acme/docs/style.md", "acme/review/SKILL.md"]
    review = collection.skills[tmp_path / "acme" / "review"]
    # recorded as a reference of the bundle package itself: every format-2 reader resolves it
    assert data["references"]["acme"]["acme/review/SKILL.md"] == {"skill": review.id}
    assert list(data["references"]["acme"]["acme/docs/style.md"]) == ["markdown"]
    assert {f.dest for f in bundle.files} >= {
        f"acme/_flue_skills/skills/{review.id}/SKILL.md",
        f"acme/_flue_skills/skills/{review.id}/checklist.md",
    }
    assert Manifest.loads(bundle.manifest).exports == ("acme/docs/style.md", "acme/review/SKILL.md")


def test_without_exports_the_manifest_is_unchanged(tmp_path: Path) -> None:
    collection = producer(tmp_path, "")
    assert collection.exports is None
    data = manifests(collection)["acme"]
    assert "exports" not in data and list(data["references"]) == ["acme"]
    assert list(data["references"]["acme"]) == ["./internal/SKILL.md"]


def test_an_empty_list_exports_nothing_and_says_so(tmp_path: Path) -> None:
    data = manifests(producer(tmp_path, "exports = []"))["acme"]
    assert data["exports"] == []


def test_every_bundle_package_of_the_build_records_the_exports(tmp_path: Path) -> None:
    """A spec into any package of the distribution meets the list, even one with no skill of its own."""
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "__init__.py").write_text("")
    make_skill(tmp_path / "other" / "plain")  # not referenced: would ship as plain files
    found = manifests(producer(tmp_path, 'exports = ["acme/review/SKILL.md"]', '["acme", "other"]'))
    assert set(found) == {"acme", "other"}
    assert found["other"]["exports"] == ["acme/review/SKILL.md"] and found["other"]["skills"] == {}


def test_an_exported_skill_is_vetted_like_any_other(tmp_path: Path) -> None:
    make_skill(tmp_path / "acme" / "review", **{".env": "TOKEN=1\n"})
    collection = producer(tmp_path, 'exports = ["acme/review/SKILL.md"]')
    assert [d.code for d in collection.diagnostics] == ["FLU302"]
    with pytest.raises(ValueError):
        plan(collection)


def test_export_problems_point_at_the_spec_in_pyproject(tmp_path: Path) -> None:
    collection = producer(
        tmp_path,
        'exports = [\n    "acme/review/SKILL.md",\n    "acme/absent/SKILL.md",\n    "elsewhere/x/SKILL.md",\n]',
    )
    shown = [d.format() for d in collection.diagnostics]
    assert shown[0].startswith("pyproject.toml:9:5: FLU404 error: skill folder acme/absent not found")
    assert shown[1].startswith(
        "pyproject.toml:10:5: FLU414 error: [tool.flue] exports `elsewhere/x/SKILL.md`, which names no package of this project"
    )
    assert "`acme/...`" in shown[1]  # the hint names the project's packages
    assert len(shown) == 2


def test_an_export_outside_any_regular_package_is_refused(tmp_path: Path) -> None:
    (tmp_path / "ns" / "inner").mkdir(parents=True)
    (tmp_path / "ns" / "inner" / "mod.py").write_text("")
    make_skill(tmp_path / "ns" / "loose")
    collection = producer(tmp_path, 'exports = ["ns/loose/SKILL.md"]', '["acme", "ns"]')
    [problem] = collection.diagnostics
    assert problem.code == "FLU414" and "lies in no regular package" in problem.message


# --- the consumer's build -------------------------------------------------------------------


def installed_producer(site: Path, exports: list[str] | None) -> None:
    """`acme_lib` as a wheel built with the hook installs it: a bundle whose manifest lists `exports`."""
    (site / "acme_lib" / "_flue_skills").mkdir(parents=True)
    (site / "acme_lib" / "__init__.py").write_text("")
    manifest = Manifest("acme_lib", exports=exports)
    (site / "acme_lib" / "_flue_skills" / "manifest.json").write_bytes(manifest.dumps())


def consumer(root: Path, *specs: str) -> Collection:
    (root / "app").mkdir(parents=True)
    calls = "".join(f'S{i} = skill("{spec}")\n' for i, spec in enumerate(specs))
    (root / "app" / "__init__.py").write_text(f"from flue_runtime import skill\n{calls}")
    (root / "pyproject.toml").write_text('[project]\nname = "app"\nversion = "1"\n\n[tool.flue]\npackages = ["app"]\n')
    config = load_config(root)
    assert config.packages is not None
    return collect(config, sources_under(config.packages))


def test_a_consumer_build_refuses_what_the_installed_producer_does_not_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    installed_producer(tmp_path / "site", ["acme_lib/review/SKILL.md", "acme_lib/docs/style.md"])
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    collection = consumer(tmp_path / "app", "acme_lib/review/SKILL.md", "acme_lib/internal/SKILL.md")
    [problem] = collection.diagnostics
    assert problem.format() == (
        "app/__init__.py:3:12: FLU413 error: `acme_lib/internal/SKILL.md` is not exported: "
        "the distribution providing `acme_lib` declares [tool.flue] exports\n"
        "    hint: it exports acme_lib/docs/style.md, acme_lib/review/SKILL.md; use one of those, "
        "or ask its maintainers to list the spec in their [tool.flue] exports"
    )
    typo = consumer(tmp_path / "typo", "acme_lib/reveiw/SKILL.md").diagnostics[0]
    assert typo.hint.startswith("did you mean `acme_lib/review/SKILL.md`? it exports")


def test_a_producer_that_exports_nothing_or_declares_no_exports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    installed_producer(tmp_path / "none", [])
    monkeypatch.syspath_prepend(str(tmp_path / "none"))
    [problem] = consumer(tmp_path / "a", "acme_lib/review/SKILL.md").diagnostics
    assert problem.code == "FLU413" and "it exports nothing" in problem.hint


def test_a_producer_without_exports_keeps_todays_behaviour(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    installed_producer(tmp_path / "site", None)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    collection = consumer(tmp_path / "app", "acme_lib/anything/SKILL.md")
    assert collection.ok and collection.diagnostics == []


def test_a_producer_read_from_its_source_tree_declares_exports_in_its_pyproject(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editable install of the producer: no bundle, its project's [tool.flue] is the word."""
    lib = tmp_path / "lib"
    make_skill(lib / "src" / "acme_lib" / "review")
    make_skill(lib / "src" / "acme_lib" / "internal")
    (lib / "src" / "acme_lib" / "__init__.py").write_text("")
    (lib / "pyproject.toml").write_text('[tool.flue]\nexports = ["acme_lib/review/SKILL.md"]\n')
    monkeypatch.syspath_prepend(str(lib / "src"))
    collection = consumer(tmp_path / "app", "acme_lib/review/SKILL.md", "acme_lib/internal/SKILL.md")
    assert [d.code for d in collection.diagnostics] == ["FLU413"]
    assert {p.name for p in collection.skills} == {"review"}  # the exported one is vetted where it lies


def test_a_producer_inside_a_namespace_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`acme_ns` is a namespace; the bundle of `acme_ns.skills` holds the exports."""
    bundle = tmp_path / "site" / "acme_ns" / "skills"
    (bundle / "_flue_skills").mkdir(parents=True)
    (bundle / "__init__.py").write_text("")
    manifest = Manifest("acme_ns.skills", exports=["acme_ns/skills/review/SKILL.md"])
    (bundle / "_flue_skills" / "manifest.json").write_bytes(manifest.dumps())
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    collection = consumer(tmp_path / "app", "acme_ns/skills/review/SKILL.md", "acme_ns/skills/internal/SKILL.md")
    assert [(d.code, d.line) for d in collection.diagnostics] == [("FLU413", 3)]
