"""A long fuzzing campaign (CI runs a fixed-seed budget of the same properties).

    .venv/bin/python scripts/fuzz.py                 # hypothesis, 200,000 examples per property
    .venv/bin/python scripts/fuzz.py --atheris 600   # also coverage-guided atheris, 600 s per target

FLUE_FUZZ_EXAMPLES sets the hypothesis budget. atheris (pip install atheris) is optional.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

ATHERIS_TARGET = """
import sys, atheris
with atheris.instrument_imports():
    from flue_runtime.format.validate import check_skill_md
    from flue_runtime.format.paths import skill_path
    from flue_runtime.errors import SkillPathError
    from flue_runtime.mount.vfs import SkillTree
    from flue_runtime import define_skill
    from flue_runtime.errors import FlueError
    from flue_build.scan.scanner import ScanResult, scan_source

TREE = SkillTree([define_skill(name="s", description="d", instructions="i", files={"a.md": "x"})])

def target(data: bytes) -> None:
    check_skill_md(data, "s/SKILL.md", "s")
    scanned = scan_source(data, "m.py")  # documented: a ScanResult for any bytes, never an exception
    assert isinstance(scanned, ScanResult)
    assert all(d.code in ("FLU401", "FLU402", "FLU403") for d in scanned.diagnostics)
    text = data.decode("utf-8", "replace")
    try:
        skill_path(text)
    except SkillPathError:
        pass
    try:
        assert TREE.read("/.flue/skills/" + text) in (b"x",) or text == "s/SKILL.md"
    except (FlueError, ValueError):
        pass

atheris.Setup(sys.argv, target)
atheris.Fuzz()
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--atheris", type=int, metavar="SECONDS", help="also run atheris for this long")
    args = parser.parse_args()
    env = {**os.environ, "HYPOTHESIS_PROFILE": "campaign", "PYTHONPATH": str(ROOT)}
    status = subprocess.call(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(ROOT / "tests" / "fuzz")], env=env
    )
    if args.atheris:
        status |= subprocess.call(
            [sys.executable, "-c", ATHERIS_TARGET, f"-max_total_time={args.atheris}", "-rss_limit_mb=4096"], env=env
        )
    return status


if __name__ == "__main__":
    raise SystemExit(main())
