"""What one reply of a remote Skills server costs the client in memory, by the JSON it holds (issue 40 item 9a).

A real `MCPServer` (the official SDK's, `tests/support/scripted_mcp.py`) answers `skills/list` with one honest entry
that carries SIZE bytes of JSON in an extra key: an array of zeros (`[0,0,...]`, the issue's case), an array of
empty objects, an array of short strings, one long string; and, for comparison, an honest listing of that size (many
entries, each with its files and digests). `remote_skills` runs in a child process of its own, once warmed up (its
imports and a first client made), and reports how far its peak RSS grew above its RSS then (the peak reset through
`/proc/self/clear_refs`, so a peak reached while importing hides no growth) and what it said.
Over stdio (the server a child process), over streamable HTTP (the server on 127.0.0.1, each reply a JSON body) and
over HTTP as server-sent events (the same server behind `tests/support/event_streams.py`'s proxy).

    PYTHONPATH=.:tests .venv/bin/python benchmarks/remote_replies.py [--mib 16] [--transports stdio http events]

It prints a markdown table (BENCHMARKS.md, "A reply's memory"): the reply's bytes, the growth, and their ratio.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from support.peak import FROM_HERE, GROWN
from support.scripted_mcp import TRANSPORTS, entry, honest_listing, served, serving, skill_md, write_config

MiB = 1024 * 1024

CLIENT = (
    """
import json, sys, time, warnings
args = json.loads(sys.argv[1])
from flue_runtime.mcp import remote_skills
warnings.simplefilter("ignore")
try:
    remote_skills([sys.executable, "-c", "raise SystemExit(1)"], timeout=10)
except Exception:
    pass
"""
    + FROM_HERE
    + """started = time.monotonic()
try:
    with remote_skills(args["target"], timeout=300) as skills:
        said = {"outcome": f"{len(skills)} mounted"}
except Exception as exc:
    said = {"outcome": type(exc).__name__}
said["grew"] = """
    + GROWN
    + """
said["seconds"] = time.monotonic() - started
print(json.dumps(said))
"""
)


def listing(kind: str, size: int) -> list[dict[str, Any]]:
    files = {"SKILL.md": skill_md("refunds", "Handle refunds.")}
    one = entry("refunds", files)
    extra = {
        "array of zeros": lambda: [0] * (size // 2),
        "array of empty objects": lambda: [{}] * (size // 3),
        "array of short strings": lambda: ["ab"] * (size // 5),
        "one string": lambda: "a" * size,
    }
    if kind == "honest listing":
        return honest_listing(size)
    return [{**one, "x": extra[kind]()}]


def measure(kind: str, transport: str, size: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        page = listing(kind, size)
        config = write_config(
            Path(folder), [page], served({"SKILL.md": skill_md("refunds", "Handle refunds.")}, "refunds")
        )
        reply = len(json.dumps(page, separators=(",", ":")))
        with serving(config, transport) as target:
            done = subprocess.run(
                [sys.executable, "-c", CLIENT, json.dumps({"target": target})],
                capture_output=True,
                text=True,
                timeout=600,
                stdin=subprocess.DEVNULL,
            )
        said = json.loads(done.stdout.strip().splitlines()[-1])
        return {"reply": reply, **said}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=16)
    parser.add_argument("--transports", nargs="+", default=list(TRANSPORTS), choices=TRANSPORTS)
    args = parser.parse_args()
    kinds = ["array of zeros", "array of empty objects", "array of short strings", "one string", "honest listing"]
    print("| transport | the reply holds | reply | client grew | ratio | outcome | seconds |")
    print("|---|---|---|---|---|---|---|")
    for transport in args.transports:
        for kind in kinds:
            said = measure(kind, transport, args.mib * MiB)
            print(
                f"| {transport} | {kind} | {said['reply'] / MiB:.1f} MiB | {said['grew'] / MiB:,.0f} MiB | "
                f"{said['grew'] / said['reply']:.1f}× | {said['outcome']} | {said['seconds']:.1f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
