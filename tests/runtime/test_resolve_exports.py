"""Package specs into a distribution that declares `[tool.flue] exports`, resolved in-process.

"source": the producer's source tree on sys.path (dev mode: its pyproject.toml says what it
exports); "folder": the producer installed with the bundles its build plans (the real
`collect` and `plan`, files copied as a wheel would hold them); "zip": that install zipped
onto sys.path. Real wheels, both backends and venvs: tests/build/test_exports_distributions.py.
"""

from __future__ import annotations

import importlib
import shutil
from pathlib import Path

import pytest
from rtsupport import zip_folder
from support.imports import ImportSandbox
from support.projects import write_module, write_skill

from flue_build.collect import collect
from flue_build.pack import copy_checked, local_targets, plan
from flue_build.scan.sources import sources_under
from flue_runtime import SkillNotFoundError
from flue_runtime.format.config import load_config
from flue_runtime.mount.resolve import Caller, resolve_markdown, resolve_skill

SHAPES = ["source", "folder", "zip"]


def make_producer(root: Path, lib: str, exports: str) -> Path:
    """`lib`: review (exported), internal (its own code references it), drafts (nobody references it)."""
    base = root / lib
    write_module(base / "__init__.py", "from flue_runtime import skill\nINTERNAL = skill('./internal/SKILL.md')\n")
    write_skill(base / "review", files={"checklist.md": "- tests\n"})
    write_skill(base / "internal")
    write_skill(base / "drafts")
    (base / "docs").mkdir()
    (base / "docs" / "style.md").write_text("# Style\n")
    (root / "pyproject.toml").write_text(f'[project]\nname = "x"\n\n[tool.flue]\npackages = ["{lib}"]\n{exports}\n')
    return root


def install(root: Path, site: Path) -> None:
    """What a wheel built with the hook holds, installed at `site`: modules, unreferenced skill folders as
    plain files, the bundles; the originals of bundled targets left out."""
    config = load_config(root)
    assert config.packages is not None
    collection = collect(config, sources_under(config.packages))
    assert collection.ok, collection.diagnostics
    originals = set(local_targets(collection))
    for package in config.packages:
        shutil.copytree(
            package,
            site / package.name,
            ignore=lambda folder, names: [n for n in names if Path(folder, n) in originals or n == "__pycache__"],
        )
    for bundle in plan(collection):
        for item in bundle.files:
            copy_checked(item, site.joinpath(*item.dest.split("/")))
        site.joinpath(*bundle.manifest_path.split("/")).write_bytes(bundle.manifest)


def producer_in(how: str, tmp_path: Path, lib: str, imports: ImportSandbox, exports: str) -> Path:
    root = make_producer(tmp_path / "producer", lib, exports)
    if how == "source":
        imports.add(root)
        return root
    site = tmp_path / "site"
    install(root, site)
    imports.add(zip_folder(site, tmp_path / "lib-1.0-py3-none-any.whl") if how == "zip" else site)
    return root


APP = Caller("app.agent", "/elsewhere/app/agent.py")


@pytest.mark.parametrize("how", SHAPES)
def test_exported_specs_resolve_from_other_packages(
    how: str, tmp_path: Path, pkg_name: str, imports: ImportSandbox
) -> None:
    producer_in(
        how, tmp_path, pkg_name, imports, f'exports = ["{pkg_name}/review/SKILL.md", "{pkg_name}/docs/style.md"]'
    )
    review = resolve_skill(f"{pkg_name}/review/SKILL.md", APP)
    assert review.name == "review" and review.read_text("checklist.md") == "- tests\n"
    assert ("bundled" in review.origin) == (how != "source")
    assert resolve_markdown(f"{pkg_name}/docs/style.md", APP) == "# Style\n"


@pytest.mark.parametrize("how", SHAPES)
def test_anything_else_is_refused_with_the_exports_listed(
    how: str, tmp_path: Path, pkg_name: str, imports: ImportSandbox
) -> None:
    producer_in(how, tmp_path, pkg_name, imports, f'exports = ["{pkg_name}/review/SKILL.md"]')
    # internal: bundled for the producer's own code; drafts: shipped as plain files; absent: nothing at all
    for name in ("internal", "drafts", "absent"):
        spec = f"{pkg_name}/{name}/SKILL.md"
        with pytest.raises(SkillNotFoundError) as caught:
            resolve_skill(spec, APP)
        assert isinstance(caught.value, SkillNotFoundError)
        assert caught.value.spec == spec and caught.value.exports == (f"{pkg_name}/review/SKILL.md",)
        assert str(caught.value) == (
            f"skill({spec!r}) in module 'app.agent' (/elsewhere/app/agent.py): `{spec}` is not exported: "
            f"the distribution providing `{pkg_name}` declares [tool.flue] exports; it exports "
            f"{pkg_name}/review/SKILL.md; use one of those, or ask its maintainers to list the spec in their "
            "[tool.flue] exports"
        )
    with pytest.raises(SkillNotFoundError, match="it exports"):
        resolve_markdown(f"{pkg_name}/docs/style.md", APP)


