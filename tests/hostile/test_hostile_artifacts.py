"""What ships is exactly what was vetted: the wheel and the sdist, both backends (issue 12, items 1-4 and 6).

Every case of `fixtures/hostile/artifacts.py` is a real project built with `python -m build`
(an sdist, then a wheel built from it, and a wheel built from the tree), unprivileged and
bounded; each test reads the artifacts themselves. Expectations come from the fixture's
tables (what each skill folder holds, what each rule excludes), never from the build's
own planning.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from hostile_support import LeakBuilds, artifacts, run
from support.builds import build_summary

from flue_runtime.format.manifest import Manifest
from flue_runtime.format.skill_folder import vet_skill

CLI = [sys.executable, "-m", "flue_build"]
BACKENDS = artifacts.BACKENDS
PACKAGE = artifacts.PACKAGE
SKILLS = artifacts.SKILLS
REFERENCED = [s for s in SKILLS if s.module]
DECORATED = next(s for s in SKILLS if s.name == "decorated")
#: How each backend's FLU411 names the artifact a file was left out of.
LEFT_OUT_OF = {
    ("hatchling", "wheel"): "wheel",
    ("hatchling", "sdist"): "sdist",
    ("setuptools", "wheel"): "wheel and the sdist",
    ("setuptools", "sdist"): "wheel and the sdist",
}


def wheel_members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {i.filename: archive.read(i) for i in archive.infolist() if not i.is_dir()}


def sdist_members(path: Path) -> dict[str, bytes]:
    """Every file of an sdist, named without its top folder (links and other entries too, as None-free bytes)."""
    out = {}
    with tarfile.open(path) as archive:
        for member in archive:
            if member.isdir():
                continue
            handle = archive.extractfile(member)
            out[member.name.split("/", 1)[1]] = handle.read() if handle else b"<not a regular file>"
    return out


def kept(skill: artifacts.Skill, backend: str, left_out_of: set[str]) -> set[str]:
    """The skill's own files minus those the backend's rules leave out of any of `left_out_of`."""
    rules = artifacts.EXCLUDED[backend] if skill is DECORATED else {}
    return {f for f in skill.content if not left_out_of & set(rules.get(f, {}))}


# --- shipped: the build succeeds, and each artifact holds exactly what was vetted ---------


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("wheel", ["direct", "from-sdist"])
def test_the_wheel_holds_exactly_the_vetted_files(backend: str, wheel: str, shipped: dict[str, LeakBuilds]) -> None:
    """Every reference form bundled; noise nowhere; an unreferenced skill as its vetted files; the
    project's exclusions applied (a wheel built from the sdist has lost what the sdist's left out);
    vetted files that reach the wheel another way (force-include, shared data, data files) intact."""
    leak = shipped[backend]
    build = leak.builds[wheel]
    assert build.returncode == 0, build.output[-3000:]
    [path] = build.wheels
    files = wheel_members(path)
    left_out_of = {"wheel"} if wheel == "direct" else {"wheel", "sdist"}
    manifest = Manifest.loads(files[f"{PACKAGE}/_flue_skills/manifest.json"])
    expected = {f"{PACKAGE}/__init__.py", f"{PACKAGE}/_flue_skills/manifest.json"}
    for skill in REFERENCED:
        expected.add(f"{PACKAGE}/{skill.module}.py")
        reference = manifest.reference(f"{PACKAGE}.{skill.module}", f"./skills/{skill.name}/SKILL.md")
        assert reference is not None and reference.kind == "skill", skill.name  # the scanner saw the reference
        entry = manifest.skill(reference.target)
        assert {f.path for f in entry.files} == kept(skill, backend, left_out_of), skill.name
        for relative in kept(skill, backend, left_out_of):
            name = f"{PACKAGE}/{entry.directory}/{relative}"
            expected.add(name)
            assert files[name] == (leak.tree / skill.folder / relative).read_bytes(), name
    orphan = next(s for s in SKILLS if s.name == "orphan")
    landed = {f"{PACKAGE}/skills/orphan": orphan.folder, **{v: k for k, v in artifacts.ELSEWHERE[backend].items()}}
    for dest, folder in landed.items():
        skill = next(s for s in SKILLS if s.folder == folder)
        for relative in skill.content:
            expected.add(f"{dest}/{relative}")
            assert files[f"{dest}/{relative}"] == (leak.tree / folder / relative).read_bytes()
    assert {name for name in files if ".dist-info/" not in name} == expected


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_the_sdist_holds_exactly_the_vetted_files(backend: str, shipped: dict[str, LeakBuilds]) -> None:
    """Referenced, unreferenced, inside the package and outside it (`.agents/skills/helper`): only
    vetted files, with their bytes, minus what the project's rules leave out of the sdist."""
    leak = shipped[backend]
    [path] = leak.builds["from-sdist"].sdists
    members = sdist_members(path)
    for skill in SKILLS:
        files = kept(skill, backend, {"sdist"})
        assert {n for n in members if n.startswith(skill.folder + "/")} == {f"{skill.folder}/{f}" for f in files}
        for relative in files:
            assert members[f"{skill.folder}/{relative}"] == (leak.tree / skill.folder / relative).read_bytes()
    assert not [n for n in members if "node_modules" in n or n.endswith(("~", ".swp", "#", ".pyc"))]


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_each_build_names_each_rule_and_each_unreferenced_skill(backend: str, shipped: dict[str, LeakBuilds]) -> None:
    for name, build in shipped[backend].builds.items():
        made = ("sdist", "wheel") if name == "from-sdist" else ("wheel",)
        for file, rules in artifacts.EXCLUDED[backend].items():
            for artifact, rule in rules.items():
                if artifact not in made or (artifact == "wheel" and name == "from-sdist" and "sdist" in rules):
                    continue  # a wheel built from the sdist never sees what the sdist left out
                line = f"{DECORATED.folder}/{file}: FLU411 warning: left out of the {LEFT_OUT_OF[(backend, artifact)]}: excluded by {rule}"
                assert line in build.output, (name, line)
        for skill in SKILLS:
            if skill.module is None and (skill.folder.startswith("src/") or name == "from-sdist"):
                assert f"{skill.folder}: FLU410 warning: skill `{skill.name}` is not referenced" in build.output
        assert "FLU409" not in build.output


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_check_and_ls_say_what_the_build_does(backend: str, shipped: dict[str, LeakBuilds]) -> None:
    """`check PROJECT` finds every reference form, vets the unreferenced skills and names the
    wheel's exclusions; `ls PROJECT` lists the bundles the direct wheel holds."""
    leak = shipped[backend]
    proc = run([*CLI, "check", "--format", "json", str(leak.tree)], leak.tree)
    found = json.loads(proc.stdout)
    assert proc.returncode == 0, proc.stderr
    by_code = {(d["path"], d["code"]) for d in found}
    for skill in SKILLS:
        assert ((f"{skill.folder}", "FLU410") in by_code) == (skill.module is None)
    for file, rules in artifacts.EXCLUDED[backend].items():
        assert ((f"{DECORATED.folder}/{file}", "FLU411") in by_code) == ("wheel" in rules)
    text = (
        run([*CLI, "check", str(leak.tree)], leak.tree).stdout + run([*CLI, "check", str(leak.tree)], leak.tree).stderr
    )
    assert f"found {len(REFERENCED)} references" in text
    listed = json.loads(run([*CLI, "ls", "--format", "json", str(leak.tree)], leak.tree).stdout)
    [wheel] = leak.builds["direct"].wheels
    manifest = Manifest.loads(wheel_members(wheel)[f"{PACKAGE}/_flue_skills/manifest.json"])
    assert sorted((s["name"], s["files"], s["id"]) for s in listed) == sorted(
        (manifest.skill(i).metadata.name, len(manifest.skill(i).files), i) for i in manifest.skill_ids()
    )


