"""Issue 31, items 4 and 6a, for real: one project built with plain hatchling (the hook table forgotten),
installed from its wheel, installed editable, and imported from its source tree (PYTHONPATH=src).

The wheel ships the raw skill folders and its `skill()` calls read them from disk: one
`SkillWarning` per distribution and process says so, names the distribution and
how to add the hook. An editable install and the source tree are dev mode: no warning. A
path typo is a missing folder from the source tree and the editable install (with a "did you
mean"), and a missing build hook only from the wheel, where the hook's check would have caught it.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from rtsetups import Builds
from support import slow
from support.builds import build_wheel
from support.envs import clean_env, install, make_venv
from support.procs import run
from support.projects import write_module, write_skill

pytestmark = pytest.mark.slow  # a wheel built, venvs made, installs

DIST, PACKAGE = "acme-helper", "acme_helper"
CATEGORY = "flue_runtime.errors.SkillWarning"

PYPROJECT = f"""\
[build-system]
requires = ["hatchling>=1.24"]
build-backend = "hatchling.build"

[project]
name = "{DIST}"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["flue-skills"]

[tool.hatch.build.targets.wheel]
packages = ["src/{PACKAGE}"]
# Editable installs through a .pth on src/ (no `editables` needed in the build environment).
dev-mode-dirs = ["src"]
"""

#: Imported in a child: every warning of the imports that resolve, then each failing module's error.
PROBE = textwrap.dedent(
    f"""
    import importlib, json, warnings
    out = {{}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import {PACKAGE}, {PACKAGE}.prompts
        out["origin"] = {PACKAGE}.REFUNDS.origin
        out["file"] = {PACKAGE}.__file__
    out["warnings"] = [
        [w.category.__module__ + "." + w.category.__qualname__, str(w.message), w.filename, w.lineno] for w in caught
    ]
    for name in ("typo", "bare"):
        try:
            importlib.import_module("{PACKAGE}." + name)
            out[name] = None
        except Exception as exc:
            out[name] = [type(exc).__name__, str(exc)]
    print(json.dumps(out))
    """
)


def write_project(root: Path) -> Path:
    """The project: a package whose `__init__` references two skills, a module that references a markdown file,
    one with a typo in its spec, one with a spec missing its `./`."""
    base = root / "src" / PACKAGE
    (root / "pyproject.toml").parent.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    write_module(
        base / "__init__.py",
        """\
        from flue_runtime import skill

        REFUNDS = skill("./skills/refunds/SKILL.md")
        TRIAGE = skill("./skills/triage/SKILL.md")
        """,
    )
    write_module(base / "prompts.py", 'from flue_runtime import markdown\n\nSYSTEM = markdown("./prompts/system.md")\n')
    write_module(base / "typo.py", 'from flue_runtime import skill\n\nX = skill("./skills/refnds/SKILL.md")\n')
    write_module(base / "bare.py", 'from flue_runtime import skill\n\nX = skill("skills/triage/SKILL.md")\n')
    write_skill(base / "skills" / "refunds", files={"policy.md": "30 days.\n"})
    write_skill(base / "skills" / "triage")
    write_module(base / "prompts" / "system.md", "You are helpful.\n")
    return root


@pytest.fixture(scope="module")
@slow.builds
def seen(builds: Builds, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """What the probe saw, by setup: installed from the wheel, installed editable, from the source tree."""
    base = tmp_path_factory.mktemp("hookless")
    project = write_project(base / "project")
    wheel = build_wheel(project, base / "dist")
    probes: dict[str, dict[str, Any]] = {}
    for setup in ("wheel", "editable"):
        # The venv sees this environment (PyYAML, which vetting a folder on disk needs, and hatchling for the
        # editable build); flue-skills comes from its session-built wheel.
        python = make_venv(base / setup)
        install(
            str(builds.flue),
            *((str(wheel),) if setup == "wheel" else ("--no-build-isolation", "-e", str(project))),
            into=python,
            cwd=base,
        )
        proc = run([str(python), "-P", "-c", PROBE], cwd=base, env=clean_env())
        probes[setup] = json.loads(proc.stdout)
    proc = run([sys.executable, "-P", "-c", PROBE], cwd=base, env=clean_env(PYTHONPATH=str(project / "src")))
    probes["source"] = json.loads(proc.stdout)
    probes["source"]["project"] = probes["editable"]["project"] = str(project)
    return probes


def test_the_probe_ran_where_each_setup_puts_the_package(seen: dict[str, dict[str, Any]]) -> None:
    assert "site-packages" in seen["wheel"]["file"]
    for setup in ("editable", "source"):
        assert seen[setup]["file"] == os.path.join(seen[setup]["project"], "src", PACKAGE, "__init__.py")
    for setup in seen:
        assert seen[setup]["origin"].endswith("(from disk)"), seen[setup]["origin"]


def test_a_wheel_built_without_the_hook_warns_once_naming_the_distribution_and_the_fix(
    seen: dict[str, dict[str, Any]],
) -> None:
    [(category, message, filename, lineno)] = [w for w in seen["wheel"]["warnings"] if "flue" in w[0]]
    assert category == CATEGORY
    assert f"'{DIST}'" in message, message
    for words in (
        "built without the flue-skills build hook",
        "[tool.hatch.build.hooks.flue-skills]",
        "hatch-flue-skills",
        "[tool.flue]",
        "rebuild",
    ):
        assert words in message, message
    # Shown at the user's call, not inside flue_runtime.
    assert filename == seen["wheel"]["file"] and lineno == 3, (filename, lineno)


@pytest.mark.parametrize("setup", ["editable", "source"])
def test_dev_mode_does_not_warn(setup: str, seen: dict[str, dict[str, Any]]) -> None:
    assert [w for w in seen[setup]["warnings"] if "flue" in w[0]] == []


@pytest.mark.parametrize("setup", ["editable", "source"])
def test_a_typo_in_dev_mode_is_a_missing_folder_with_a_guess(setup: str, seen: dict[str, dict[str, Any]]) -> None:
    error, message = seen[setup]["typo"]
    assert error == "SkillNotFoundError", message
    missing = os.path.join(seen[setup]["project"], "src", PACKAGE, "skills", "refnds")
    assert "skill('./skills/refnds/SKILL.md')" in message and f"'{PACKAGE}.typo'" in message and missing in message
    assert "did you mean `./skills/refunds/SKILL.md`?" in message and "build hook" not in message, message


def test_a_typo_in_a_wheel_without_the_hook_is_a_missing_hook(seen: dict[str, dict[str, Any]]) -> None:
    error, message = seen["wheel"]["typo"]
    assert error == "SkillNotFoundError", message
    assert "[tool.hatch.build.hooks.flue-skills]" in message and "did you mean `./skills/refunds/SKILL.md`?" in message


@pytest.mark.parametrize("setup", ["wheel", "editable", "source"])
def test_a_spec_without_dot_slash_says_did_you_mean(setup: str, seen: dict[str, dict[str, Any]]) -> None:
    error, message = seen[setup]["bare"]
    assert error == "SkillNotFoundError", message
    assert "no importable package 'skills'" in message and "did you mean `./skills/triage/SKILL.md`?" in message


def test_the_warning_can_be_made_an_error(seen: dict[str, dict[str, Any]]) -> None:
    """An application's strict mode (`simplefilter("error", SkillWarning)`) refuses the hook-less wheel's
    import. (`-W error::flue_runtime.errors...` cannot: Python reads -W before site-packages is on sys.path.)"""
    site = Path(seen["wheel"]["file"]).parents[1]
    python = site.parents[2] / "bin" / "python"
    code = (
        "import warnings; from flue_runtime.errors import SkillWarning; "
        f'warnings.simplefilter("error", SkillWarning); import {PACKAGE}'
    )
    proc = run([str(python), "-P", "-c", code], cwd=site, env=clean_env(), check=False)
    assert proc.returncode == 1
    assert f"\n{CATEGORY}: " in proc.stderr, proc.stderr  # (its words go on, how to fix, a line each)
