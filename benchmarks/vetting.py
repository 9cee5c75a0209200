"""What vetting costs, this tree against a revision: whole skill folders, and eval sets of growing size.

    python benchmarks/vetting.py --against main                    # both parts
    python benchmarks/vetting.py --against main --rounds 12 --skills 400 --only folders

Whole folders: `vet_skill` over every skill of a generated collection (`generate.make_skill_corpus`,
`--skills` of them: the shape `run.py`'s validation benchmark uses), CPU time, the fastest of 3 passes
in each process; `--rounds` processes of each tree, alternated, so a machine's changing load falls on
both alike: the ratio of each round's pair, its median and quartiles.

Eval sets: a skill whose `evals/triggers.json` is a list of 100 KiB, 480 KB or 1 MiB of entries each
wrong twice (`{}`: no `query`, no `should_trigger`), the shape of issue 41's report: `vet_skill`'s CPU
time (the fastest of `--eval-passes`), how many diagnostics it gives and how many bytes `check` would
print of them. Each size in one process per tree, the trees alternated.

The revision is exported with `git archive` into a temporary folder, first on `PYTHONPATH` of its
processes; this tree's processes import this checkout.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The eval sets' sizes, in bytes.
SIZES = (100 * 1024, 480_000, 1024 * 1024)
SKILL_MD = "---\nname: pdf\ndescription: Fill in PDF forms. Use for PDF forms.\n---\nBody.\n"


def eval_set(size: int) -> bytes:
    """A JSON list of about `size` bytes, each entry wrong twice."""
    return b"[\n" + b"{},\n" * (size // 4) + b"{}\n]\n"


def probe_folders(corpus: Path) -> dict[str, float]:
    from flue_runtime.format.skill_folder import vet_skill

    folders = sorted(path for path in corpus.iterdir() if path.is_dir())
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        for folder in folders:
            vet_skill(folder, display=folder.name)
        best = min(best, time.process_time() - start)
    return {"cpu": best}


def probe_eval(size: int, passes: int) -> dict[str, float]:
    from flue_runtime.format.skill_folder import vet_skill

    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp, "pdf")
        (folder / "evals").mkdir(parents=True)
        (folder / "SKILL.md").write_text(SKILL_MD)
        (folder / "evals" / "triggers.json").write_bytes(eval_set(size))
        best = float("inf")
        for _ in range(passes):
            start = time.process_time()
            vetted = vet_skill(folder, display="pdf")
            best = min(best, time.process_time() - start)
    printed = sum(len(d.format().encode()) + 1 for d in vetted.diagnostics)
    return {"cpu": best, "diagnostics": len(vetted.diagnostics), "printed": printed}


def run_probe(tree: Path, *args: str) -> dict[str, float]:
    environ = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, __file__, "--probe", *args], env=environ, cwd=tree, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def export(revision: str, into: Path) -> Path:
    """The tree of `revision`, written into `into`."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", revision], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def folders_part(trees: dict[str, Path], corpus: Path, rounds: int) -> None:
    times: dict[str, list[float]] = {label: [] for label in trees}
    for _ in range(rounds):
        for label, tree in trees.items():
            times[label].append(run_probe(tree, "folders", str(corpus))["cpu"])
    labels = list(trees)
    print("| tree | fastest | median |")
    print("|---|---|---|")
    for label in labels:
        print(f"| {label} | {min(times[label]):.3f} s | {statistics.median(times[label]):.3f} s |")
    if len(labels) == 2:
        ratios = sorted(new / old for old, new in zip(times[labels[0]], times[labels[1]], strict=True))
        quartiles = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
        print(
            f"\nper-round ratio {labels[1]} / {labels[0]}: median {statistics.median(ratios):.3f} "
            f"(quartiles {quartiles[0]:.3f} and {quartiles[2]:.3f}, {rounds} rounds)"
        )


def eval_part(trees: dict[str, Path], passes: dict[str, int]) -> None:
    print("| eval set | " + " | ".join(f"{label}: CPU, diagnostics, printed" for label in trees) + " |")
    print("|---|" + "---|" * len(trees))
    for size in SIZES:
        cells = []
        for label, tree in trees.items():
            found = run_probe(tree, "eval", str(size), str(passes[label]))
            cells.append(f"{found['cpu']:.2f} s, {found['diagnostics']:,.0f}, {found['printed'] / 1e3:,.1f} kB")
        print(f"| {size:,} bytes | " + " | ".join(cells) + " |", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", help="a git revision whose vetting is timed beside this tree's")
    parser.add_argument("--rounds", type=int, default=8, help="processes of each tree for whole folders (default 8)")
    parser.add_argument("--skills", type=int, default=400, help="skills in the generated collection (default 400)")
    parser.add_argument("--eval-passes", type=int, default=3, help="passes of each eval set, this tree (default 3)")
    parser.add_argument("--only", choices=("folders", "eval"), help="one part only")
    parser.add_argument("--probe", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.probe:
        kind, *rest = args.probe
        found = probe_folders(Path(rest[0])) if kind == "folders" else probe_eval(int(rest[0]), int(rest[1]))
        print(json.dumps(found))
        return 0

    sys.path.insert(0, str(ROOT / "benchmarks"))
    import generate

    with tempfile.TemporaryDirectory(prefix="flue-vetting-") as temp:
        trees: dict[str, Path] = {}
        if args.against:
            trees[args.against] = export(args.against, Path(temp, "against"))
        trees["this tree"] = ROOT
        if args.only != "eval":
            corpus = generate.make_skill_corpus(Path(temp, "corpus"), skills=args.skills)
            print(f"Whole folders: {corpus.skills} skills, {corpus.files:,} files, {corpus.bytes / 1e6:.1f} MB\n")
            folders_part(trees, corpus.root, args.rounds)
        if args.only != "folders":
            print("\nEval sets (`evals/triggers.json`, every entry wrong twice):\n")
            # The revision's vetting may be quadratic: one pass of it is enough.
            eval_part(trees, {label: 1 if label == args.against else args.eval_passes for label in trees})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
