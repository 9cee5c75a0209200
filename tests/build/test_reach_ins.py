"""`flue_build.backends.reach_ins` on the oldest and the newest setuptools and hatchling we support.

Oldest: the lowest release the supported range allows (`setuptools>=77`, `hatchling>=1.24` in the test
extra, as the docs and hatch-flue-skills require them), as the package index lists it (asked with uv's
cache off, so the same release on any machine), installed by its exact version by uv into a venv of its
own that sees this environment's other packages; newest: this environment's, which CI installs fresh. One build per
backend version (an sdist, then a wheel from it), on a fixture project shaped so that every reach-in of
its backend decides something the test checks.
"""

from __future__ import annotations

import functools
import sys
import sysconfig
import tarfile
import tempfile
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version
from support.builds import build, payload, sdist_names, wheel_files
from support.envs import clean_env
from support.paths import ROOT
from support.procs import run
from support.projects import copy_project, write_module
from uv import find_uv_bin

from flue_build.collect import check_project
from flue_build.pack import plan

pytestmark = pytest.mark.slow  # venvs and real builds

MANIFEST_IN = """\
graft build_support
# everything of the package's skills, but the drafts
graft src/setuptools_src_demo/skills
exclude src/setuptools_src_demo/skills/refunds/draft.md
"""

#: A metadata hook that says when it is imported: `flue-skills check` must not run it.
METADATA_HOOK = """\
from pathlib import Path

from hatchling.metadata.plugin.interface import MetadataHookInterface

Path(__file__).with_name("HOOK_RAN").write_text("yes\\n")


class Hook(MetadataHookInterface):
    def update(self, metadata):
        pass
"""


def supported_range(backend: str) -> Requirement:
    """The backend's requirement in the test extra: the range of versions we support."""
    with open(ROOT / "pyproject.toml", "rb") as handle:
        extras = tomllib.load(handle)["project"]["optional-dependencies"]["test-runtime"]
    [requirement] = [Requirement(r) for r in extras if Requirement(r).name == backend]
    return requirement


@functools.cache
def oldest_release(backend: str) -> str:
    """The lowest release of `backend` the supported range allows, as the package index lists it now.

    Asked with uv's cache off: a cache holds only the releases this machine happened to download (on a fresh
    machine, the newest alone), so a resolution that may answer from it gives a different "oldest" per machine.
    """
    env = {k: v for k, v in clean_env().items() if not k.startswith("UV_")}
    with tempfile.TemporaryDirectory() as folder:
        requirements = Path(folder, "requirements.in")
        requirements.write_text(f"{supported_range(backend)}\n")
        command = [find_uv_bin(), "pip", "compile", str(requirements), "--resolution", "lowest-direct", "--no-deps"]
        command += ["--no-cache", "--no-header", "--no-annotate", "-q", "--python", sys.executable]
        compiled = run(command, cwd=Path(folder), env=env)
    [pin] = [Requirement(line) for line in compiled.stdout.splitlines() if line.strip()]
    [specifier] = pin.specifier
    assert pin.name == backend and specifier.operator == "==", compiled.stdout
    return specifier.version


def oldest_python(backend: str, folder: Path) -> Path:
    """A venv made by uv with the oldest release of `backend` the supported range allows (`oldest_release`,
    installed by its exact version, so the same on any machine), seeing this environment's other packages
    (flue-skills, build, PyYAML) after its own."""
    uv = find_uv_bin()
    env = {k: v for k, v in clean_env().items() if not k.startswith("UV_")}
    run([uv, "venv", "-q", "--python", sys.executable, str(folder)], cwd=folder.parent, env=env)
    python = folder / "bin" / "python"
    purelib = run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=folder)
    dev = sysconfig.get_paths()["purelib"]
    Path(purelib.stdout.strip(), "_flue_dev_env.pth").write_text(f"import site; site.addsitedir({dev!r})\n")
    pinned = f"{backend}=={oldest_release(backend)}"
    run([uv, "pip", "install", "-q", "--python", str(python), pinned], cwd=folder, env=env)
    return python


def installed(python: Path | str, backend: str) -> Version:
    code = f"import importlib.metadata as m; print(m.version({backend!r}))"
    return Version(run([str(python), "-c", code], cwd=ROOT).stdout.strip())


def generator(wheel: Path) -> str:
    with zipfile.ZipFile(wheel) as archive:
        [name] = [n for n in archive.namelist() if n.endswith(".dist-info/WHEEL")]
        [line] = [line for line in archive.read(name).decode().splitlines() if line.startswith("Generator:")]
    return line


