"""Run-time resolution of the hostile corpus: dev mode (`skill()` from a source tree), workspace
discovery (`.agents/skills` in a LocalSandbox), and an installed wheel (zipped on sys.path).

A refused case raises `SkillError` with the build's own codes (dev mode) or is skipped with
a warning naming them (workspace); an accepted case mounts and serves exactly its bytes.
Each runs in a subprocess without root's permission override, under a timeout.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from hostile_support import ACCEPTED, REFUSED, Built, Corpus, corpus, probe

pytestmark = pytest.mark.slow  # the hostile corpus, built and probed in child processes


def source_hashes(folder: Path, files: dict[str, str]) -> dict[str, str]:
    return {path: hashlib.sha256(folder.joinpath(*path.split("/")).read_bytes()).hexdigest() for path in files}


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
