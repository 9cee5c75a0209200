"""Recall and false alarms of the secrets scan, against detect-secrets: a planted set, and real public skills.

    python benchmarks/secrets_recall.py                              # the planted set
    python benchmarks/secrets_recall.py --corpus DIR [DIR ...]       # and every file under each DIR
    python benchmarks/secrets_recall.py --corpus DIR --show          # ... listing every file either tool flags

Needs `cryptography` (the planted keys are real, made for the run; it is in the `test` extra)
and `detect-secrets` (`pip install detect-secrets`; without it its columns are left out).

The planted set is `fixtures/hostile/planted.py`: real private keys of eight kinds in every
container the scan knows (comment and quote prefixes, string literals and their
concatenation, JSON, double-escaped JSON, notebook cells, CR and CRLF line ends, UTF-16/32,
base64), each provider's token format at full length in five kinds of file, and what is
neither: placeholders and documented examples, key headers quoted in prose. Each is one
file; a tool "finds" a file when it reports anything in it. flue-skills is its content
scan (`scan_content`, what the vetting runs on every file); detect-secrets runs twice: with
its default settings (every plugin, entropy and keyword ones included: what `detect-secrets
scan` does) and with its format plugins only (private keys and the same providers' tokens).

A corpus is any folder of files, such as public skill collections; the tree is not
committed. For example (a shallow clone each):

    git clone --depth 1 https://github.com/anthropics/skills /tmp/public/anthropics-skills
    git clone --depth 1 https://github.com/openai/skills /tmp/public/openai-skills
    git clone --depth 1 https://github.com/obra/superpowers /tmp/public/superpowers

Nothing in a public collection is a live credential (they are published), so every file
flagged there is a false alarm unless the list (`--show`) shows a real one; the table
counts files flagged, the list says what each was.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "fixtures" / "hostile")]

import planted  # noqa: E402

from flue_runtime.format.secrets import is_secret_file, scan_content  # noqa: E402

#: detect-secrets plugins that look for a format, as ours does (no entropy, no keywords).
FORMAT_PLUGINS = [
    "PrivateKeyDetector",
    "AWSKeyDetector",
    "GitHubTokenDetector",
    "SlackDetector",
    "StripeDetector",
    "OpenAIDetector",
]
#: Extensions of the contexts, so each tool reads a planted file as the kind of file it is.
SUFFIX = {".env line": ".env", "JSON": ".json", "YAML": ".yaml", "Python": ".py", "markdown": ".md"}


@dataclass
class Planted:
    """One planted file: its class, what it is, its bytes, and whether it holds a secret."""

    kind: str
    label: str
    data: bytes
    secret: bool
    suffix: str = ".txt"


def planted_set() -> list[Planted]:
    keys = planted.real_keys()
    found: list[Planted] = []
    for kind, pem in keys.items():
        for container, wrap in planted.CONTAINERS.items():
            if container == "plain":
                found.append(Planted("private key, plain PEM", kind, pem.encode(), True, ".pem.txt"))
            elif container in planted.ASCII_ONLY:
                found.append(Planted("private key in base64", f"{kind} / {container}", wrap(pem).encode(), True))
            else:
                suffix = ".ipynb" if container == "notebook cell" else ".txt"
                found.append(
                    Planted("private key in a container", f"{kind} / {container}", wrap(pem).encode(), True, suffix)
                )
        for container in ("plain", "notebook cell", "shell comment (# )"):
            for encoding in ("utf-16", "utf-16-be", "utf-32"):
                data = planted.CONTAINERS[container](pem).encode(encoding)
                found.append(Planted("private key in UTF-16/32", f"{kind} / {container} / {encoding}", data, True))
    for kind, make in planted.TOKENS.items():
        for context, wrap in planted.TOKEN_CONTEXTS.items():
            for seed in range(3):
                data = wrap(make(random.Random(f"{kind}{seed}"))).encode()
                found.append(Planted("credential token", f"{kind} / {context}", data, True, SUFFIX[context]))
    for label, text in planted.PLACEHOLDERS.items():
        for context, wrap in planted.TOKEN_CONTEXTS.items():
            found.append(
                Planted(
                    "placeholder or documented example",
                    f"{label} / {context}",
                    wrap(text.strip()).encode(),
                    False,
                    SUFFIX[context],
                )
            )
    for label, text in planted.PROSE.items():
        for container in ("plain", "markdown quote (> )", "shell comment (# )", "notebook cell"):
            data = planted.CONTAINERS[container](text).encode()
            found.append(Planted("key header quoted in prose", f"{label} / {container}", data, False, ".md"))
    return found


# --- the tools -------------------------------------------------------------------------------


@dataclass
class Tool:
    name: str
    #: A file's path → what the tool reports in it (empty: nothing).
    scan: Callable[[Path], list[str]]
    seconds: float = 0.0

    def __call__(self, path: Path) -> list[str]:
        start = time.process_time()
        try:
            return self.scan(path)
        finally:
            self.seconds += time.process_time() - start


def ours(path: Path) -> list[str]:
    with open(path, "rb") as handle:  # one read, as the vetting's (it streams; these files are small)
        found = scan_content(handle.read())
    return [] if found is None else [f"{found.code} {found.what}" + (f" (line {found.line})" if found.line else "")]


def detect_secrets_tools() -> list[Tool]:
    try:
        from detect_secrets import SecretsCollection
        from detect_secrets.settings import default_settings, transient_settings
    except ImportError:
        print("detect-secrets is not installed (pip install detect-secrets): its columns are left out", file=sys.stderr)
        return []

    def scanner(settings: Callable[[], object]) -> Callable[[Path], list[str]]:
        def scan(path: Path) -> list[str]:
            with settings():  # type: ignore[attr-defined]
                secrets = SecretsCollection()
                secrets.scan_file(str(path))
            return sorted({secret.type for found in secrets.data.values() for secret in found})

        return scan

    formats = {"plugins_used": [{"name": name} for name in FORMAT_PLUGINS]}
    from importlib.metadata import version

    release = version("detect-secrets")
    return [
        Tool(f"detect-secrets {release}, default settings", scanner(default_settings)),
        Tool(f"detect-secrets {release}, format plugins only", scanner(lambda: transient_settings(formats))),
    ]


# --- runs ------------------------------------------------------------------------------------


@dataclass
class Row:
    kind: str
    secret: bool
    files: int = 0
    found: dict[str, int] = field(default_factory=dict)


def run_planted(tools: list[Tool], work: Path) -> tuple[list[Row], list[dict[str, object]]]:
    rows: dict[str, Row] = {}
    misses: list[dict[str, object]] = []
    for index, item in enumerate(planted_set()):
        path = work / f"planted-{index:04d}{item.suffix}"
        path.write_bytes(item.data)
        row = rows.setdefault(item.kind, Row(item.kind, item.secret))
        row.files += 1
        for tool in tools:
            flagged = bool(tool(path))
            row.found[tool.name] = row.found.get(tool.name, 0) + flagged
            if flagged != item.secret:
                misses.append({"tool": tool.name, "kind": item.kind, "label": item.label, "flagged": flagged})
    return list(rows.values()), misses


def corpus_files(root: Path) -> Iterator[Path]:
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for name in sorted(names):
            path = Path(folder, name)
            if path.is_file() and not path.is_symlink():
                yield path


def run_corpus(tools: list[Tool], root: Path) -> dict[str, object]:
    flagged: dict[str, dict[str, list[str]]] = {}
    counts = {tool.name: 0 for tool in tools}
    by_name: list[str] = []
    files = size = 0
    for path in corpus_files(root):
        files += 1
        size += path.stat().st_size
        rel = str(path.relative_to(root))
        if is_secret_file(path.name, path.parent.name):
            by_name.append(rel)
        for tool in tools:
            found = tool(path)
            if found:
                counts[tool.name] += 1
                flagged.setdefault(rel, {})[tool.name] = found
    skills = sum(1 for _ in root.rglob("SKILL.md"))
    return {
        "root": str(root),
        "files": files,
        "bytes": size,
        "skills": skills,
        "flagged": counts,
        "by_name": by_name,
        "findings": flagged,
    }


def percent(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "0/0"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", nargs="*", type=Path, default=[], help="folders of public skills to scan")
    parser.add_argument(
        "--show", action="store_true", help="list every corpus file a tool flags, and each planted miss"
    )
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--without-baseline", action="store_true", help="run flue-skills' scan alone")
    args = parser.parse_args(argv)

    tools = [Tool("flue-skills", ours), *([] if args.without_baseline else detect_secrets_tools())]
    with tempfile.TemporaryDirectory(prefix="flue-secrets-recall-") as work:
        rows, misses = run_planted(tools, Path(work))
    names = [tool.name for tool in tools]
    print("## Planted set\n")
    print("| class | files | " + " | ".join(names) + " |")
    print("|---|---|" + "---|" * len(names))
    for row in rows:
        what = "found (recall)" if row.secret else "flagged (false alarms)"
        cells = " | ".join(percent(row.found.get(name, 0), row.files) for name in names)
        print(f"| {row.kind}: {what} | {row.files} | {cells} |")
    if args.show:
        for miss in misses:
            print(f"- {miss['tool']}: {'flagged' if miss['flagged'] else 'missed'} {miss['kind']}: {miss['label']}")
    corpora = []
    for root in args.corpus:
        for tool in tools:
            tool.seconds = 0.0
        result = run_corpus(tools, root)
        result["cpu_seconds"] = {tool.name: round(tool.seconds, 3) for tool in tools}
        corpora.append(result)
        print(f"\n## {root}: {result['skills']} skills, {result['files']} files, {int(result['bytes']) / 1e6:.1f} MB\n")  # type: ignore[call-overload]
        print("| tool | files flagged | CPU time |")
        print("|---|---|---|")
        for tool in tools:
            print(f"| {tool.name} | {result['flagged'][tool.name]} | {tool.seconds:.2f} s |")  # type: ignore[index]
        print(f"| flue-skills, refused by name | {len(result['by_name'])} | |")  # type: ignore[arg-type]
        if args.show:
            for rel, found in result["findings"].items():  # type: ignore[attr-defined]
                print(f"- {rel}: " + "; ".join(f"{tool}: {', '.join(what)}" for tool, what in found.items()))
            for rel in result["by_name"]:  # type: ignore[attr-defined]
                print(f"- {rel}: refused by name")
    if args.json:
        planted_rows = [{"class": r.kind, "secret": r.secret, "files": r.files, "found": r.found} for r in rows]
        args.json.write_text(json.dumps({"planted": planted_rows, "misses": misses, "corpora": corpora}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