# --- refused: what the scanner cannot see still goes through the vetting ---------------------


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("artifact", ["sdist", "wheel"])
def test_a_skill_the_scanner_cannot_see_still_cannot_ship_a_secret(
    backend: str, artifact: str, refused_leaks: dict[str, LeakBuilds]
) -> None:
    build = refused_leaks[backend].builds[artifact]
    assert build.returncode != 0
    for folder, (secret, builds) in artifacts.REFUSED.items():
        named = f"{folder}/{secret}: FLU302 error" in build.output
        assert named == (artifact in builds[backend]), (folder, build.output[-3000:])
        if named:
            assert f"{folder}: FLU410 warning" in build.output
    for path, (code, _) in artifacts.REFUSED_CONTENT.items():  # a key in a notebook cell, a token (issue 20)
        assert re.search(rf"^{re.escape(path)}:\d+:\d+: {code} error: holds ", build.output, re.MULTILINE), path
    assert "FLU302" in build_summary(build.output)
    assert list(build.outdir.iterdir()) == []


# --- noise-secrets: whatever the vetting decides, the secret reaches no artifact -------------


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_noise_never_carries_a_secret_into_an_artifact(backend: str, noise_secrets: dict[str, LeakBuilds]) -> None:
    """A leftover `.env~` and `node_modules/aws -> ../aws-home` in a referenced and an unreferenced
    skill. The build fails exactly when the vetting refuses them; when it skips them as noise,
    the build succeeds and no entry of either artifact holds the secret's bytes."""
    leak = noise_secrets[backend]
    folders = artifacts.NOISE_SECRET_FOLDERS
    refused = any(d.is_error for f in folders for d in vet_skill(leak.tree / f, display=f).diagnostics)
    for name, build in leak.builds.items():
        for folder in folders:
            for noise in artifacts.NOISE_SECRET_FILES:
                pattern = rf"^{re.escape(folder)}/{re.escape(noise.split('/')[0])}\S*: FLU3\d\d (error|warning):"
                assert re.search(pattern, build.output, re.MULTILINE), (name, folder, noise)
        made = sorted(build.outdir.iterdir())
        if refused:
            assert build.returncode != 0 and made == [], build.output[-3000:]
            continue
        assert build.returncode == 0, build.output[-3000:]
        assert len(made) == (2 if name == "from-sdist" else 1)
        for path in made:
            members = wheel_members(path) if path.suffix == ".whl" else sdist_members(path)
            assert not [n for n, data in members.items() if artifacts.SECRET in data], path.name
            assert not [n for n in members if "node_modules" in n or n.endswith("~")], path.name


