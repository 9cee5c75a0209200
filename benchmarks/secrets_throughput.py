"""Throughput of the secrets scan alone (`scan_content`), in MB/s of CPU time, for each kind of content.

    python benchmarks/secrets_throughput.py                     # this tree's scan
    python benchmarks/secrets_throughput.py --against 34de8a2   # ... and a revision's, alternated with it
    python benchmarks/secrets_throughput.py --size 2 --rounds 3 # 2 MiB of each kind, 3 rounds

Each kind of content (BENCHMARKS.md, "Secrets scan") is made here, seeded, `--size` MiB of it:
prose (the project's own markdown pages), Python (its own modules), random bytes, base64 on
one line and wrapped at 76, lists of hex digests, identifiers of 32+ characters on every line,
URLs and paths, and the hostile cases (nothing but key headers, nothing but `-----BEGIN `,
runs of 42 starting `sk-`, the hostile corpus's `padding: xxx...` lines). With `--against`,
the revision's `flue_runtime/format/secrets.py` is loaded beside this tree's, and the two are
timed in turns, in the same process, so a machine's changing load falls on both alike; the
figure of each is its fastest round (the scan is deterministic: slower rounds are the
machine's noise).
"""

from __future__ import annotations

import argparse
import base64
import importlib.util
import random
import string
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MiB = 1 << 20


def _repeat(piece: bytes, size: int) -> bytes:
    return (piece * (size // max(1, len(piece)) + 1))[:size]


def _files(top: str, suffix: str) -> bytes:
    return b"".join(path.read_bytes() for path in sorted((ROOT / top).rglob(f"*{suffix}")))


def _identifiers(rng: random.Random, size: int) -> bytes:
    alphabet = string.ascii_letters + string.digits + "_"
    out = bytearray()
    while len(out) < size:
        out += ("    " + "".join(rng.choice(alphabet) for _ in range(rng.randrange(32, 60))) + " = None\n").encode()
    return bytes(out[:size])


def _urls(rng: random.Random, size: int) -> bytes:
    out = bytearray()
    while len(out) < size:
        words = "/".join(rng.choice(("docs", "api", "v1", "users", "skills", "refunds", "policy")) for _ in range(5))
        out += f"- see https://example.com/{words}?page={rng.randrange(99)} and src/flue_runtime/{words}.py\n".encode()
    return bytes(out[:size])


def contents(size: int) -> dict[str, bytes]:
    """Each kind of content, `size` bytes of it (seeded: the same bytes every run)."""
    rng = random.Random(20)
    raw = rng.randbytes(size)
    return {
        "prose (markdown)": _repeat(_files("docs", ".md"), size),
        "Python code": _repeat(_files("flue_runtime", ".py"), size),
        "binary (random bytes)": raw,
        "base64 on one line": base64.b64encode(raw)[:size],
        "base64 wrapped at 76": base64.encodebytes(raw)[:size],
        "hex digests, one a line": _repeat(
            b"".join(rng.randbytes(32).hex().encode() + b"\n" for _ in range(4096)), size
        ),
        "identifiers of 32+ characters on every line": _identifiers(rng, size),
        "URLs and paths": _urls(rng, size),
        "hostile: nothing but key headers, one a line": _repeat(b"-----BEGIN RSA PRIVATE KEY-----\n", size),
        "hostile: nothing but `-----BEGIN `": _repeat(b"-----BEGIN ", size),
        "hostile: runs of 42 starting `sk-`": _repeat(b"sk-" + b"a" * 39 + b"\n", size),
        "hostile: the corpus's `padding: xxx...` lines": _repeat(b"  padding: " + b"x" * 44 + b"\n", size),
    }


def load(revision: str) -> Callable[[bytes], object]:
    """`scan_content` of `flue_runtime/format/secrets.py` at `revision` (its imports are this tree's)."""
    source = subprocess.run(
        ["git", "show", f"{revision}:flue_runtime/format/secrets.py"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    folder = Path(tempfile.mkdtemp(prefix="flue-secrets-"))
    path = folder / f"secrets_{revision.replace('-', '_')}.py"
    path.write_bytes(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (dataclasses look their module up there)
    spec.loader.exec_module(module)
    return module.scan_content  # type: ignore[no-any-return]


def timed(scan: Callable[[bytes], object], data: bytes) -> float:
    start = time.process_time()
    scan(data)
    return time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=float, default=8, help="MiB of each kind (default 8)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds; each scan's fastest is kept (default 5)")
    parser.add_argument("--against", help="a git revision whose scan is timed beside this tree's")
    parser.add_argument("--only", help="only the kinds whose name holds this")
    args = parser.parse_args(argv)

    from flue_runtime.format.secrets import scan_content

    scans: dict[str, Callable[[bytes], object]] = {}
    if args.against:
        scans[args.against] = load(args.against)
    scans["this tree"] = scan_content
    made = contents(int(args.size * MiB))
    print("| content | " + " | ".join(scans) + " |")
    print("|---|" + "---|" * len(scans))
    for name, data in made.items():
        if args.only and args.only not in name:
            continue
        best = {label: float("inf") for label in scans}
        for _ in range(args.rounds):
            for label, scan in scans.items():
                best[label] = min(best[label], timed(scan, data))
        cells = " | ".join(f"{len(data) / 1e6 / max(best[label], 1e-9):,.1f}" for label in scans)
        print(f"| {name} | {cells} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