def python_for(which: str, backend: str, folder: Path) -> Path | str:
    if which == "newest":
        return sys.executable
    python = oldest_python(backend, folder)
    assert installed(python, backend) == Version(oldest_release(backend))
    assert installed(python, backend) < installed(sys.executable, backend)  # an older release than the newest
    assert installed(python, backend) in supported_range(backend).specifier
    return python


@pytest.mark.parametrize("which", ["oldest", "newest"])
def test_setuptools(which: str, tmp_path: Path) -> None:
    """The command classes wrapped at lookup (the project's own build_py still runs, under ours), SOURCES.txt
    rewritten without what the vetting left out, and MANIFEST.in's lines named by their numbers, by the
    build and by `flue-skills check` (which reads the project through setuptools without running it)."""
    python = python_for(which, "setuptools", tmp_path / "venv")
    tree = copy_project("setuptools-src", tmp_path / "project")
    (tree / "MANIFEST.in").write_text(MANIFEST_IN)
    refunds = tree / "src/setuptools_src_demo/skills/refunds"
    (refunds / "draft.md").write_text("# Draft\n")
    (refunds / ".DS_Store").write_bytes(b"noise")
    result = build(tree, python=python, base_env=clean_env(), outdir=tmp_path / "dist")
    assert result.returncode == 0, result.output
    assert f"setuptools ({installed(python, 'setuptools')})" in generator(result.wheel)
    rule = "excluded by MANIFEST.in line 4 (`exclude src/setuptools_src_demo/skills/refunds/draft.md`)"
    assert (
        f"src/setuptools_src_demo/skills/refunds/draft.md: FLU411 warning: left out of the wheel and the sdist: {rule}"
        in result.output
    )
    files = wheel_files(result.wheel)
    assert "setuptools_src_demo/BUILT_BY_CUSTOM_BUILD_PY" in files  # the project's build_py ran
    bundle = {bundle.manifest_path for bundle in plan(check_project(tree).collection)}
    assert bundle <= set(files)
    assert not [name for name in payload(files) if "draft" in name or ".DS_Store" in name]
    with tarfile.open(result.sdist) as archive:
        names = archive.getnames()
        [sources] = [n for n in names if n.endswith(".egg-info/SOURCES.txt")]
        listed = (archive.extractfile(sources) or pytest.fail("no SOURCES.txt")).read().decode().split("\n")
    assert "src/setuptools_src_demo/skills/refunds/policy.md" in listed
    assert not [name for name in [*names, *listed] if "draft" in name or ".DS_Store" in name]
    checked = run([str(python), "-m", "flue_build", "check", str(tree)], cwd=tmp_path, env=clean_env(), check=False)
    assert checked.returncode == 0 and rule in checked.stdout + checked.stderr, checked.stdout + checked.stderr


@pytest.mark.parametrize("which", ["oldest", "newest"])
def test_hatchling(which: str, tmp_path: Path) -> None:
    """Paths reserved out of the walk (the bundled skill's original copies and the file its vetting skipped
    stay out of the wheel, that file out of the sdist), the exclusion rule that left a vetted file out named
    by its line, and `flue-skills check` reading the metadata without the project's metadata hooks."""
    python = python_for(which, "hatchling", tmp_path / "venv")
    tree = copy_project("hatch-src", tmp_path / "project")
    (tree / "src/hatch_src_demo/skills/refunds/policy.md.swp").write_bytes(b"noise")  # vetting skips it
    (tree / "src/hatch_src_demo/skills/refunds/notes.draft.md").write_text("# Draft\n")
    (tree / ".gitignore").write_text("# drafts\n*.draft.md\n")
    rule = "excluded by .gitignore line 2 (`*.draft.md`)"
    result = build(tree, python=python, base_env=clean_env(), outdir=tmp_path / "dist")
    assert result.returncode == 0, result.output
    assert f"notes.draft.md: FLU411 warning: left out of the sdist: {rule}" in result.output
    assert f"hatchling {installed(python, 'hatchling')}" in generator(result.wheel)
    files = payload(wheel_files(result.wheel))
    originals = [n for n in files if n.startswith("hatch_src_demo/skills/")]
    assert originals == [], originals
    assert not [name for name in sdist_names(result.sdist) if name.endswith(".swp")]
    assert {bundle.manifest_path for bundle in plan(check_project(tree).collection)} <= files
    write_module(tree / "hatch_build.py", METADATA_HOOK)
    with open(tree / "pyproject.toml", "a", encoding="utf-8") as handle:
        handle.write('\n[tool.hatch.metadata.hooks.custom]\npath = "hatch_build.py"\n')
    checked = run([str(python), "-m", "flue_build", "check", str(tree)], cwd=tmp_path, env=clean_env(), check=False)
    assert checked.returncode == 0 and rule in checked.stdout + checked.stderr, checked.stdout + checked.stderr
    assert not (tree / "HOOK_RAN").exists()
