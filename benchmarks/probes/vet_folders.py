"""Child process of `benchmarks/vetting_against.py`: one tree's vetting and content scan, timed.

    PYTHONPATH=TREE python vet_folders.py FOLDERS.json CONTENTS_DIR [--codes]

The flue_runtime on PYTHONPATH vets every folder FOLDERS.json lists (`vet_skill`, what `check`, the
builds, dev mode and workspace skills do), three passes of which the fastest counts, then reads each
file of CONTENTS_DIR through the content scan every vetting read runs (`inspect_bytes(..., scan=True)`:
the secrets scan, and the hidden-text scan where the tree has one), three times each, the fastest
counting. Prints one JSON object: `tree` (where flue_runtime came from), `vet` (CPU seconds), `scan`
(CPU seconds per content file) and, with `--codes`, each folder's diagnostics as `[code, severity]`.
"""

import json
import sys
import time
from pathlib import Path

PASSES = 3


def main() -> int:
    import flue_runtime
    from flue_runtime.format.safe_read import inspect_bytes
    from flue_runtime.format.skill_folder import vet_skill

    folders = [Path(folder) for folder in json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))]
    contents = sorted(Path(sys.argv[2]).iterdir())
    codes = {}
    for folder in folders[:20]:  # warm: imports, caches, the page cache
        vet_skill(folder, display=folder.name)
    best = float("inf")
    for number in range(PASSES):
        start = time.process_time()
        for folder in folders:
            vetted = vet_skill(folder, display=folder.name)
            if number == 0 and "--codes" in sys.argv:
                codes[str(folder)] = sorted([d.code, str(d.severity)] for d in vetted.diagnostics)
        best = min(best, time.process_time() - start)
    scans = {}
    for path in contents:
        data = path.read_bytes()
        fastest = float("inf")
        for _ in range(PASSES):
            start = time.process_time()
            inspect_bytes(data, scan=True)
            fastest = min(fastest, time.process_time() - start)
        scans[path.name] = fastest
    print(json.dumps({"tree": flue_runtime.__file__, "vet": best, "scan": scans, "codes": codes}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
