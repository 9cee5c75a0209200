"""The audit is independent of routes (issue 20, item 1): both backends, wheel and sdist, built
directly (`python -m build --wheel`, `pip wheel`) and from the sdist.

Every member of a finished artifact is matched against every file under the project's skill
folders, by the end of its path and by its bytes, whatever put it there: `[project]
license-files` and setuptools `script-files` naming a skill's noise or a file of a skill folder
the wheel does not select, another hook or a custom command copying a skill's noise under another
name. The build fails naming the member, the skill file and the route, and the artifact is gone.
Noise that no route ships (a JS skill's `node_modules/.bin` links and `node_modules/.env`) fails
nothing, and neither do the project's own files (`secrets.py`, `.env`, empty files, license files
whose bytes equal a skill's or its noise's, the metadata the backend writes).

Each project is `fixtures/hostile/artifacts.py`'s, built for real, unprivileged and bounded
(tests/hostile/conftest.py); every test reads the build's output and its artifacts.
"""

from __future__ import annotations

import re
import tarfile
import zipfile
from pathlib import Path

import pytest
from hostile_support import EVERY_WAY, Built, LeakBuilds, artifacts

pytestmark = pytest.mark.slow

BACKENDS = artifacts.BACKENDS
PACKAGE = artifacts.PACKAGE
#: How a failed artifact is named at the start of an audit line: the wheel's or the sdist's file name.
ARTIFACT = rf"{PACKAGE}-0\.1\.0[^/\s]*"
UNKNOWN = "an unknown route (another build hook or a custom command)"


def members(path: Path) -> dict[str, bytes]:
    """Every file of a wheel, or of an sdist named without its top folder, with its bytes."""
    if path.suffix == ".whl":
        with zipfile.ZipFile(path) as archive:
            return {i.filename: archive.read(i) for i in archive.infolist() if not i.is_dir()}
    out = {}
    with tarfile.open(path) as archive:
        for member in archive:
            handle = archive.extractfile(member) if member.isfile() else None
            if handle is not None:
                out[member.name.split("/", 1)[1]] = handle.read()
    return out


def made(build: Built) -> list[Path]:
    """The artifacts a build left (wheels and sdists)."""
    return [*build.wheels, *build.sdists]


def failed_cleanly(build: Built) -> None:
    """The build failed, no artifact is left, and no Python traceback surfaced."""
    assert build.returncode != 0, build.output[-3000:]
    assert made(build) == [], build.output[-3000:]
    assert "Traceback" not in build.output, build.output[-3000:]


def member_of(build: str, route: str, file: str) -> str:
    """Where `route` puts the project file `file` in the artifact `build` writes first: in a wheel,
    `license-files` under `.dist-info/licenses/` at its own path and `script-files` in `.data/scripts/`
    by name; in an sdist, each at its own path."""
    if build in ("sdist", "from-sdist"):
        return file
    if route == "license-files":
        return f"{PACKAGE}-0.1.0.dist-info/licenses/{file}"
    return f"{PACKAGE}-0.1.0.data/scripts/{file.rsplit('/', 1)[1]}"


def audit_line(member: str, what: str, file: str, folder: str, verdict: str, route: str) -> str:
    """The FLU409 line of `member`: what it is of which skill file, and the route that carried it (pip
    indents what the backend prints)."""
    return (
        rf"^ *{ARTIFACT}/{re.escape(member)}: FLU409 error: {what} {re.escape(file)} of the skill folder "
        rf"{re.escape(folder)}: {re.escape(verdict)}; carried by {re.escape(route)}$"
    )


# --- settings naming files of a skill folder the vetting did not keep ---------------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("build", list(EVERY_WAY))
def test_license_and_script_files_naming_a_skills_noise_fail_every_build(
    backend: str, build: str, routes_noise: dict[str, LeakBuilds]
) -> None:
    """`license-files` (both backends) and `script-files` (setuptools) naming files under a referenced
    skill's `node_modules/` (never vetted): each member is named with the file and the setting, in
    the wheel built directly or by pip and in the sdist (a build from the sdist stops there)."""
    result = routes_noise[backend].builds[build]
    failed_cleanly(result)
    for route, files in artifacts.ROUTED["routes-noise"][backend].items():
        for file in files:
            line = audit_line(
                member_of(build, route, file),
                "is",
                file,
                artifacts.REFUNDS,
                "inside a noise folder, never vetted",
                route,
            )
            assert re.search(line, result.output, re.MULTILINE), (route, file, result.output[-3000:])
    assert f"{artifacts.REFUNDS}/node_modules: FLU304 warning" in result.output


