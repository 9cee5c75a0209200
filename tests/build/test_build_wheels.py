"""Real builds with `python -m build`: what the wheels and sdists hold, and every refusal."""

from __future__ import annotations

import json
import os
import random
import re
import zipfile
from pathlib import Path

import pytest
from support.builds import Result, build, build_summary, payload, sdist_names, wheel_files
from support.hostile import planted
from support.projects import ProjectFactory

from flue_build.audit import audit
from flue_build.collect import check_project
from flue_build.pack import plan

pytestmark = pytest.mark.slow  # real builds, venvs or pip: seconds each

PEM = planted.shaped_pem(random.Random(1), "OPENSSH PRIVATE KEY")
REFUNDS = "src/hatch_src_demo/skills/refunds"

PYTHON = {
    "hatch-src": {
        "hatch_src_demo/__init__.py",
        "hatch_src_demo/agents/__init__.py",
        "hatch_src_demo/agents/support.py",
    },
    "hatch-flat": {"hatch_flat_demo/__init__.py", "hatch_flat_demo/tools.py"},
    "setuptools-src": {
        "setuptools_src_demo/__init__.py",
        "setuptools_src_demo/agents.py",
        "setuptools_src_demo/BUILT_BY_CUSTOM_BUILD_PY",  # the user's own build_py still ran
    },
}


def expected_bundle(source_tree: Path) -> dict[str, bytes]:
    """Wheel path → bytes of every bundle file and manifest, planned from the tree the wheel was built from."""
    out: dict[str, bytes] = {}
    for bundle in plan(check_project(source_tree).collection):
        out[bundle.manifest_path] = bundle.manifest
        for item in bundle.files:
            out[item.dest] = Path(item.source).read_bytes()
    return out


@pytest.mark.parametrize("name", ["hatch-src", "hatch-flat", "setuptools-src"])
def test_wheel_from_sdist_holds_exactly_the_vetted_files(
    name: str, built: dict[str, tuple[Path, Result]], from_sdist: dict[str, Path]
) -> None:
    _, result = built[name]
    files = wheel_files(result.wheel)
    bundle = expected_bundle(from_sdist[name])
    assert payload(files) == PYTHON[name] | set(bundle)
    for path, data in bundle.items():
        assert files[path] == data, path
    assert "FLU401" not in result.output  # the shadowed `load(...)` in hatch-src is not a reference


def test_skills_inside_and_outside_the_package_reach_the_sdist(built: dict[str, tuple[Path, Result]]) -> None:
    hatch_src = sdist_names(built["hatch-src"][1].sdist)
    assert {"skills/pdf-tools/SKILL.md", "skills/pdf-tools/scripts/extract.py", f"{REFUNDS}/policy.md"} <= hatch_src
    assert "docs/guide.md" in sdist_names(built["hatch-flat"][1].sdist)
    setuptools = sdist_names(built["setuptools-src"][1].sdist)
    assert {"skills/pdf-tools/reference.md", "src/setuptools_src_demo/prompts/system.md"} <= setuptools


def test_manifest_maps_every_module_and_spec(built: dict[str, tuple[Path, Result]]) -> None:
    files = wheel_files(built["hatch-src"][1].wheel)
    manifest = json.loads(files["hatch_src_demo/_flue_skills/manifest.json"])
    assert manifest["package"] == "hatch_src_demo"
    refs = manifest["references"]
    assert set(refs) == {"hatch_src_demo", "hatch_src_demo.agents.support"}
    refunds = refs["hatch_src_demo"]["./skills/refunds/SKILL.md"]["skill"]
    assert manifest["skills"][refunds]["fields"]["name"] == "refunds"
    assert [line.split("\t")[0] for line in manifest["skills"][refunds]["files"].splitlines()] == [
        "SKILL.md",
        "policy.md",
    ]
    assert "source" not in manifest["skills"][refunds]  # a real wheel never points at the build machine


def test_a_project_with_the_hook_and_no_references_builds_normally(built: dict[str, tuple[Path, Result]]) -> None:
    assert payload(wheel_files(built["hatch-none"][1].wheel)) == {"hatch_none_demo/__init__.py"}


