"""Child process of the zip-reads benchmark: mount every skill of the pack wheel, activate one, read a file.

    python zip_reads.py        (PYTHONPATH: the flue-skills tree measured, then the wheel itself)

Prints one JSON object, times in ms: mounting (`import flue_runtime` and the module of 1,000 `skill()`
calls, which reads the bundle manifest from the zip), the first activation in the process (skill 5's
instructions and file list), the first read of one of its support files, and the steady-state read of
that file (median of 200 reads, each checked against the manifest's size and SHA-256).
"""

import time

_T0 = time.perf_counter()

import json  # noqa: E402
import statistics  # noqa: E402


def main() -> None:
    import benchpack.agents

    import flue_runtime

    mounted = time.perf_counter()
    ref = benchpack.agents.SKILLS[5]
    start = time.perf_counter()
    chars = len(ref.instructions) + sum(len(path) for path in ref.resources)
    activated = time.perf_counter()
    path = sorted(p for p in ref.resources if p.endswith(".md"))[0]
    size = len(ref.read_bytes(path))
    first_read = time.perf_counter()
    samples = []
    for _ in range(200):
        begin = time.perf_counter()
        ref.read_bytes(path)
        samples.append(time.perf_counter() - begin)
    out = {
        "flue_runtime": flue_runtime.__file__,
        "mount_ms": (mounted - _T0) * 1e3,
        "activate_ms": (activated - start) * 1e3,
        "first_read_ms": (first_read - activated) * 1e3,
        "steady_read_ms": statistics.median(samples) * 1e3,
        "through_first_read_ms": (first_read - _T0) * 1e3,
        "chars": chars,
        "file_bytes": size,
    }
    print(json.dumps(out))


main()
