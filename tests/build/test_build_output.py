"""What a build prints, through the front ends users run (`python -m build`, `pip install .`,
`pip install -e .`), on both backends: on success one line per artifact saying how many skills,
files, bytes and markdown files went where; on failure the diagnostics, then one summary line
that is the last thing we print, and no Python traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import site
from support.builds import Result, build, build_env, build_summary
from support.envs import make_venv, pip_install
from support.projects import ProjectFactory

from flue_runtime.format.vetting import format_size

#: Per fixture: its package, its two skill folders and its markdown target (all files of each ship).
PROJECTS = {
    "hatch-src": (
        "hatch_src_demo",
        ["src/hatch_src_demo/skills/refunds", "skills/pdf-tools"],
        "src/hatch_src_demo/prompts/system.md",
    ),
    "setuptools-src": (
        "setuptools_src_demo",
        ["src/setuptools_src_demo/skills/refunds", "skills/pdf-tools"],
        "src/setuptools_src_demo/prompts/system.md",
    ),
}
SECRET = {
    "hatch-src": "src/hatch_src_demo/skills/refunds/.env",
    "setuptools-src": "src/setuptools_src_demo/skills/refunds/.env",
}


def shipped(tree: Path, name: str) -> str:
    """`2 skills (5 files, 1.1 KiB) and 1 markdown file (43 B)`, counted from the fixture's files."""
    _, folders, markdown = PROJECTS[name]
    files = [f for folder in folders for f in (tree / folder).rglob("*") if f.is_file()]
    size = sum(f.stat().st_size for f in files)
    return (
        f"{len(folders)} skills ({len(files)} files, {format_size(size)}) "
        f"and 1 markdown file ({format_size((tree / markdown).stat().st_size)})"
    )


def pip(python: Path, tree: Path, *args: str) -> Result:
    """`pip install` of `tree` into the venv of `python` (no build isolation: the dev environment's backends),
    its stdout and stderr in one stream, in the order a terminal shows them."""
    proc = pip_install(python, "--no-build-isolation", *args, cwd=tree, env=build_env(), merged=True)
    return Result(proc.returncode, proc.stdout, tree / "dist")


def ours(output: str) -> list[str]:
    """Our lines in a build log (pip indents its subprocess's output)."""
    return [line.strip() for line in output.splitlines() if line.strip().startswith("flue-skills: ")]


@pytest.mark.slow
@pytest.mark.parametrize("name", PROJECTS)
def test_python_m_build_says_what_each_artifact_holds(name: str, built: dict[str, tuple[Path, Result]]) -> None:
    tree, result = built[name]
    package = PROJECTS[name][0]
    assert ours(result.output) == [
        f"flue-skills: {result.sdist.name}: {shipped(tree, name)} at their own paths",
        f"flue-skills: {result.wheel.name}: {shipped(tree, name)} bundled in {package}/_flue_skills/",
    ]


@pytest.mark.slow
@pytest.mark.parametrize("name", PROJECTS)
def test_pip_install_says_it_verbosely(name: str, project: ProjectFactory, tmp_path: Path) -> None:
    """pip hides a build's output unless it fails or runs with -v; -v shows our lines."""
    tree = project(name)
    python = make_venv(tmp_path / "venv")
    installed = pip(python, tree, "-v", ".")
    assert installed.returncode == 0, installed.output[-3000:]
    wheel = f"{PROJECTS[name][0]}-0.1.0-py3-none-any.whl"
    assert f"flue-skills: {wheel}: {shipped(tree, name)} bundled in {PROJECTS[name][0]}/_flue_skills/" in ours(
        installed.output
    )
    editable = pip(python, tree, "-v", "-e", ".")
    assert editable.returncode == 0, editable.output[-3000:]
    files = shipped(tree, name).replace(" (43 B)", "")
    assert f"flue-skills: editable wheel: {files} vetted; read from the source tree at run time" in ours(
        editable.output
    )


FRONT_ENDS = {"python -m build": (), "pip install .": (".",), "pip install -e .": ("-e", ".")}


