"""Zip reads (issue 35 item 3): a 10,000-entry wheel on sys.path, this tree against a baseline tree.

    python benchmarks/zip_reads.py --baseline /tmp/zipbase [--rounds 21] [--skills 1000] [--work DIR]

The pack project (1,000 skills of 10 files by default: `generate.make_pack_project`) is built by hatchling with
the hook; the `.whl` itself goes on `sys.path` (zipimport). Fresh child processes, interleaved one of
each per round: the bare interpreter with the wheel on its path, `probes/zip_reads.py` against this
tree, and the same probe against `--baseline` (e.g. `git worktree add /tmp/zipbase HEAD~1`). Prints a
markdown table of medians: wall and CPU time over the bare start-up, and the probe's own phases (wall).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
import run  # noqa: E402
from run import Command, interleave  # noqa: E402

PROBE = HERE / "probes" / "zip_reads.py"


def build_wheel(work: Path, skills: int) -> Path:
    """The pack project's wheel (`skills` skills of 10 files), built by hatchling with this tree's hook."""
    project = generate.make_pack_project(work / "pack", skills=skills, files=10, binary_every=50).root
    out = work / "dist"
    code = "import sys; from hatchling.build import build_wheel; build_wheel(sys.argv[1])"
    env = run.child_env(SOURCE_DATE_EPOCH=run.EPOCH)
    subprocess.run([sys.executable, "-c", code, str(out)], cwd=project, env=env, check=True, capture_output=True)
    [wheel] = out.glob("*.whl")
    return wheel


def env(*path: Path) -> dict[str, str]:
    found = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    found["PYTHONPATH"] = os.pathsep.join(map(str, path))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True, help="another flue-skills tree (a git worktree)")
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--skills", type=int, default=1000, help="skills in the wheel, of 10 files each")
    parser.add_argument("--work", type=Path, help="where the wheel is built (a temporary folder by default)")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="zip-reads-"))
    wheel = build_wheel(work, args.skills)
    with __import__("zipfile").ZipFile(wheel) as archive:
        entries = len(archive.infolist())
    run.NEUTRAL_CWD = work
    commands = {
        "bare": Command([sys.executable, str(HERE / "probes" / "bare.py")], env(wheel)),
        "new": Command([sys.executable, str(PROBE)], env(ROOT, wheel)),
        "old": Command([sys.executable, str(PROBE)], env(args.baseline.resolve(), wheel)),
    }
    results = interleave(commands, args.rounds, warmup=1)
    for name, tree in (("new", ROOT), ("old", args.baseline.resolve())):
        [where] = {out["flue_runtime"] for out in results[name].outputs}
        assert where.startswith(str(tree)), f"{name} imported {where}, not {tree}"
    bare = results["bare"].median
    print(
        f"{entries:,} entries, {wheel.stat().st_size / 2**20:.1f} MiB; {args.rounds} rounds; python {sys.version.split()[0]}; load {os.getloadavg()[0]:.2f}"
    )
    print()
    print("| median | baseline (old) | this tree (new) | new − old |")
    print("|---|---|---|---|")
    old, new = results["old"], results["new"]
    print(
        f"| wall over bare start-up ({bare * 1e3:.1f} ms) | {(old.median - bare) * 1e3:.1f} ms | {(new.median - bare) * 1e3:.1f} ms | {(new.median - old.median) * 1e3:+.1f} ms |"
    )
    bare_cpu = results["bare"].cpu_median
    print(
        f"| CPU (user + system) over bare start-up ({bare_cpu * 1e3:.1f} ms) | {(old.cpu_median - bare_cpu) * 1e3:.1f} ms "
        f"| {(new.cpu_median - bare_cpu) * 1e3:.1f} ms | {(new.cpu_median - old.cpu_median) * 1e3:+.1f} ms |"
    )
    for key, label in (
        ("mount_ms", f"mounting {args.skills:,} skills (in process, from its start)"),
        ("activate_ms", "first activation (instructions + file list)"),
        ("first_read_ms", "first read of a support file"),
        ("through_first_read_ms", "process start to that first read"),
        ("steady_read_ms", "steady-state read of that file (median of 200)"),
    ):
        a, b = old.field_median(key), new.field_median(key)
        print(f"| {label} | {a:.3f} ms | {b:.3f} ms | {b - a:+.3f} ms |")
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
