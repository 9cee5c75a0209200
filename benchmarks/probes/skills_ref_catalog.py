"""Child process: the reference library's loader, skills-ref's `to_prompt`, over every skill folder.

    python skills_ref_catalog.py SKILLS_DIR

A peer's loader for issue 24's "mounting at least 10x faster than peers' loaders": lists
SKILLS_DIR and hands every folder holding a SKILL.md to `skills_ref.to_prompt`, which reads each
SKILL.md, parses its frontmatter (strictyaml) and renders the `<available_skills>` catalog, what
a host using the reference library does at start-up. Needs skills-ref in the interpreter.
"""

import time

_T0 = time.perf_counter()

import os  # noqa: E402
import sys  # noqa: E402


def main() -> None:
    folder = sys.argv[1]
    from skills_ref import to_prompt

    t_import = time.perf_counter()
    dirs = [
        os.path.join(folder, name)
        for name in sorted(os.listdir(folder))
        if os.path.isfile(os.path.join(folder, name, "SKILL.md"))
    ]
    text = to_prompt(dirs)
    t_done = time.perf_counter()
    import json

    from rss import peak_rss_kib  # after the timings: not part of what is measured

    print(
        json.dumps(
            {
                "skills": text.count("<skill>"),
                "catalog_chars": len(text),
                "import_ms": (t_import - _T0) * 1e3,
                "total_ms": (t_done - _T0) * 1e3,
                "rss_kib": peak_rss_kib(),
            }
        )
    )


main()
