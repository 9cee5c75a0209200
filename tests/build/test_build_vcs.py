"""setuptools honours `.gitignore` only through a VCS file finder (a `setuptools.file_finders`
plugin, as setuptools-scm is): with one installed, what it does not list stays out of the
bundles and the sdist, as setuptools leaves it out without flue-skills."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support.builds import build, sdist_names, wheel_files
from support.envs import install, make_venv
from support.hostile import artifacts

#: A file finder that lists what git tracks, the way setuptools-scm's does.
FINDER = """\
import subprocess


def find_files(dirname=""):
    listed = subprocess.run(["git", "ls-files", "-z", dirname or "."], capture_output=True, text=True)
    return [path for path in listed.stdout.split("\\0") if path] if listed.returncode == 0 else []
"""
FINDER_PROJECT = """\
[build-system]
requires = ["setuptools>=77"]
build-backend = "setuptools.build_meta"

[project]
name = "git-file-finder-demo"
version = "0.1.0"

[project.entry-points."setuptools.file_finders"]
git = "git_file_finder_demo:find_files"

[tool.setuptools]
py-modules = ["git_file_finder_demo"]
"""


def git(tree: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tree, check=True, capture_output=True
    )


@pytest.mark.slow
def test_a_file_the_vcs_finder_does_not_list_stays_out_of_wheel_and_sdist(tmp_path: Path) -> None:
    python = make_venv(tmp_path / "venv")
    plugin = tmp_path / "finder"
    plugin.mkdir()
    (plugin / "pyproject.toml").write_text(FINDER_PROJECT)
    (plugin / "git_file_finder_demo.py").write_text(FINDER)
    install("--no-build-isolation", str(plugin), into=python, cwd=tmp_path)

    tree = artifacts.make(tmp_path / "tree", "shipped", "setuptools")
    manifest = tree / "MANIFEST.in"  # a `graft src` would add the untracked file back, as setuptools does
    manifest.write_text(manifest.read_text().replace("graft src\n", ""))
    git(tree, "init", "-q")
    git(tree, "add", "-A")  # `.gitignore` names `drafts/`: git leaves drafts/plan.md untracked
    git(tree, "commit", "-q", "-m", "tree")
    decorated = f"src/{artifacts.PACKAGE}/skills/decorated"
    built = build(tree, outdir=tmp_path / "dist", python=python, base_env={"PATH": "/usr/bin:/bin"})
    output = built.output
    assert built.returncode == 0, output[-3000:]
    assert (
        f"{decorated}/drafts/plan.md: FLU411 warning: left out of the wheel and the sdist: "
        "not listed by the project's VCS file finder (ignored or untracked)"
    ) in output
    names = sdist_names(built.sdist)
    assert f"{decorated}/policy.md" in names and f"{decorated}/drafts/plan.md" not in names
    bundled = [n for n in wheel_files(built.wheel) if "/_flue_skills/skills/" in n]
    assert any(n.endswith("/policy.md") for n in bundled)
    assert not any(n.endswith("/drafts/plan.md") for n in bundled)


def test_without_a_vcs_finder_setuptools_ships_what_gitignore_names(tmp_path: Path) -> None:
    """The same tree, no finder installed: setuptools does not read `.gitignore`, and neither does the plugin."""
    tree = artifacts.make(tmp_path / "tree", "shipped", "setuptools")
    git(tree, "init", "-q")
    script = textwrap.dedent(
        """\
        import sys
        from pathlib import Path
        from flue_build.project import view_project
        view = view_project(Path(sys.argv[1]))
        print(sorted(f.path for f in view.collection.skills[Path(sys.argv[1]) / sys.argv[2]].files))
        """
    )
    folder = f"src/{artifacts.PACKAGE}/skills/decorated"
    listed = subprocess.run([sys.executable, "-c", script, str(tree), folder], capture_output=True, text=True)
    assert listed.returncode == 0, listed.stderr
    assert "'drafts/plan.md'" in listed.stdout
