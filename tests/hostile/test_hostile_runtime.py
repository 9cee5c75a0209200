"""Run-time resolution of the hostile corpus: dev mode (`skill()` from a source tree), workspace
discovery (`.agents/skills` in a LocalSandbox), and an installed wheel (zipped on sys.path).

A refused case raises `SkillError` with the build's own codes (dev mode) or is skipped with
a warning naming them (workspace); an accepted case mounts and serves exactly its bytes.
Each runs in a subprocess without root's permission override, under a timeout.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from hostile_support import ACCEPTED, REFUSED, Built, Corpus, corpus, run

PROBE = r'''
import hashlib, importlib, json, sys, warnings
from flue_runtime import FlueError, SkillError
from flue_runtime.agents.sandbox import LocalSandbox
from flue_runtime.mount.vfs import SkillTree
from flue_runtime.agents.workspace import discover_workspace_skills

def served(skill):
    """Every file through the virtual tree, as a model's read would reach it."""
    tree = SkillTree([skill])
    return {f.path: hashlib.sha256(tree.read(f"/.flue/skills/{skill.name}/{f.path}")).hexdigest() for f in skill.files}

modules, workspace_root = sys.argv[1].split(","), sys.argv[2]
out = {"modules": {}, "workspace": {"mounted": {}, "skipped": []}}
for name in modules:
    try:
        module = importlib.import_module(f"hostile_demo.{name}")
    except SkillError as exc:
        out["modules"][name] = {"error": type(exc).__name__, "codes": sorted({d.code for d in exc.diagnostics if d.is_error})}
    except Exception as exc:  # anything else is a bug the test reports
        out["modules"][name] = {"error": type(exc).__name__, "message": str(exc)}
    else:
        skill = module.SKILL
        out["modules"][name] = {"name": skill.name, "files": served(skill), "instructions": len(skill.instructions)}
if workspace_root:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for skill, folder in discover_workspace_skills(LocalSandbox(workspace_root)):
            out["workspace"]["mounted"][folder] = served(skill)
    out["workspace"]["skipped"] = [str(w.message) for w in caught]
print(json.dumps(out))
'''


def probe(cwd: Path, pythonpath: list[Path], cases: list[corpus.Case], workspace: Path | None) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, pythonpath))}
    proc = run([sys.executable, "-c", PROBE, ",".join(c.module for c in cases), str(workspace or "")], cwd, env)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def source_hashes(folder: Path, files: dict[str, str]) -> dict[str, str]:
    return {path: hashlib.sha256(folder.joinpath(*path.split("/")).read_bytes()).hexdigest() for path in files}


@pytest.fixture(scope="module")
def dev_mode(hostile: Corpus) -> dict[str, dict[str, Any]]:
    """Both projects resolved from their source trees, their `.agents/skills` discovered as a workspace."""
    return {
        "refused": probe(hostile.refused, [hostile.refused / "src"], REFUSED, hostile.refused),
        "accepted": probe(hostile.accepted, [hostile.accepted / "src"], ACCEPTED, hostile.accepted),
    }


@pytest.mark.parametrize("case", REFUSED, ids=[c.folder for c in REFUSED])
def test_dev_mode_refuses_with_the_builds_codes(case: corpus.Case, dev_mode: dict[str, dict[str, Any]]) -> None:
    assert dev_mode["refused"]["modules"][case.module] == {"error": "SkillError", "codes": sorted(case.errors)}


@pytest.mark.parametrize("case", REFUSED, ids=[c.folder for c in REFUSED])
def test_workspace_skips_with_a_warning_naming_the_problem(
    case: corpus.Case, dev_mode: dict[str, dict[str, Any]]
) -> None:
    workspace = dev_mode["refused"]["workspace"]
    assert f".agents/skills/{case.folder}" not in workspace["mounted"]
    [warning] = [
        w for w in workspace["skipped"] if w.startswith(f"workspace skill .agents/skills/{case.folder} skipped:")
    ]
    assert all(code in warning for code in case.errors), warning


def test_the_refused_workspace_mounts_only_the_latin_twin(dev_mode: dict[str, dict[str, Any]]) -> None:
    """Of `refunds`, `Refunds` and the Cyrillic `rеfunds`, only the valid name is mounted."""
    assert set(dev_mode["refused"]["workspace"]["mounted"]) == set()
    assert set(dev_mode["accepted"]["workspace"]["mounted"]) == {f".agents/skills/{c.folder}" for c in ACCEPTED}


@pytest.mark.parametrize("case", ACCEPTED, ids=[c.folder for c in ACCEPTED])
def test_dev_mode_and_workspace_serve_accepted_cases_byte_for_byte(
    case: corpus.Case, hostile: Corpus, dev_mode: dict[str, dict[str, Any]]
) -> None:
    folder = hostile.accepted / ".agents" / "skills" / case.folder
    found = dev_mode["accepted"]["modules"][case.module]
    assert found["name"] == case.folder
    assert found["files"] == source_hashes(folder, found["files"]) and "SKILL.md" in found["files"]
    assert dev_mode["accepted"]["workspace"]["mounted"][f".agents/skills/{case.folder}"] == found["files"]


@pytest.mark.parametrize("backend", ["hatchling", "setuptools"])
def test_an_installed_wheel_serves_accepted_cases_byte_for_byte(
    backend: str, hostile: Corpus, hostile_builds: dict[tuple[str, str], Built], tmp_path: Path
) -> None:
    """The wheel itself on sys.path (zipimport), outside the project: only the bundle can answer."""
    [wheel] = hostile_builds[("accepted", backend)].wheels
    found = probe(tmp_path, [wheel], ACCEPTED, None)["modules"]
    for case in ACCEPTED:
        folder = hostile.accepted / ".agents" / "skills" / case.folder
        assert found[case.module]["files"] == source_hashes(folder, found[case.module]["files"]), case.folder
    assert found[corpus.BY_FOLDER["huge-body"].module]["instructions"] > 45_000_000
