"""Vetting and the content scan of this tree against a git revision's, alternated; and what each says of a corpus.

    python benchmarks/vetting_against.py --against main --corpus /tmp/public/anthropics-skills --corpus ...
    python benchmarks/vetting_against.py --against main --generated 400 --rounds 12

The revision's `flue_runtime` is exported (`git archive`) into a temporary folder; each round runs
`probes/vet_folders.py` once with each tree on PYTHONPATH, in turns (which goes first alternates), so
a shared machine's changing load falls on both alike. A probe vets every skill folder of the corpora
(`vet_skill`, the fastest of three passes) and reads each kind of content through the content scan
every vetting read runs (`inspect_bytes(..., scan=True)`, 4 MiB of each kind: the secrets benchmark's
kinds, plus prose with typography and emoji, CJK text, and the hidden-text hostile cases). Each
measure's figure is the median over the rounds of this tree's CPU time divided by the revision's
(with the quartiles), and each tree's throughput in its fastest round.

With `--corpus`, it also says what each tree reports of every skill of each collection, and how many
skills gain an error or a warning in this tree (issue 41: "no skill gains an error and at most 0.5%
gain a warning"), by code. `--generated N` adds `benchmarks/generate.py`'s collection of N skills
(seeded), the corpus earlier vetting benchmarks use.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

MiB = 1 << 20
NOISE = {".git", "node_modules", ".venv", "__pycache__"}


def skill_folders(corpus: Path) -> list[Path]:
    found = []
    for folder, names, files in os.walk(corpus):
        names[:] = sorted(name for name in names if name not in NOISE)
        if "SKILL.md" in files:
            found.append(Path(folder))
    return found


def contents(size: int) -> dict[str, bytes]:
    """The secrets benchmark's kinds of content, and those the hidden-text scan adds, `size` bytes each."""
    import secrets_throughput

    def repeat(text: str) -> bytes:
        piece = text.encode()
        return (piece * (size // len(piece) + 1))[:size]

    tags = "".join(chr(0xE0000 + ord(c)) for c in "a")
    made = {
        **secrets_throughput.contents(size),
        "prose with typography and emoji": repeat(
            "The model \u2014 \u201cquoted\u201d, it\u2019s caf\u00e9 \u2026 \u2192 \u2713 and more words here.\n" * 40
            + "Team \U0001f468\u200d\U0001f469\u200d\U0001f467, coder \U0001f9d1\u200d\U0001f4bb.\n"
        ),
        "CJK text": repeat(
            "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8\u3001\u4e2d\u6587\uff0c\u6807\u70b9\u3002\n"
        ),
        "hostile: a zero-width space every other character": repeat("a\u200b"),
        "hostile: a tag character every other character": repeat("x" + tags),
        "hostile: nothing but family emoji": repeat("\U0001f468\u200d\U0001f469\u200d\U0001f467 "),
    }
    return made


def export(revision: str, into: Path) -> Path:
    """`flue_runtime` at `revision`, in a folder of its own."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", revision, "flue_runtime"], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def probe(tree: Path, folders: Path, kinds: Path, codes: bool) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, str(HERE / "probes" / "vet_folders.py"), str(folders), str(kinds)]
    done = subprocess.run(command + (["--codes"] if codes else []), env=env, capture_output=True, text=True, check=True)
    found: dict[str, object] = json.loads(done.stdout)
    assert str(found["tree"]).startswith(str(tree)), found["tree"]
    return found


def ratio_row(name: str, mine: list[float], theirs: list[float], size: float) -> str:
    ratios = sorted(a / b for a, b in zip(mine, theirs))
    quartiles = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
    speed = (
        (f"{size / min(theirs):,.0f} / {size / min(mine):,.0f}") if size else f"{min(theirs):.3f} / {min(mine):.3f} s"
    )
    return f"| {name} | {speed} | {quartiles[1]:.3f} ({quartiles[0]:.3f} to {quartiles[2]:.3f}) |"


def gains(before: dict[str, list[list[str]]], after: dict[str, list[list[str]]], folders: list[Path]) -> str:
    """Skills that gain an error, and a warning, in this tree, with the codes gained."""
    errors, warnings, codes = 0, 0, Counter[str]()
    for folder in folders:
        old, new = Counter(map(tuple, before[str(folder)])), Counter(map(tuple, after[str(folder)]))
        gained = new - old
        errors += any(severity == "error" for _, severity in gained)
        warnings += any(severity == "warning" for _, severity in gained)
        codes.update({f"{code} {severity}" for code, severity in gained})
    share = 100 * warnings / max(len(folders), 1)
    listed = ", ".join(f"{code}: {count}" for code, count in sorted(codes.items())) or "none"
    return f"{len(folders):,} | {errors} | {warnings} ({share:.2f}%) | {listed}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", required=True, help="the git revision to compare with (main)")
    parser.add_argument("--corpus", type=Path, action="append", default=[], help="a folder of skills (repeat)")
    parser.add_argument("--generated", type=int, default=0, help="add generate.py's collection of N skills")
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--size", type=float, default=4, help="MiB of each kind of content (default 4)")
    args = parser.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="flue-vetting-against-"))
    theirs = export(args.against, work / "revision")
    collections = {corpus.name: skill_folders(corpus) for corpus in args.corpus}
    if args.generated:
        import generate

        generate.make_skill_corpus(work / "generated", skills=args.generated)
        collections[f"generated ({args.generated} skills)"] = skill_folders(work / "generated")
    folders = [folder for found in collections.values() for folder in found]
    listing = work / "folders.json"
    listing.write_text(json.dumps([str(folder) for folder in folders]), encoding="utf-8")
    kinds_dir = work / "contents"
    kinds_dir.mkdir()
    made = contents(int(args.size * MiB))
    names = {}
    for number, (name, data) in enumerate(made.items()):
        (kinds_dir / f"{number:02d}").write_bytes(data)
        names[f"{number:02d}"] = name
    size_mb = sum(folder_size(folder) for folder in folders) / 1e6

    runs: dict[str, list[dict[str, object]]] = {"this tree": [], args.against: []}
    trees = {"this tree": ROOT, args.against: theirs}
    for number in range(args.rounds):
        order = ["this tree", args.against] if number % 2 else [args.against, "this tree"]
        for label in order:
            runs[label].append(probe(trees[label], listing, kinds_dir, codes=number == 0))
        print(f"round {number + 1}/{args.rounds}", file=sys.stderr, flush=True)

    mine, other = runs["this tree"], runs[args.against]
    print(
        f"{len(folders):,} skill folders, {size_mb:,.1f} MB; {args.rounds} rounds; CPU time, this tree ÷ {args.against}\n"
    )
    print(f"| measure | MB/s, {args.against} / this tree | ratio: median (quartiles) |")
    print("|---|---|---|")
    print(
        ratio_row(
            "whole-folder vetting (`vet_skill`), every folder",
            [r["vet"] for r in mine],
            [r["vet"] for r in other],
            size_mb,
        )
    )  # type: ignore[misc]
    for key, name in names.items():
        mb = len(made[name]) / 1e6
        print(ratio_row(f"content scan: {name}", [r["scan"][key] for r in mine], [r["scan"][key] for r in other], mb))  # type: ignore[index]
    if collections:
        print("\n| collection | skills | gain an error | gain a warning | codes gained |\n|---|---|---|---|---|")
        before, after = other[0]["codes"], mine[0]["codes"]
        for name, found in collections.items():
            print(f"| {name} | {gains(before, after, found)} |")  # type: ignore[arg-type]
        print(f"| **all** | {gains(before, after, folders)} |")  # type: ignore[arg-type]
    return 0


def folder_size(folder: Path) -> int:
    total = 0
    for path, names, files in os.walk(folder):
        names[:] = [name for name in names if name not in NOISE]
        total += sum(os.lstat(os.path.join(path, name)).st_size for name in files)
    return total


if __name__ == "__main__":
    raise SystemExit(main())
