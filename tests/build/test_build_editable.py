"""`pip install -e .`: hatchling, setuptools lenient and strict; good projects install, bad ones fail loudly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.envs import make_venv, origin, pip_install
from support.projects import ProjectFactory

pytestmark = pytest.mark.slow  # real builds, venvs or pip: seconds each

SECRET = {
    "hatch-src": "src/hatch_src_demo/skills/refunds/.env",
    "hatch-flat": "hatch_flat_demo/skills/code-review/.env",
    "setuptools-src": "src/setuptools_src_demo/skills/refunds/.env",
}
MODULE = {"hatch-src": "hatch_src_demo", "hatch-flat": "hatch_flat_demo", "setuptools-src": "setuptools_src_demo"}
MODES = {
    "hatch-src": [],
    "hatch-flat": [],
    "setuptools-src lenient": [],
    "setuptools-src strict": ["-C", "editable_mode=strict"],
}


def site_packages(python: Path) -> Path:
    [found] = list(python.parent.parent.glob("lib/python*/site-packages"))
    return found


@pytest.mark.parametrize("case", MODES, ids=list(MODES))
def test_good_project_installs_and_bad_one_fails(case: str, project: ProjectFactory, tmp_path: Path) -> None:
    name = case.split()[0]
    python = make_venv(tmp_path / "venv")
    tree = project(name)
    (tree / SECRET[name]).write_text("TOKEN=x\n")
    failed = pip_install(python, "--no-build-isolation", "-e", str(tree), *MODES[case], cwd=tree)
    assert failed.returncode != 0
    output = failed.stdout + failed.stderr
    assert f"{SECRET[name]}: FLU302 error" in output, output
    assert not list(site_packages(python).glob(f"{MODULE[name]}*"))

    (tree / SECRET[name]).unlink()
    installed = pip_install(python, "--no-build-isolation", "-e", str(tree), *MODES[case], cwd=tree)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    found = origin(python, MODULE[name])
    # Nothing bundled under the package's name in the editable wheel: no shadowing of the source.
    assert not list(site_packages(python).rglob("_flue_skills"))
    if case.endswith("strict"):
        # A link tree: __file__ is not in the source folder, so the manifest there points at the sources.
        assert tree / "build" in found.parents
        manifest = json.loads((found.parent / "_flue_skills" / "manifest.json").read_text())
        sources = {e["source"] for e in [*manifest["skills"].values(), *manifest["markdown"].values()]}
        assert sources == {
            str(tree / "src" / "setuptools_src_demo" / "skills" / "refunds"),
            str(tree / "src" / "setuptools_src_demo" / "prompts" / "system.md"),
            str(tree / "skills" / "pdf-tools"),
        }
        assert not [
            p
            for p in found.parent.rglob("*")
            if "_flue_skills" in p.parts and p.name != "manifest.json" and p.is_file()
        ]
    else:
        # __file__ is the source file: the run time reads skills next to it, from disk.
        assert (
            found.resolve() == (tree / ("src" if name != "hatch-flat" else "") / MODULE[name] / "__init__.py").resolve()
        )