@pytest.mark.slow
@pytest.mark.parametrize("front_end", FRONT_ENDS)
@pytest.mark.parametrize("name", PROJECTS)
def test_a_failed_build_ends_with_the_diagnostics_and_one_line(
    name: str, front_end: str, project: ProjectFactory, tmp_path: Path
) -> None:
    tree = project(name)
    (tree / SECRET[name]).write_text("TOKEN=x\n")
    if front_end == "python -m build":
        result = build(tree, outdir=tmp_path / "out", merged=True)
    else:
        result = pip(make_venv(tmp_path / "venv"), tree, *FRONT_ENDS[front_end])
    assert result.returncode != 0
    assert f"{SECRET[name]}: FLU302 error: `.env` looks like a secret; refused" in result.output
    last = build_summary(result.output)  # and no traceback anywhere
    assert last.endswith(f": {SECRET[name]}: FLU302 `.env` looks like a secret; refused"), last
    lines = [line.strip() for line in result.output.splitlines()]
    after = lines[max(i for i, line in enumerate(lines) if line == last) + 1 :]
    if front_end == "python -m build":
        # build's own lines follow: a tip, and which hook the backend's process left
        shown = [line for line in after if line]
        assert len(shown) == 2 and shown[0].startswith("TIP "), after
        assert shown[1].startswith("ERROR Backend subprocess exited when trying to invoke"), after
    else:
        assert after[0] == "[end of output]", after  # pip's frame around the build's output, then its own notes


@pytest.mark.slow
@pytest.mark.parametrize("name", PROJECTS)
def test_bad_configuration_fails_a_build_the_same_way(name: str, project: ProjectFactory, tmp_path: Path) -> None:
    tree = project(name)
    text = (
        (tree / "pyproject.toml")
        .read_text()
        .replace("[tool.flue]\n", '[tool.flue]\nstrict = "yes"\nmax-bundle-size = "lots"\n', 1)
    )
    (tree / "pyproject.toml").write_text(text)
    result = build(tree, "--wheel", outdir=tmp_path / "out")
    assert result.returncode != 0
    assert "pyproject.toml: tool.flue.strict: must be true or false, not a string" in result.output
    assert "pyproject.toml: tool.flue.max-bundle-size: must be a size" in result.output
    assert build_summary(result.output).endswith("pyproject.toml: invalid [tool.flue] configuration (2 problems)")


def readme_blocks() -> list[list[str]]:
    """The code blocks of the bundles page's "What a build prints", as lines."""
    section = site.section("concepts/bundles.md", "### What a build prints")
    return [block.split("\n", 1)[1].rstrip("\n").splitlines() for block in section.split("```")[1::2]]


def in_order(wanted: list[str], output: str) -> bool:
    lines = iter(line.rstrip() for line in output.splitlines())
    return all(any(line == want.rstrip() for line in lines) for want in wanted)


@pytest.mark.slow
def test_the_readme_shows_what_the_builds_print(
    built: dict[str, tuple[Path, Result]], project: ProjectFactory, tmp_path: Path
) -> None:
    success, build_failure, pip_failure = readme_blocks()
    assert ours(built["hatch-src"][1].output) == success
    tree = project("hatch-src")
    (tree / SECRET["hatch-src"]).write_text("TOKEN=x\n")
    failed = build(tree, "--wheel", outdir=tmp_path / "out", merged=True)
    assert in_order(build_failure, failed.output), failed.output
    failed = pip(make_venv(tmp_path / "venv"), tree, ".")
    assert in_order(pip_failure, failed.output), failed.output


@pytest.mark.slow
def test_unreferenced_skills_in_a_wheel_are_counted_apart(project: ProjectFactory, tmp_path: Path) -> None:
    tree = project("hatch-src")
    extra = tree / "src" / "hatch_src_demo" / "skills" / "extra"
    extra.mkdir()
    text = "---\nname: extra\ndescription: Not referenced by any module. Use never.\n---\nBody.\n"
    (extra / "SKILL.md").write_text(text)
    result = build(tree, "--wheel", outdir=tmp_path / "out", merged=True)
    assert result.returncode == 0, result.output
    size = format_size(len(text.encode()))
    assert ours(result.output) == [
        f"flue-skills: hatch_src_demo-0.1.0-py3-none-any.whl: {shipped(tree, 'hatch-src')} bundled in "
        f"hatch_src_demo/_flue_skills/; 1 unreferenced skill (1 file, {size}) as plain files"
    ]