@pytest.mark.parametrize("name", ["hatch-src", "setuptools-src"])
def test_two_builds_of_one_tree_are_byte_identical(name: str, project: ProjectFactory, tmp_path: Path) -> None:
    tree = project(name)
    first = build(tree, "--wheel", outdir=tmp_path / "one")
    assert first.returncode == 0, first.output
    stale = tree / "build" / "lib" / "setuptools_src_demo" / "_flue_skills" / "stale.txt"
    if stale.parent.parent.is_dir():  # setuptools reuses build/lib: an old bundle file must not survive
        stale.parent.mkdir(exist_ok=True)
        stale.write_text("left over")
    second = build(tree, "--wheel", outdir=tmp_path / "two")
    assert second.returncode == 0, second.output
    assert first.wheel.name == second.wheel.name
    assert first.wheel.read_bytes() == second.wheel.read_bytes()


def _symlink_file(root: Path, skill: Path) -> str:
    (root / "elsewhere.txt").write_text("not part of the skill")
    os.symlink(root / "elsewhere.txt", skill / "linked.txt")
    return "linked.txt"


def _symlink_folder(root: Path, skill: Path) -> str:
    (root / "elsewhere").mkdir()
    os.symlink(root / "elsewhere", skill / "more")
    return "more"


def _symlink_outside(root: Path, skill: Path) -> str:
    os.symlink("/etc/hostname", skill / "host")
    return "host"


def _secret(relative: str, content: str = "TOKEN=x\n"):  # type: ignore[no-untyped-def]
    def make(root: Path, skill: Path) -> str:
        target = skill / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
        return relative.split("/")[0]

    return make


REFUSALS = {
    "symlinked file": (_symlink_file, "FLU301"),
    "symlinked folder": (_symlink_folder, "FLU301"),
    "symlink outside the project": (_symlink_outside, "FLU301"),
    ".env": (_secret(".env"), "FLU302"),
    ".env.local": (_secret(".env.local"), "FLU302"),
    ".dev.vars": (_secret(".dev.vars"), "FLU302"),
    "id_ed25519": (_secret("id_ed25519"), "FLU302"),
    ".ssh/config": (_secret(".ssh/config"), "FLU302"),
    ".aws/credentials": (_secret(".aws/credentials"), "FLU302"),
    "credentials.json": (_secret("credentials.json"), "FLU302"),
    ".npmrc": (_secret(".npmrc"), "FLU302"),
    "server.pem": (_secret("server.pem"), "FLU302"),
    "tls.key": (_secret("tls.key"), "FLU302"),
    "secrets.yaml": (_secret("secrets.yaml"), "FLU302"),
    "PEM key in notes.txt": (_secret("notes.txt", "notes\n" + PEM), "FLU303"),
}


def assert_refused(result: Result, path: str, code: str) -> None:
    assert result.returncode != 0
    assert re.search(rf"{re.escape(path)}(?::\d+:1)?: {code} error", result.output), result.output
    last = build_summary(result.output)  # no traceback; the one line printed last names the file
    assert path in last and code in last
    assert result.artifacts(".whl") == []  # nothing half-written left behind


def test_each_refusal_fails_the_wheel_build_and_names_the_file(project: ProjectFactory, tmp_path: Path) -> None:
    """Every kind of refused entry in one skill, one build: each is named with its code (none hides another),
    the last line counts them, and no wheel is left. One refusal alone: the setuptools test below."""
    tree = project("hatch-src")
    refused = {f"{REFUNDS}/{make(tree, tree / REFUNDS)}": code for make, code in REFUSALS.values()}
    result = build(tree, "--wheel", outdir=tmp_path / "out")
    assert result.returncode != 0
    for path, code in refused.items():
        assert re.search(rf"^{re.escape(path)}(?::\d+:1)?: {code} error", result.output, re.MULTILINE), (
            path,
            result.output,
        )
    assert build_summary(result.output).endswith(f"(and {len(refused) - 1} more errors)"), result.output
    assert result.artifacts(".whl") == []


@pytest.mark.parametrize("case", [".env", "symlinked file"])
def test_setuptools_refuses_the_same(case: str, project: ProjectFactory, tmp_path: Path) -> None:
    make, code = REFUSALS[case]
    tree = project("setuptools-src")
    refused = make(tree, tree / "src" / "setuptools_src_demo" / "skills" / "refunds")
    result = build(tree, "--wheel", outdir=tmp_path / "out")
    assert_refused(result, f"src/setuptools_src_demo/skills/refunds/{refused}", code)


def test_a_refused_file_in_a_skill_outside_the_package(project: ProjectFactory, tmp_path: Path) -> None:
    tree = project("hatch-src")
    (tree / "skills" / "pdf-tools" / ".env").write_text("KEY=1\n")
    assert_refused(build(tree, outdir=tmp_path / "out"), "skills/pdf-tools/.env", "FLU302")
    assert not list((tmp_path / "out").glob("*.tar.gz"))  # the sdist build fails too


