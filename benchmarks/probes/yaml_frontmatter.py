"""Child process: read every skill's frontmatter from disk with a YAML parser, as other runtimes do.

    python yaml_frontmatter.py SKILLS_DIR [--c-loader]

Lists SKILLS_DIR, reads each `<skill>/SKILL.md`, splits off the frontmatter, parses it
with `yaml.safe_load` (PyYAML's pure-Python SafeLoader; --c-loader: the libyaml
CSafeLoader) and renders the same catalog lines flue renders.
"""

import time

_T0 = time.perf_counter()

import os  # noqa: E402
import sys  # noqa: E402


def main() -> None:
    folder = sys.argv[1]
    import yaml

    loader = yaml.CSafeLoader if "--c-loader" in sys.argv else yaml.SafeLoader
    t_import = time.perf_counter()
    entries = []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name, "SKILL.md")
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        if not text.startswith("---"):
            continue
        end = text.index("\n---", 3)
        fields = yaml.load(text[3:end], Loader=loader)
        entries.append((fields["name"], fields["description"]))
    lines = [f"- **{name}** — {' '.join(str(desc).split())}" for name, desc in entries]
    text = "\n".join(lines)
    t_done = time.perf_counter()
    import json

    from rss import peak_rss_kib  # after the timings: not part of what is measured

    print(
        json.dumps(
            {
                "skills": len(entries),
                "catalog_chars": len(text),
                "import_ms": (t_import - _T0) * 1e3,
                "total_ms": (t_done - _T0) * 1e3,
                "rss_kib": peak_rss_kib(),
            }
        )
    )


main()
