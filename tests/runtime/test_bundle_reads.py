"""Bundle reads: the recorded size is checked before reading, nothing but a regular file is read,
and no read takes more memory than the recorded size, from a folder or from a zipped wheel."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from rtsupport import Call, Project, zip_folder
from support.imports import ImportSandbox
from support.projects import write_module, write_skill

from flue_runtime.errors import MountError

#: Bytes a bundled file grows to in the bounded-read tests: reading it whole would show in peak RSS.
HUGE = 256 * 1024 * 1024


def make_project(root: Path, pkg: str) -> Project:
    src = root / "src"
    write_module(src / pkg / "__init__.py", "")
    write_module(
        src / pkg / "agent.py",
        """
        from flue_runtime import skill

        REFUNDS = skill("./skills/refunds/SKILL.md")
        """,
    )
    write_skill(src / pkg / "skills" / "refunds", files={"policy.md": "30 days\n"})
    return Project(src, [Call(f"{pkg}.agent", "./skills/refunds/SKILL.md")])


def installed(tmp_path: Path, pkg: str) -> tuple[Path, Path]:
    """The package installed as a folder under `site`, and its bundled policy.md."""
    site = tmp_path / "site"
    make_project(tmp_path / "project", pkg).install(site, pkg)
    [policy] = (site / pkg / "_flue_skills" / "skills").glob("*/policy.md")
    return site, policy


def test_a_fifo_in_place_of_a_bundled_file_is_refused_at_once(
    tmp_path: Path, pkg_name: str, imports: ImportSandbox
) -> None:
    site, policy = installed(tmp_path, pkg_name)
    imports.add(site)
    agent = importlib.import_module(f"{pkg_name}.agent")
    assert agent.REFUNDS.read_text("policy.md") == "30 days\n"
    policy.unlink()
    os.mkfifo(policy)  # nobody writes: a blocking open or read would hang here forever
    with pytest.raises(MountError, match=r"policy\.md: is not a regular file \(a FIFO\); refused"):
        agent.REFUNDS.read_text("policy.md")


def test_a_fifo_in_place_of_the_manifest_is_refused_at_once(
    tmp_path: Path, pkg_name: str, imports: ImportSandbox
) -> None:
    site, _ = installed(tmp_path, pkg_name)
    manifest = site / pkg_name / "_flue_skills" / "manifest.json"
    manifest.unlink()
    os.mkfifo(manifest)
    imports.add(site)
    with pytest.raises(MountError, match="manifest.*is not a regular file"):
        importlib.import_module(f"{pkg_name}.agent")


PROBE = textwrap.dedent(
    """\
    import importlib, json, resource, sys
    from flue_runtime.errors import MountError
    agent = importlib.import_module(sys.argv[1] + ".agent")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        agent.REFUNDS.read_bytes("policy.md")
        error = ""
    except MountError as exc:
        error = str(exc)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"error": error, "grew_kib": after - before}))
    """
)


def probe(entry: Path, pkg: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(entry)}
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, pkg], capture_output=True, text=True, env=env, cwd=entry.parent, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    found: dict[str, object] = json.loads(proc.stdout)
    return found


def test_a_bundled_file_larger_than_recorded_is_refused_before_it_is_read(tmp_path: Path, pkg_name: str) -> None:
    site, policy = installed(tmp_path, pkg_name)
    with open(policy, "r+b") as handle:
        handle.truncate(HUGE)  # sparse: costs nothing on disk, 256 MiB to whoever reads it whole
    found = probe(site, pkg_name)
    assert "differs from the bundle manifest" in str(found["error"])
    assert int(str(found["grew_kib"])) < 32 * 1024


def test_a_zipped_member_larger_than_recorded_is_refused_before_it_is_inflated(tmp_path: Path, pkg_name: str) -> None:
    site, policy = installed(tmp_path, pkg_name)
    with open(policy, "r+b") as handle:
        handle.truncate(HUGE)  # zeros: the zip holds them in a few hundred KiB
    wheel = zip_folder(site, tmp_path / f"{pkg_name}-1.0-py3-none-any.whl")
    assert wheel.stat().st_size < HUGE // 100
    found = probe(wheel, pkg_name)
    assert "differs from the bundle manifest" in str(found["error"])
    assert int(str(found["grew_kib"])) < 32 * 1024
