"""Dump every verdict the flue-skills tree on PYTHONPATH gives, to diff two trees (issue 35: byte-identical).

    .venv/bin/python benchmarks/verdicts.py make CORPORA           # the agreement and hostile corpora, once
    PYTHONPATH=/tmp/before .venv/bin/python benchmarks/verdicts.py dump CORPORA before.txt [--corpus DIR ...]
    PYTHONPATH=/tmp/after .venv/bin/python benchmarks/verdicts.py dump CORPORA after.txt [--corpus DIR ...]
    cmp before.txt after.txt

Folders: the fixtures' skills, the agreement benchmark's mutation corpus and generated collection, every
hostile case (`fixtures/hostile/corpus.py`) and each `--corpus` DIR's skills. For each: every diagnostic of
`check_paths([folder])`, then, for a SKILL.md under 1 MiB, what `frontmatter.parse` reads: the data, each
key's and value's line and column, and its diagnostics.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "fixtures" / "hostile")]


def make(corpora: Path) -> None:
    import corpus
    import generate

    generate.make_mutation_corpus(corpora / "mutations")
    generate.make_skill_corpus(corpora / "collection", skills=1241)
    corpus.make(corpora / "hostile", None)


def folders(corpora: Path, extra: list[Path]) -> list[Path]:
    found: list[Path] = []
    for base in [HERE.parent / "fixtures", corpora / "mutations", corpora / "collection", *extra]:
        for path, names, files in os.walk(base):
            names.sort()
            if "SKILL.md" in files:
                found.append(Path(path))
    hostile = sorted((corpora / "hostile").iterdir())  # every case, SKILL.md or not (some are too deep to walk)
    return found + [case for case in hostile if case not in found]


def dump(corpora: Path, out: Path, extra: list[Path]) -> None:
    from flue_build.cli.commands.check import check_paths
    from flue_runtime.format import frontmatter

    lines = []
    for folder in folders(corpora, extra):
        lines.append(f"== {folder}")
        lines += [str(d) for d in check_paths([folder]).diagnostics]
        skill = folder / "SKILL.md"
        if skill.is_file() and not skill.is_symlink() and skill.stat().st_size < 1 << 20:
            read = frontmatter.parse(skill.read_bytes(), str(skill))
            places = sorted({*read.keys, *read.values}, key=repr)
            spans = {repr(p): (read.key_span(p), read.value_span(p)) for p in places}
            lines.append(json.dumps([read.data, spans, [str(d) for d in read.diagnostics]], ensure_ascii=False))
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{sum(line.startswith('== ') for line in lines)} folders, {frontmatter.__file__} -> {out}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["make", "dump"])
    parser.add_argument("corpora", type=Path)
    parser.add_argument("out", type=Path, nargs="?")
    parser.add_argument("--corpus", type=Path, action="append", default=[], help="a folder of real skills")
    args = parser.parse_args()
    if args.what == "make":
        make(args.corpora)
    elif args.out is None:
        parser.error("dump needs OUT")
    else:
        dump(args.corpora, args.out, args.corpus)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
