"""Child process of the validation benchmark: check every skill folder of a corpus, the way one tool does.

    python check_corpus.py frontmatter|vet|floor|skills-ref CORPUS

- `frontmatter`: `check`'s per-skill work on the SKILL.md, as `vet_skill` does it: the safe
  read, the frontmatter parsed, the schema's rules, the name/folder rule (`check_skill_md`).
- `vet`: the whole folder, as `check` and the build do (every file read, hashed, scanned
  for secrets, plus the SKILL.md rules): `vet_skill`.
- `floor`: what any whole-folder vetting must do, with no rule applied (see `floor_check`).
- `skills-ref`: the reference validator, `skills_ref.validate(folder)`.

The imports and a few folders run first, untimed; then three timed passes over every
folder (the page cache is warm for both tools alike), of which the median counts.
Prints one JSON object: seconds (wall) and cpu_seconds (this process's CPU time, less
disturbed by other work on a shared machine), skills, and how many folders had a problem.
"""

import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

PASSES = 3


def floor_check() -> Callable[[Path], bool]:
    """The least any whole-folder vetting does, with no rule applied: list every folder, `lstat` every
    entry, read every file (open, fstat, read, close), hash it, search it for the PEM marker in each
    encoding the key scan knows and, in text, for runs of token characters (the one `translate` and
    `find` the secrets scan makes); then the SKILL.md check. Its cost against `frontmatter` bounds the ratio."""
    import hashlib
    import os
    import stat

    from flue_runtime.format.secrets import _RUN, _RUN_TABLE
    from flue_runtime.format.validate import check_skill_md

    markers = ["-----BEGIN".encode(codec) for codec in ("latin-1", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")]
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK

    def check(folder: Path) -> bool:
        pending, skill_md = [str(folder)], b""
        while pending:
            current = pending.pop()
            with os.scandir(current) as entries:
                names = sorted(entry.name for entry in entries)
            for name in names:
                path = os.path.join(current, name)
                info = os.lstat(path)
                if stat.S_ISDIR(info.st_mode):
                    pending.append(path)
                    continue
                fd = os.open(path, flags)
                try:
                    os.fstat(fd)
                    data = os.read(fd, info.st_size + 1)
                    while chunk := os.read(fd, 1 << 20):
                        data += chunk
                finally:
                    os.close(fd)
                hashlib.sha256(data).hexdigest()
                text = b"\0" not in data
                for marker in markers[:1] if text else markers:
                    data.find(marker)
                if text:
                    data.translate(_RUN_TABLE).find(_RUN)
                if name == "SKILL.md" and current == str(folder):
                    skill_md = data
        return bool(check_skill_md(skill_md, f"{folder.name}/SKILL.md", folder.name).diagnostics)

    return check


def main() -> None:
    mode, corpus = sys.argv[1], Path(sys.argv[2])
    folders = sorted(p for p in corpus.iterdir() if p.is_dir())
    if mode == "frontmatter":
        from flue_runtime.format.safe_read import read_regular
        from flue_runtime.format.validate import check_skill_md

        def check(folder: Path) -> bool:
            data = read_regular(folder / "SKILL.md").data or b""
            return bool(check_skill_md(data, f"{folder.name}/SKILL.md", folder.name).diagnostics)

    elif mode == "vet":
        from flue_runtime.format.skill_folder import vet_skill

        def check(folder: Path) -> bool:
            return bool(vet_skill(folder).diagnostics)

    elif mode == "floor":
        check = floor_check()

    else:
        from skills_ref import validate

        def check(folder: Path) -> bool:
            return bool(validate(folder))

    for folder in folders[:5]:  # imports and first-use caches: not per-skill work
        check(folder)
    passes = []
    for _ in range(PASSES):  # the median pass: one slow moment of a shared machine does not decide it
        start, cpu = time.perf_counter(), time.process_time()
        problems = sum(check(folder) for folder in folders)
        passes.append((time.perf_counter() - start, time.process_time() - cpu))
    seconds = statistics.median(wall for wall, _ in passes)
    cpu_seconds = statistics.median(cpu for _, cpu in passes)
    print(json.dumps({"seconds": seconds, "cpu_seconds": cpu_seconds, "skills": len(folders), "problems": problems}))


main()
