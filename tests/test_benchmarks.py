"""The benchmarks' generators and runner work (no timing is asserted: see BENCHMARKS.md for figures)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT

pytestmark = pytest.mark.slow  # real builds, venvs or pip: seconds each


def test_quick_benchmark_run(tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "run.py"),
            "--quick",
            "--workdir",
            str(tmp_path / "work"),
            "--json",
            str(results),
        ],
        capture_output=True,
        text=True,
        timeout=600,  # every section, on a shared 2-core machine
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    data = json.loads(results.read_text())
    assert set(data) == {
        "scan",
        "pack",
        "mount",
        "import",
        "memory",
        "catalog",
        "validate",
        "turn",
        "script",
        "startup",
    }
    assert all(section["rows"] for section in data.values())
    assert "## Results" in proc.stdout
    # The generators are seeded: the same inputs every run.
    memory = {row["figure"]: row["value"] for row in data["memory"]["rows"]}
    assert memory["installed: references holding their instructions after mounting"] == "0 of 20"
    # The validation probes ran over the whole generated corpus, and the first validations each measured.
    validate = data["validate"]["data"]
    assert validate["skills"] == 30 and validate["frontmatter_cpu_s"] > 0 and validate["vet_cpu_s"] > 0
    [first] = [value["first_ms"] for key, value in validate.items() if isinstance(value, dict)]
    assert {"define", "workspace", "workspace_yaml", "tools"} <= set(first)
    # No `import flue_runtime` micro-target any more (issue 11): no import row has a target.
    assert all(not row["target"] for row in data["import"]["rows"])
    # The turn overhead was measured for every store (PostgreSQL too: the store tests' server helper), and
    # the workspace discovery at scale found every generated skill.
    turn = data["turn"]["data"]
    assert {"memory", "SQLite", "PostgreSQL"} <= set(turn)
    assert all(
        turn[store]["median_ms"] > 0 and turn[store]["prompts"] == 4 for store in ("memory", "SQLite", "PostgreSQL")
    )
    assert turn["discovery"]["skills"] == 20
    # Dev mode (issue 21): the same agent with its skills read from a source tree, vetted again at every use.
    assert turn["memory, dev mode"]["prompts"] == 4 and turn["memory, dev mode"]["median_ms"] > 0
    assert isinstance(turn["dev_recheck_ms"], float)
    # Issue 24's peers: the same agent in pydantic-ai beside the in-memory harness, and the reference library's
    # loader (skills-ref's to_prompt) beside mounting the wheel (both in the test extra).
    assert turn["pydantic-ai, in memory"]["prompts"] == 4 and turn["pydantic-ai, in memory"]["median_ms"] > 0
    [mounted] = [value for value in data["mount"]["data"].values() if isinstance(value, dict) and "installed" in value]
    assert mounted["installed"]["skills_ref_over_ms"] > 0 and mounted["zip"]["skills_ref_over_ms"] > 0
    assert any(row["target"] == "≤ 1/3 (issue 24)" for row in data["turn"]["rows"])
    assert data["script"]["data"]["calls"] == 3 and data["script"]["data"]["tool_ms"] > 0
    # Issue 31's start-up: whole-process CPU of `check` on 3 skills and of the reference validator (the test extra
    # has skills-ref), with the load average read around the rounds.
    startup = data["startup"]["data"]
    assert startup["check_three_cpu_s"] > 0 and startup["skills_ref_one_cpu_s"] > 0
    assert len(startup["load"]) == 2
    assert any(row["target"] == "≤ 1 (issue 31)" for row in data["startup"]["rows"])


def test_generators_are_deterministic(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import generate
    finally:
        sys.path.pop(0)
    for name in ("a", "b"):
        generate.make_scan_project(tmp_path / name / "scan", modules=30, size_mb=0.1, references=6, skills=3)
        generate.make_pack_project(tmp_path / name / "pack", skills=4, files=5, binary_every=2)
        generate.make_skill_corpus(tmp_path / name / "corpus", skills=12)
        generate.make_serving_folder(tmp_path / name / "serving", skills=3)

    def tree(root: Path) -> dict[str, bytes]:
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}

    assert tree(tmp_path / "a") == tree(tmp_path / "b")


def test_the_secrets_recall_benchmark_runs_on_the_planted_set_and_a_corpus(tmp_path: Path) -> None:
    """Our scan alone (detect-secrets is the benchmark's own install): every planted secret found, nothing else
    flagged, and a folder given as a corpus scanned file by file."""
    corpus = tmp_path / "corpus"
    (corpus / "skill").mkdir(parents=True)
    (corpus / "skill" / "SKILL.md").write_text("---\nname: skill\ndescription: A skill.\n---\nBody.\n")
    (corpus / "skill" / ".env").write_text("TOKEN=x\n")
    results = tmp_path / "recall.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "secrets_recall.py"), "--without-baseline", "--json", str(results)]
        + ["--corpus", str(corpus)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    data = json.loads(results.read_text())
    assert {row["class"] for row in data["planted"]} >= {"private key in base64", "credential token"}
    assert all(row["found"]["flue-skills"] == (row["files"] if row["secret"] else 0) for row in data["planted"])
    [scanned] = data["corpora"]
    assert (scanned["files"], scanned["skills"], scanned["by_name"]) == (2, 1, ["skill/.env"])
