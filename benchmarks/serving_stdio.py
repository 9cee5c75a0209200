"""stdio start-up alone, in more interleaved rounds than `serving.py` can afford (issue 33.10).

    .venv/bin/python benchmarks/serving_stdio.py --size 10000 --rounds 4
    .venv/bin/python benchmarks/serving_stdio.py --size 2000 --rounds 5 --json out.json

Each round starts a fresh process of `flue-skills mcp FOLDER`, of the floor (`serving_floor.py`, frontmatter
by PyYAML's pure-Python `SafeLoader`, as recorded) and of the floor with `--c-yaml` (libyaml's
`CSafeLoader`: the stricter floor), the order reversed every other round, and times each to every page of
its first `skills/list` answered (`serving.stdio_start`: wall and the process's CPU; the entries must be the
same for all three). `serving.py` takes one or two such starts at 2,000 and 10,000 skills, too few for a
ratio on a shared machine; this takes only start-up, so more rounds fit. Figures: BENCHMARKS.md, "Serving
over MCP at 10,000 skills".
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

import generate
import serving
from serving import HERE, Server

SERVERS = ("flue", "floor", "floor --c-yaml")


def command(key: str, folder: Path) -> list[str]:
    """The server `key` speaking stdio on `folder`."""
    if key == "flue":
        return [sys.executable, "-m", "flue_build", "mcp", str(folder)]
    return [sys.executable, str(HERE / "serving_floor.py"), str(folder), "stdio", *key.split()[1:]]


def measure(folder: Path, size: int, rounds: int, logs: Path) -> dict[str, dict[str, list[float]]]:
    """Every server started `rounds` times, interleaved: the wall and CPU seconds of each start."""
    small = folder.parent / f"skills-{serving.WARM_UP_SKILLS}"
    serving.warm_up(
        [Server(key, [], logs / "warm-up.log", stdio=command(key, small)) for key in SERVERS], folder.parent
    )
    servers = [Server(key, [], logs / f"{key.replace(' ', '')}.log", stdio=command(key, folder)) for key in SERVERS]
    results: dict[str, dict[str, list[float]]] = {s.key: {"wall_s": [], "cpu_s": []} for s in servers}
    listed: set[str] = set()
    for number in range(rounds):
        for server in servers if number % 2 == 0 else servers[::-1]:
            got = serving.stdio_start(server, size)
            results[server.key]["wall_s"].append(got["seconds"])
            results[server.key]["cpu_s"].append(got["cpu"])
            listed.add(got["entries"])
            print(f"round {number + 1}: {server.key} {got['cpu']:.2f} s CPU, {got['seconds']:.2f} s", file=sys.stderr)
    if len(listed) != 1:
        raise serving.BenchError("the servers listed different entries")
    return results


def report(results: dict[str, dict[str, list[float]]]) -> str:
    """Medians, and flue's CPU over each floor's: of the medians and the median of the rounds' own ratios."""
    lines = [
        "| server | CPU, median | wall, median | flue's CPU ÷ this (medians; rounds' median) |",
        "|---|---|---|---|",
    ]
    for key, figures in results.items():
        cpu, wall = statistics.median(figures["cpu_s"]), statistics.median(figures["wall_s"])
        flue = results["flue"]["cpu_s"]
        by_round = statistics.median(f / c for f, c in zip(flue, figures["cpu_s"]))
        ratio = f"{statistics.median(flue) / cpu:.2f}×; {by_round:.2f}×" if key != "flue" else ""
        lines.append(f"| {key} | {cpu * 1000:,.0f} ms | {wall * 1000:,.0f} ms | {ratio} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=10_000, help="skills in the generated folder (default 10,000)")
    parser.add_argument("--rounds", type=int, default=4, help="fresh starts of each server (default 4)")
    parser.add_argument("--workdir", type=Path, help="keep the folder and logs here (default: a temporary folder)")
    parser.add_argument("--json", type=Path, help="write the raw figures here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        work = args.workdir or Path(scratch)
        folder = work / f"skills-{args.size}"
        if (
            not (folder / generate.skill_name(args.size - 1)).is_dir()
            or (folder / generate.skill_name(args.size)).exists()
        ):
            generate.make_serving_folder(folder, skills=args.size)
        (work / "logs").mkdir(parents=True, exist_ok=True)
        print(f"{args.size} skills, {args.rounds} rounds, load average {os.getloadavg()}", file=sys.stderr)
        results = measure(folder, args.size, args.rounds, work / "logs")
        print(f"load average at the end {os.getloadavg()}", file=sys.stderr)
    print(report(results))
    if args.json:
        args.json.write_text(json.dumps({"skills": args.size, "rounds": args.rounds, "servers": results}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