@pytest.mark.parametrize("how", SHAPES)
def test_the_producers_own_code_is_not_held_to_its_exports(
    how: str, tmp_path: Path, pkg_name: str, imports: ImportSandbox
) -> None:
    root = producer_in(how, tmp_path, pkg_name, imports, "exports = []")
    assert importlib.import_module(pkg_name).INTERNAL.name == "internal"
    own = Caller(f"{pkg_name}.tools", None)  # a module of the same package, with a call its build never saw
    assert resolve_skill(f"{pkg_name}/internal/SKILL.md", own).name == "internal"
    script = Caller("__main__", str(root / "scripts" / "try.py"))  # a file of the producer's project
    with pytest.raises(SkillNotFoundError, match="it exports nothing"):
        resolve_skill(f"{pkg_name}/review/SKILL.md", APP)
    if how == "source":  # dev mode knows the project: its files are not other packages
        assert resolve_skill(f"{pkg_name}/review/SKILL.md", script).name == "review"


@pytest.mark.parametrize("how", SHAPES)
def test_without_exports_every_skill_of_the_package_resolves(
    how: str, tmp_path: Path, pkg_name: str, imports: ImportSandbox
) -> None:
    producer_in(how, tmp_path, pkg_name, imports, "")
    assert resolve_skill(f"{pkg_name}/internal/SKILL.md", APP).name == "internal"
    if how != "zip":  # plain files inside a zip are not on disk: only bundled skills resolve from one
        assert resolve_skill(f"{pkg_name}/drafts/SKILL.md", APP).name == "drafts"


def test_a_module_of_the_consumer_imports_what_is_exported(
    tmp_path: Path, pkg_name: str, imports: ImportSandbox
) -> None:
    producer_in("zip", tmp_path, pkg_name, imports, f'exports = ["{pkg_name}/review/SKILL.md"]')
    app = tmp_path / "app"
    write_module(
        app / f"{pkg_name}_app" / "__init__.py",
        f"from flue_runtime import skill\nR = skill('{pkg_name}/review/SKILL.md')\n",
    )
    write_module(
        app / f"{pkg_name}_bad" / "__init__.py",
        f"from flue_runtime import skill\nR = skill('{pkg_name}/internal/SKILL.md')\n",
    )
    imports.add(app)
    assert importlib.import_module(f"{pkg_name}_app").R.name == "review"
    with pytest.raises(SkillNotFoundError, match=f"in module '{pkg_name}_bad'"):
        importlib.import_module(f"{pkg_name}_bad")


@pytest.mark.parametrize("how", ["source", "folder"])
def test_a_namespace_shared_by_two_distributions(
    how: str, tmp_path: Path, pkg_name: str, imports: ImportSandbox
) -> None:
    """`<ns>.skills` exports; `<ns>.app`, another distribution in the same namespace, is another package."""
    root = tmp_path / "producer"
    skills = root / pkg_name / "skills"
    write_module(skills / "__init__.py", "")
    write_skill(skills / "review")
    write_skill(skills / "internal")
    (root / "pyproject.toml").write_text(
        f'[tool.flue]\npackages = ["{pkg_name}"]\nexports = ["{pkg_name}/skills/review/SKILL.md"]\n'
    )
    if how == "source":
        imports.add(root)
    else:
        install(root, tmp_path / "site")
        imports.add(tmp_path / "site")
    app = Caller(f"{pkg_name}.app.agent", "/elsewhere/agent.py")
    assert resolve_skill(f"{pkg_name}/skills/review/SKILL.md", app).name == "review"
    with pytest.raises(SkillNotFoundError):
        resolve_skill(f"{pkg_name}/skills/internal/SKILL.md", app)
    own = Caller(f"{pkg_name}.skills.tools", None)
    assert resolve_skill(f"{pkg_name}/skills/internal/SKILL.md", own).name == "internal"
