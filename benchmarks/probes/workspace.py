"""Child process of the turn-overhead benchmark: one prompt's workspace discovery, first and later.

    python workspace.py SANDBOX [--rounds N]

The first discovery in a process vets every skill folder (reads, hashes and scans every
file, checks every SKILL.md); later ones find the folders unchanged (their `lstat`s) and
keep the verdicts. Prints one JSON object: skills found, first_ms, then_ms (median).
"""

import argparse
import json
import statistics
import time

from flue_runtime import LocalSandbox
from flue_runtime.agents.workspace import find_workspace_skills


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sandbox")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    sandbox = LocalSandbox(args.sandbox)
    start = time.perf_counter()
    found, skipped = find_workspace_skills(sandbox)
    first = time.perf_counter() - start
    assert not skipped, skipped[:3]
    then = []
    for _ in range(args.rounds):
        start = time.perf_counter()
        again, _ = find_workspace_skills(sandbox)
        then.append(time.perf_counter() - start)
        assert len(again) == len(found)
    print(json.dumps({"skills": len(found), "first_ms": first * 1e3, "then_ms": statistics.median(then) * 1e3}))


main()