def test_allow_lets_one_named_file_through_with_a_notice(project: ProjectFactory, tmp_path: Path) -> None:
    tree = project("hatch-src")
    (tree / REFUNDS / ".env.local").write_text("TOKEN=changeme\n")
    pyproject = tree / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("[tool.flue]", f'[tool.flue]\nallow = ["{REFUNDS}/.env.local"]'))
    result = build(tree, outdir=tmp_path / "out")
    assert result.returncode == 0, result.output
    assert f"{REFUNDS}/.env.local: FLU306 warning" in result.output
    files = wheel_files(result.wheel)
    assert [n for n in files if n.endswith("/.env.local")] != []


def test_allow_covers_a_token_in_content_and_the_build_says_what_it_holds(
    project: ProjectFactory, tmp_path: Path
) -> None:
    """A test fixture holding a (revoked) token is refused (FLU315) until `[tool.flue] allow` lists it; then the
    wheel and the sdist both hold it, and the build names what the file holds."""
    tree = project("hatch-src")
    fixture = f"{REFUNDS}/tests/recorded.json"
    (tree / fixture).parent.mkdir()
    (tree / fixture).write_text(planted.TOKEN_CONTEXTS["JSON"](planted.TOKENS["GitHub token"](random.Random(2))))
    refused = build(tree, outdir=tmp_path / "refused")
    assert refused.returncode != 0
    assert f"{fixture}:3:15: FLU315 error: holds a GitHub token; refused" in refused.output
    pyproject = tree / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("[tool.flue]", f'[tool.flue]\nallow = ["{fixture}"]'))
    result = build(tree, outdir=tmp_path / "out")
    assert result.returncode == 0, result.output
    notice = f"{fixture}:3:15: FLU306 warning: packed although it holds a GitHub token: allowed by [tool.flue] allow"
    assert notice in result.output
    assert [n for n in wheel_files(result.wheel) if n.endswith("/tests/recorded.json")] != []
    assert [n for n in sdist_names(result.sdist) if n.endswith("/tests/recorded.json")] != []


NOISE = [
    "node_modules/left-pad/index.js",
    ".git/config",
    "__pycache__/helper.cpython-311.pyc",
    "helper.pyc",
    ".DS_Store",
    "policy.md.swp",
]


@pytest.mark.parametrize("name", ["hatch-src", "setuptools-src"])
def test_noise_is_left_out_with_a_warning(name: str, project: ProjectFactory, tmp_path: Path) -> None:
    tree = project(name)
    package = "hatch_src_demo" if name == "hatch-src" else "setuptools_src_demo"
    skill = tree / "src" / package / "skills" / "refunds"
    for relative in NOISE:  # made here: the repository's .gitignore would hide some of them
        target = skill / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("noise\n")
    (tree / "skills" / "pdf-tools" / "node_modules").mkdir()
    (tree / "skills" / "pdf-tools" / "node_modules" / "x.js").write_text("noise\n")
    result = build(tree, outdir=tmp_path / "out")
    assert result.returncode == 0, result.output
    for relative in ["node_modules", ".git", "__pycache__", "helper.pyc", ".DS_Store", "policy.md.swp"]:
        assert f"src/{package}/skills/refunds/{relative}: FLU304 warning" in result.output
    assert "skills/pdf-tools/node_modules: FLU304 warning" in result.output
    names = payload(wheel_files(result.wheel))
    assert names == PYTHON[name] | set(expected_bundle(tree))
    assert not [n for n in names if any(part in n for part in ("node_modules", ".git", "pyc", ".DS_Store", ".swp"))]


def test_a_large_asset_is_packed_with_a_warning(project: ProjectFactory, tmp_path: Path) -> None:
    tree = project("hatch-src")
    big = tree / REFUNDS / "assets" / "big.bin"
    big.parent.mkdir()
    big.write_bytes(os.urandom(2 * 1024 * 1024))
    result = build(tree, "--wheel", outdir=tmp_path / "out")
    assert result.returncode == 0, result.output
    assert f"{REFUNDS}/assets/big.bin: FLU305 warning: large file packed (2.0 MiB)" in result.output
    files = wheel_files(result.wheel)
    [packed] = [data for name, data in files.items() if name.endswith("/assets/big.bin")]
    assert packed == big.read_bytes()