#: The builds that write an artifact before anything vets the folder the settings name: the
#: wheel's selection holds no `.agents/`, so only the audit meets it. Every other build vets it
#: first (hatchling's sdist walk, setuptools' file list, which holds license and script files).
AUDITED = {("hatchling", "wheel"), ("hatchling", "pip-wheel")}
VERDICTS = {artifacts.HELPER_ENV: "FLU302", artifacts.HELPER_KEY: "FLU303"}
#: Where each refusal is reported: a file refused by its name, a key at the line it starts on.
REPORTED = {artifacts.HELPER_ENV: artifacts.HELPER_ENV, artifacts.HELPER_KEY: f"{artifacts.HELPER_KEY}:1:1"}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("build", list(EVERY_WAY))
def test_settings_naming_a_refused_file_of_an_unselected_skill_folder_fail_every_build(
    backend: str, build: str, routes_unvetted: dict[str, LeakBuilds]
) -> None:
    """A `.env` and a private key in `.agents/skills/helper`, which the wheel does not select, named by
    `license-files` (and setuptools `script-files`): the folder is vetted when first met, each file
    refused by its rule; a wheel written before that (hatchling's) is audited and deleted, its
    members named with the setting."""
    result = routes_unvetted[backend].builds[build]
    failed_cleanly(result)
    for route, files in artifacts.ROUTED["routes-unvetted"][backend].items():
        for file in files:
            assert f"{REPORTED[file]}: {VERDICTS[file]} error" in result.output, (file, result.output[-3000:])
            line = audit_line(
                member_of(build, route, file),
                "is",
                file,
                artifacts.HELPER,
                f"refused by the vetting, {VERDICTS[file]}",
                route,
            )
            assert bool(re.search(line, result.output, re.MULTILINE)) == ((backend, build) in AUDITED), (
                file,
                result.output[-3000:],
            )


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("artifact", ["wheel", "sdist"])
def test_a_copy_under_another_name_by_an_unknown_route_fails_the_build(
    backend: str, artifact: str, unknown_route: dict[str, LeakBuilds]
) -> None:
    """Another hatchling hook appends to the finished artifact, a custom setuptools `build_py` and
    `sdist` copy into it: the copy of a noise file holding a secret is found by its bytes alone;
    a 3-byte copy (`{}`) is below what bytes can tell from a coincidence and is not named."""
    result = unknown_route[backend].builds[artifact]
    failed_cleanly(result)
    line = audit_line(
        artifacts.COPIED[artifact],
        "holds the bytes of",
        artifacts.COPIED_FROM,
        artifacts.REFUNDS,
        "inside a noise folder, never vetted",
        UNKNOWN,
    )
    assert re.search(line, result.output, re.MULTILINE), result.output[-3000:]
    assert not re.search(rf"{re.escape(artifacts.COPIED_TINY[artifact])}: FLU409", result.output)
    assert len(re.findall(r": FLU409 error:", result.output)) == 1


# --- noise that ships nowhere, and the project's own files ------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_js_skill_with_npm_links_and_a_node_modules_env_builds_and_ships_neither(
    backend: str, js_skill: dict[str, LeakBuilds]
) -> None:
    """`node_modules/.bin` links and a `node_modules/.env`: skipped with one warning, never vetted, in
    no artifact. The project's `secrets.py` and `.env`, an empty `__init__.py` (as empty as a noise
    file), a LICENSE equal to the skill's and to a package's under `node_modules/`, a NOTICE equal to
    that package's, a README.md like the skill's and `docs/browser/README.md`, whose path ends in the
    skill's `browser/README.md`: all shipped as the project's own, nothing named by the audit."""
    leak = js_skill[backend]
    skill = artifacts.BROWSER
    noise = {bytes(data) for data in artifacts.JS_NOISE.values() if len(data) >= 32}
    own_only = noise - {artifacts.LICENSE, artifacts.NOTICE}  # what no file of the project holds
    for name in ("from-sdist", "direct", "pip-wheel"):
        build = leak.builds[name]
        assert build.returncode == 0, build.output[-3000:]
        assert f"{skill}/node_modules: FLU304 warning" in build.output
        assert not re.search(r"FLU3\d\d error|FLU409", build.output), build.output[-3000:]
        assert len(made(build)) == (2 if name == "from-sdist" else 1)
        for path in made(build):
            files = members(path)
            assert not [n for n in files if "node_modules" in n or ".venv" in n], path.name
            assert not [n for n, data in files.items() if artifacts.SECRET in data or data in own_only], path.name
            prefix = "src/" if path.suffix != ".whl" else ""
            assert (
                files[prefix + artifacts.PROJECT_SECRETS.removeprefix("src/")]
                == (leak.tree / artifacts.PROJECT_SECRETS).read_bytes()
            )
            assert files[f"{prefix}{PACKAGE}/__init__.py"] == b""
            if path.suffix == ".whl":
                bundled = sorted(n.split("/", 4)[4] for n in files if n.startswith(f"{PACKAGE}/_flue_skills/skills/"))
                assert bundled == sorted(artifacts.JS_SKILL)
                assert files[f"{PACKAGE}-0.1.0.dist-info/licenses/LICENSE"] == artifacts.LICENSE
                assert files[f"{PACKAGE}-0.1.0.dist-info/licenses/NOTICE"] == artifacts.NOTICE
            else:
                for own in (".env", "README.md", "docs/browser/README.md"):
                    assert files[own] == artifacts.OWN_FILES[own], own
                assert sorted(n for n in files if n.startswith(skill + "/")) == sorted(
                    f"{skill}/{p}" for p in artifacts.JS_SKILL
                )


@pytest.mark.parametrize("backend", BACKENDS)
def test_metadata_the_backend_writes_is_not_taken_for_a_copy_of_noise(
    backend: str, js_skill: dict[str, LeakBuilds]
) -> None:
    """The JS skill's `.venv/` holds copies of the metadata the backend wrote into the first builds
    (an installed package's `.dist-info/`, an unpacked sdist's `PKG-INFO`, `setup.cfg`,
    `.egg-info/`): the next builds write the same bytes again, and the audit names none of them."""
    leak = js_skill[backend]
    assert leak.seeded, "the first builds failed: see the test above"
    for name in ("seeded-sdist", "seeded-wheel"):
        build = leak.builds[name]
        assert build.returncode == 0, build.output[-3000:]
        assert "FLU409" not in build.output
        [path] = made(build)
        shipped = set(members(path).values())
        kind = ".venv/lib/" if path.suffix == ".whl" else ".venv/src/"
        collisions = [p for p, data in leak.seeded.items() if kind in p and data in shipped and len(data) >= 32]
        # The test exercises the rule: METADATA and WHEEL in a wheel, PKG-INFO (and more) in an sdist.
        assert len(collisions) >= (2 if path.suffix == ".whl" else 1), (name, sorted(leak.seeded))
