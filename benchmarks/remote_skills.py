"""What mounting skills from a remote MCP server costs, next to mounting the same folders from disk.

A folder of N generated skills (seeded; each a SKILL.md and one support file of ~2 KB) is served by
`flue-skills mcp FOLDER`, over stdio (a child process `remote_skills` starts) and over streamable HTTP on
127.0.0.1 (started beforehand, not counted). For each: `remote_skills` (connecting, every page of the listing,
every SKILL.md read and verified, each skill vetted by `load_skill`), then the first read of each support file
(fetched, size and digest checked, scanned) through `SkillReference.read_bytes`. The same folders loaded from
disk (dev mode: `load_skill_dir`) and read are the baseline.

    PYTHONPATH=. .venv/bin/python benchmarks/remote_skills.py [--skills 20 100] [--repeat 3]

It prints a markdown table (the "Remote MCP skills" section of BENCHMARKS.md); each figure is the median of
`--repeat` runs.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from flue_runtime.mcp import remote_skills
from flue_runtime.mount.disk import load_skill_dir

WORDS = "refund invoice ticket report deploy review schema audit budget survey contract release incident".split()


def generate(root: Path, count: int) -> None:
    rng = random.Random(22)
    for i in range(count):
        name = f"skill-{i:04d}"
        folder = root / name
        folder.mkdir(parents=True)
        description = " ".join(rng.choice(WORDS) for _ in range(30))
        body = "\n".join(" ".join(rng.choice(WORDS) for _ in range(12)) for _ in range(20))
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n{body}\n")
        (folder / "reference.md").write_text(
            "\n".join(" ".join(rng.choice(WORDS) for _ in range(12)) for _ in range(30))
        )


@contextmanager
def http_server(folder: Path) -> Iterator[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "flue_build", "mcp", str(folder), "--http", "127.0.0.1:0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        for line in process.stderr:
            found = re.search(r"at (http://127\.0\.0\.1:\d+/mcp)", line)
            if found:
                threading.Thread(target=process.stderr.read, daemon=True).start()
                yield found.group(1)
                return
        raise RuntimeError("the server stopped before serving")
    finally:
        process.terminate()
        process.wait(timeout=30)


def measure(folder: Path, target: object, repeat: int) -> tuple[float, float]:
    """Median seconds of `remote_skills(target)`, and median seconds of the first read of every support file."""
    mounts, reads = [], []
    for _ in range(repeat):
        started = time.perf_counter()
        skills = remote_skills(target, timeout=300)  # type: ignore[arg-type]
        mounted = time.perf_counter()
        with skills:
            for skill in skills:
                skill.read_bytes("reference.md")
            done = time.perf_counter()
        mounts.append(mounted - started)
        reads.append((done - mounted) / len(skills))
    return statistics.median(mounts), statistics.median(reads)


def from_disk(folder: Path, repeat: int) -> tuple[float, float]:
    mounts, reads = [], []
    names = sorted(p.name for p in folder.iterdir())
    for _ in range(repeat):
        started = time.perf_counter()
        skills = [load_skill_dir(folder / name) for name in names]
        mounted = time.perf_counter()
        for skill in skills:
            skill.read_bytes("reference.md")
        done = time.perf_counter()
        mounts.append(mounted - started)
        reads.append((done - mounted) / len(skills))
    return statistics.median(mounts), statistics.median(reads)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--skills", type=int, nargs="+", default=[20, 100])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    print(f"load average before: {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
    print("| skills | source | mount all (median) | per skill | first read of a support file (median) |")
    print("|---|---|---|---|---|")
    for count in args.skills:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / "skills"
            generate(folder, count)
            rows = [("disk (dev mode, `load_skill_dir`)", from_disk(folder, args.repeat))]
            stdio = [sys.executable, "-m", "flue_build", "mcp", str(folder)]
            rows.append(("`flue-skills mcp` over stdio (process start included)", measure(folder, stdio, args.repeat)))
            with http_server(folder) as url:
                rows.append(("`flue-skills mcp` over HTTP (server running)", measure(folder, url, args.repeat)))
            for source, (mount, read) in rows:
                print(
                    f"| {count} | {source} | {mount * 1000:,.0f} ms | {mount / count * 1000:,.1f} ms | "
                    f"{read * 1000:,.2f} ms |"
                )
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