# --- audit: noise added behind the hook's back deletes the artifact -------------------------


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("artifact", ["sdist", "wheel"])
def test_the_audit_deletes_an_artifact_holding_a_file_the_vetting_did_not_keep(
    backend: str, artifact: str, sneaked: dict[str, LeakBuilds]
) -> None:
    """A later hatchling hook's force-include; setuptools data files and a custom sdist command:
    the entry is named wherever it landed, with the skill file and the route, and the artifact is gone."""
    build = sneaked[backend].builds[artifact]
    assert build.returncode != 0
    entry = artifacts.SNEAKED_TO[(backend, artifact)]
    pattern = (
        rf"^{PACKAGE}-0\.1\.0[^/\s]*/{re.escape(entry)}: FLU409 error: is {re.escape(artifacts.SNEAKED)} "
        rf"of the skill folder src/{PACKAGE}/skills/orphan: noise, never vetted; "
        rf"carried by {artifacts.SNEAKED_BY[(backend, artifact)]}$"
    )
    assert re.search(pattern, build.output, re.MULTILINE), build.output[-3000:]
    assert list(build.outdir.iterdir()) == []


# --- check and ls never run project code -----------------------------------------------------


def test_check_and_ls_never_run_project_code(tmp_path: Path) -> None:
    """A setuptools project whose `cmdclass` module and `attr:` version write a marker when imported."""
    tree = artifacts.make(tmp_path / "tree", "runs-code", "setuptools")
    checked = run([*CLI, "check", str(tree)], tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "found 1 reference" in checked.stdout + checked.stderr
    assert f"src/{PACKAGE}/skills/orphan: FLU410 warning" in checked.stdout + checked.stderr
    listed = run([*CLI, "ls", "--format", "json", str(tree)], tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert [s["name"] for s in json.loads(listed.stdout)] == ["refunds"]
    assert not (tree / artifacts.MARKER).exists()
    # The hazard is real: setuptools reading the same configuration imports the project's code.
    control = shutil.copytree(tree, tmp_path / "control")
    script = (
        "from setuptools.dist import Distribution\nDistribution({'script_name': 'setup.py'}).parse_config_files()\n"
    )
    run([sys.executable, "-c", script], control)
    assert (control / artifacts.MARKER).exists()


def test_the_readme_lists_every_artifact_project() -> None:
    readme = (Path(artifacts.__file__).parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Artifacts: what ships is exactly what was vetted", 1)[1]
    assert re.findall(r"^\| ([a-z-]+) \|", section, re.MULTILINE)[1:] == list(
        artifacts.PROJECTS
    )  # after the header row
