"""Child process of the validation benchmark: check every skill folder of a corpus, the way one tool does.

    python check_corpus.py frontmatter|vet|skills-ref CORPUS

- `frontmatter`: `check`'s per-skill work on the SKILL.md (read it, parse the frontmatter,
  the schema's rules, the name/folder rule): `check_skill_file`.
- `vet`: the whole folder, as `check` and the build do (every file read, hashed, scanned
  for secrets, plus the SKILL.md rules): `vet_skill`.
- `skills-ref`: the reference validator, `skills_ref.validate(folder)`.

The imports and a few folders run first, untimed; then one timed pass over every folder.
Prints one JSON object: seconds (wall) and cpu_seconds (this process's CPU time, less
disturbed by other work on a shared machine), skills, and how many folders had a problem.
"""

import json
import sys
import time
from pathlib import Path


def main() -> None:
    mode, corpus = sys.argv[1], Path(sys.argv[2])
    folders = sorted(p for p in corpus.iterdir() if p.is_dir())
    if mode == "frontmatter":
        from flue_runtime.format.validate import check_skill_file

        def check(folder: Path) -> bool:
            return bool(check_skill_file(folder / "SKILL.md").diagnostics)

    elif mode == "vet":
        from flue_runtime.format.skill_folder import vet_skill

        def check(folder: Path) -> bool:
            return bool(vet_skill(folder).diagnostics)

    else:
        from skills_ref import validate

        def check(folder: Path) -> bool:
            return bool(validate(folder))

    for folder in folders[:5]:  # imports and first-use caches: not per-skill work
        check(folder)
    start, cpu = time.perf_counter(), time.process_time()
    problems = sum(check(folder) for folder in folders)
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    print(json.dumps({"seconds": seconds, "cpu_seconds": cpu_seconds, "skills": len(folders), "problems": problems}))


main()