@pytest.mark.parametrize("name", ["hatch-src", "setuptools-src"])
def test_dynamic_references_fail_the_build_at_file_line_column(
    name: str, project: ProjectFactory, tmp_path: Path
) -> None:
    tree = project(name)
    package = "hatch_src_demo" if name == "hatch-src" else "setuptools_src_demo"
    module = tree / "src" / package / "__init__.py"
    module.write_text(module.read_text() + 'which = "refunds"\nDYNAMIC = skill(f"./skills/{which}/SKILL.md")\n')
    line = len(module.read_text().splitlines())
    result = build(tree, "--wheel", outdir=tmp_path / "out")
    assert_refused(result, f"src/{package}/__init__.py:{line}:17", "FLU401")


def test_every_problem_is_printed_and_the_last_line_counts_them(project: ProjectFactory, tmp_path: Path) -> None:
    tree = project("hatch-src")
    (tree / REFUNDS / ".env").write_text("x")
    (tree / REFUNDS / "id_rsa").write_text("x")
    (tree / "skills" / "pdf-tools" / "tls.key").write_text("x")
    result = build(tree, "--wheel", outdir=tmp_path / "out")
    assert result.returncode != 0
    for path in (f"{REFUNDS}/.env", f"{REFUNDS}/id_rsa", "skills/pdf-tools/tls.key"):
        assert f"{path}: FLU302 error" in result.output
    assert build_summary(result.output).endswith("(and 2 more errors)")


def test_the_wheel_audit_deletes_a_wheel_with_an_unvetted_bundle_file(project: ProjectFactory, tmp_path: Path) -> None:
    tree = project("hatch-src")
    (tree / "stray.txt").write_text("smuggled\n")
    with open(tree / "pyproject.toml", "a") as handle:
        handle.write(
            '\n[tool.hatch.build.targets.wheel.force-include]\n"stray.txt" = "hatch_src_demo/_flue_skills/stray.txt"\n'
        )
    result = build(tree, "--wheel", outdir=tmp_path / "out")
    assert_refused(result, "hatch_src_demo/_flue_skills/stray.txt", "FLU409")


def test_audit_catches_originals_changes_and_missing_files(
    built: dict[str, tuple[Path, Result]], tmp_path: Path, from_sdist: dict[str, Path]
) -> None:
    good = built["hatch-src"][1].wheel
    bundles = plan(check_project(from_sdist["hatch-src"]).collection)
    assert audit(good, bundles, ["hatch_src_demo/skills/refunds/"]).problems == []
    bad = tmp_path / good.name
    with zipfile.ZipFile(good) as source, zipfile.ZipFile(bad, "w") as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename.endswith("/policy.md"):
                data += b"tampered"
            if not info.filename.endswith("/reference.md"):
                target.writestr(info, data)
        target.writestr("hatch_src_demo/skills/refunds/node_modules/x.js", "noise")
    problems = {
        d.path.split("/", 1)[1]: d.message for d in audit(bad, bundles, ["hatch_src_demo/skills/refunds/"]).problems
    }
    assert len(problems) == 3
    assert any(p.endswith("/policy.md") and "bytes differ" in m for p, m in problems.items())
    assert any(p.endswith("/reference.md") and "missing" in m for p, m in problems.items())
    assert problems["hatch_src_demo/skills/refunds/node_modules/x.js"].startswith(
        "left in a referenced skill's original folder"
    )


def test_setuptools_projects_without_a_flue_table_are_left_alone_with_a_warning(
    project: ProjectFactory, tmp_path: Path
) -> None:
    """The wheel is what setuptools makes, untouched; but the code calls `skill()`, so the plugin, present in the build
    environment, warns that the wheel ships no skills and names the table to add (issue 44 item 5: it was silent)."""
    tree = project("setuptools-src")
    pyproject = tree / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("[tool.flue]\n", ""))
    (tree / "src" / "setuptools_src_demo" / "skills" / "refunds" / ".env").write_text("not our business here")
    result = build(tree, "--wheel", outdir=tmp_path / "out")
    assert result.returncode == 0, result.output
    names = payload(wheel_files(result.wheel))
    assert not [n for n in names if "_flue_skills" in n]
    assert "setuptools_src_demo/skills/refunds/SKILL.md" in names  # plain package data, as setuptools ships it
    [warning] = [line for line in result.output.splitlines() if "FLU" in line]
    assert warning.startswith("pyproject.toml: FLU501 warning: the code makes 3 skill()/markdown() references, but")
    assert "no [tool.flue] table" in warning and "its wheel would ship no skills" in warning
    hint = result.output.split(warning, 1)[1].splitlines()[1:3]
    assert [line.strip() for line in hint] == [
        "hint: add the table to pyproject.toml (it may stay empty):",
        "[tool.flue]",
    ]
