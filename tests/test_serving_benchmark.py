"""The serving benchmark's harness works (no timing is asserted: BENCHMARKS.md holds the figures).

`--quick` serves 20 generated skills with `flue-skills mcp` (stdio, then `--http`) and the official-SDK floor (the peer,
agentskills-mcp-server, needs a Python 3.12 venv installed from the package index: `--peer none` here),
and every answer is checked as a host checks it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT

pytestmark = pytest.mark.slow  # server processes


def test_quick_serving_benchmark_run(tmp_path: Path) -> None:
    """Run from a fresh copy (issue 44 item 10): an empty `PYTHONPYCACHEPREFIX` holds no bytecode of anything, and the
    measured servers run with `PYTHONDONTWRITEBYTECODE=1`; a warm-up start of each server writes the bytecode of what
    it imports, flue's own modules and the floor's libraries alike, so no measured start compiles any."""
    results = tmp_path / "results.json"
    cache = tmp_path / "pycache"
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "serving.py"),
            "--quick",
            "--peer",
            "none",
            "--workdir",
            str(tmp_path / "work"),
            "--json",
            str(results),
        ],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "PYTHONPYCACHEPREFIX": str(cache)},
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "## Results" in proc.stdout and "### 20 skills" in proc.stdout
    # Compiled before measuring, each server alike: flue's server and command (imported by the servers only, never
    # by the harness), the floor's HTTP server, over HTTP and over stdio.
    for module in ("flue_runtime/mcp/server", "flue_build/cli/commands/mcp", "uvicorn/server", "mcp/server/stdio"):
        assert list(cache.rglob(f"{module}.*.pyc")), module
    [run] = json.loads(results.read_text())["runs"]
    assert run["skills"] == 20 and set(run["servers"]) == {"flue", "floor"}
    for key, server in run["servers"].items():
        assert server["skills_listed"] == 20 and server["list_pages"] == 1, key
        # Every response was checked as a host checks it, and both servers list the same entries.
        assert server["failure_count"] == 0 and server["verified"] >= 40, (key, server["failures"])
        assert server["entries_differ"] == [], key
        for clients in (1, 8, 32):
            level = server[f"load_{clients}"]
            assert level["n"] == 40 and level["rps"] > 0 and level["p99"] >= level["p50"] > 0, (key, clients)
        assert server["rss_started"] > 0 and server["rss_after_flat"] > 0 and server["start_s"]
        # Started over stdio too, to every page of the first listing: the same entries as over HTTP.
        assert len(server["stdio_s"]) == len(server["stdio_cpu_s"]) == 1 and server["stdio_cpu_s"][0] > 0, key
        assert server["stdio_same_entries"] is True, key
    # The generated folder: a SKILL.md and the 20 KB page per skill.
    folder = tmp_path / "work" / "skills-20"
    pages = sorted(folder.glob("*/references/guide.md"))
    assert len(pages) == 20 and {page.stat().st_size for page in pages} == {20_000}


def test_the_floor_lists_the_same_entries_with_libyaml(tmp_path: Path) -> None:
    """`serving_floor.py --c-yaml` (the stricter floor beside the recorded one) parses frontmatter by libyaml
    and must build the very entries and files the recorded floor's pure-Python `SafeLoader` builds."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import generate
        import serving_floor
    finally:
        sys.path.pop(0)
    import yaml

    folder = generate.make_serving_folder(tmp_path / "skills", skills=20)
    pure, pure_files = serving_floor.load(folder, yaml.SafeLoader)
    libyaml, libyaml_files = serving_floor.load(folder, yaml.CSafeLoader)
    assert len(pure) == 20 and any(entry["frontmatter"].get("metadata") for entry in pure)
    assert libyaml == pure
    assert [(f.uri, f.text) for f in libyaml_files] == [(f.uri, f.text) for f in pure_files]


def test_stdio_start_up_rounds_run(tmp_path: Path) -> None:
    """`serving_stdio.py` starts flue, the floor and the libyaml floor in turn, each to its first full listing, each
    warmed up first as `serving.py`'s are (from a fresh copy: an empty `PYTHONPYCACHEPREFIX`)."""
    results = tmp_path / "results.json"
    cache = tmp_path / "pycache"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "serving_stdio.py"), "--size", "20", "--rounds", "1"]
        + ["--workdir", str(tmp_path), "--json", str(results)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPYCACHEPREFIX": str(cache)},
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    for module in ("flue_build/cli/commands/mcp", "mcp/server/stdio"):
        assert list(cache.rglob(f"{module}.*.pyc")), module
    servers = json.loads(results.read_text())["servers"]
    assert list(servers) == ["flue", "floor", "floor --c-yaml"]
    for key, figures in servers.items():
        assert len(figures["cpu_s"]) == len(figures["wall_s"]) == 1 and figures["cpu_s"][0] > 0, key
    assert "| floor --c-yaml |" in proc.stdout
