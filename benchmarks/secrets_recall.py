"""Recall and false alarms of the secrets scan, against detect-secrets and trufflehog3: a planted set, and real
public skills.

    python benchmarks/secrets_recall.py                              # the planted set
    python benchmarks/secrets_recall.py --corpus DIR [DIR ...]       # and every file under each DIR
    python benchmarks/secrets_recall.py --corpus DIR --show          # ... listing every file either tool flags

Needs `cryptography` (the planted keys are real, made for the run; it is in the `test` extra),
`detect-secrets` (`pip install detect-secrets`) and `trufflehog3` (`pip install trufflehog3`, run as its
command over each folder at once); without either, its columns are left out. They need not be in the
project's environment: a venv holding them (and cryptography, PyYAML) runs this file, flue-skills
imported from the checkout.

The planted set is `fixtures/hostile/planted.py`: real private keys of eight kinds in every
container the scan knows (comment and quote prefixes, string literals and their
concatenation, JSON, double-escaped JSON, notebook cells, CR and CRLF line ends, UTF-16/32,
base64), each provider's token format at full length in five kinds of file, and what is
neither: placeholders and documented examples, key headers quoted in prose. Each is one
file; a tool "finds" a file when it reports anything in it. flue-skills is its content
scan (`scan_content`, what the vetting runs on every file); detect-secrets runs twice: with
its default settings (every plugin, entropy and keyword ones included: what `detect-secrets
scan` does) and with its format plugins only (private keys and the same providers' tokens);
trufflehog3 twice: with its defaults (patterns and entropy) and with its patterns only (`--no-entropy`).
Issue 32's cases have rows of their own: keys in the containers it names, tokens where it names
them (a URL, after punctuation, base64, `\\/`), the formats it adds, a placeholder word inside a
random body; credential files by name and `.env` templates are judged by flue-skills' name rules
too (the others judge content only).

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
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "fixtures" / "hostile")]

import planted  # noqa: E402

from flue_runtime.format.secrets import (  # noqa: E402
    is_env_template,
    is_secret_file,
    scan_content,
    template_value,
)

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
#: How a planted file is named when only its content matters (its suffix says what kind of file it is).
UNNAMED = "planted."
#: Issue 32: the containers, token formats and credential files by name the scan did not see before.
NEW_CONTAINERS = {
    "HTML, <br> between lines",
    "HTML, one <div> a line",
    "JSON array of its lines",
    "URL-encoded",
    "form-encoded",
    "PowerShell `n",
    "numbered list (1. )",
    "numbered listing (  1 | )",
}
NEW_TOKENS = {
    "GitLab token",
    "GitLab routable token",
    "Slack rotated token",
    "Slack refresh token",
    "Slack browser token",
    "Stripe live key, long",
    "Google API key",
    "Hugging Face token",
    "PyPI upload token",
    "npm token",
}
NEW_NAMES = [
    ".boto",
    ".s3cfg",
    ".pgpass.prod",
    ".my.cnf",
    "terraform.tfstate",
    "terraform.tfstate.backup",
    "client_secret_1234.apps.googleusercontent.com.json",
    "credentials.csv",
    "id_ed25519_sk",
    ".htpasswd",
    "release.jks",
    "debug.keystore",
    "signing.p12",
    "signing.pfx",
    "passwords.kdbx",
    ".git-credentials.work",
    "credentials.db",
    ".env_prod",
]
TEMPLATE = (
    "# Copy to .env and fill in\nOPENAI_API_KEY=\nANTHROPIC_API_KEY=your-api-key\nGITHUB_TOKEN=ghp_...\n"
    "JWT_SECRET=change-me-in-production\nDATABASE_URL=postgres://user:password@localhost:5432/app\nPORT=8080\n"
)


@dataclass
class Planted:
    """One planted file: its class, what it is, its bytes, and whether it holds a secret."""

    kind: str
    label: str
    data: bytes
    secret: bool
    suffix: str = ".txt"
    #: The file's own name, when its name is the point (a credential file, a template); else one is made.
    name: str = ""


def planted_set() -> list[Planted]:
    keys = planted.real_keys()
    found: list[Planted] = []
    for kind, pem in keys.items():
        for container, wrap in planted.CONTAINERS.items():
            if container == "plain":
                found.append(Planted("private key, plain PEM", kind, pem.encode(), True, ".pem.txt"))
            elif container in NEW_CONTAINERS:
                found.append(
                    Planted(
                        "private key in HTML, a JSON array, URL-encoding, PowerShell, a listing (issue 32)",
                        f"{kind} / {container}",
                        wrap(pem).encode(),
                        True,
                    )
                )
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
        what = "credential token of a format issue 32 adds" if kind in NEW_TOKENS else "credential token"
        for context, wrap in planted.TOKEN_CONTEXTS.items():
            for seed in range(3):
                data = wrap(make(random.Random(f"{kind}{seed}"))).encode()
                found.append(Planted(what, f"{kind} / {context}", data, True, SUFFIX[context]))
        for placed, wrap in planted.PLACED.items() if kind != "AWS key pair" else ():
            data = wrap(make(random.Random(f"{kind}{placed}"))).encode()
            found.append(
                Planted(
                    "credential token in a URL, after punctuation, in base64 (issue 32)",
                    f"{kind} / {placed}",
                    data,
                    True,
                )
            )
    for seed in range(3):
        rng = random.Random(seed)
        for label, data in (
            ("escaped \\/", planted.escaped_aws_pair(rng)),
            ("Kubernetes", planted.kubernetes_aws_pair(rng)),
        ):
            found.append(
                Planted(
                    "credential token in a URL, after punctuation, in base64 (issue 32)",
                    f"AWS key pair / {label}",
                    data.encode(),
                    True,
                )
            )
        for word in ("yOuR", "fake", "xxxx", "EXAMPLE", "dummy"):
            data = f"ANTHROPIC_API_KEY={planted.random_body_with(word, rng)}\n".encode()
            found.append(
                Planted("token whose random body holds a placeholder word (issue 32)", word, data, True, ".env")
            )
    for name in NEW_NAMES:
        found.append(Planted("credential file by name (issue 32)", name, b"user = me\n", True, name=name))
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
    for name in sorted(planted_templates := (".env.example", ".env.sample", ".env.template")):
        found.append(Planted("`.env` template of placeholders (issue 32)", name, TEMPLATE.encode(), False, name=name))
    del planted_templates
    return found


# --- the tools -------------------------------------------------------------------------------


@dataclass
class Tool:
    name: str
    #: A file's path → what the tool reports in it (empty: nothing).
    scan: Callable[[Path], list[str]]
    seconds: float = 0.0
    #: Run once over a whole folder before its files are asked about (a command that scans a tree).
    prepare: Callable[[Path], None] | None = None

    def __call__(self, path: Path) -> list[str]:
        start = time.process_time()
        try:
            return self.scan(path)
        finally:
            self.seconds += time.process_time() - start

    def over(self, root: Path) -> None:
        if self.prepare is not None:
            start = _cpu()
            self.prepare(root)
            self.seconds += _cpu() - start


def _cpu() -> float:
    """CPU time of this process and of the commands it ran (trufflehog3)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def flue_at(revision: str) -> Tool:
    """flue-skills' scan and name rules as they were at `revision` (for a before-and-after table)."""
    import importlib

    sys.path.insert(0, str(ROOT / "benchmarks"))
    load = importlib.import_module("secrets_throughput").load
    module = sys.modules[load(revision).__module__]  # type: ignore[attr-defined]

    def scan(path: Path) -> list[str]:
        data = path.read_bytes()
        if not path.name.startswith(UNNAMED) and module.is_secret_file(path.name, path.parent.name):
            return ["FLU302 by name"]
        found = module.scan_content(data)
        return [] if found is None else [f"{found.code} {found.what}"]

    return Tool(f"flue-skills at {revision}", scan)


def ours(path: Path) -> list[str]:
    """flue-skills' verdict on a file: its name (the secrets rule, a template's values), then its content. A
    planted file named for its context only (`planted.env`, `planted.json`: see `run_planted`) is judged by
    its content alone, as the other tools judge every file."""
    with open(path, "rb") as handle:  # one read, as the vetting's (it streams; these files are small)
        data = handle.read()
    if path.name.startswith(UNNAMED):
        found = scan_content(data)
        return [] if found is None else [f"{found.code} {found.what}"]
    if is_secret_file(path.name, path.parent.name):
        return ["FLU302 by name"]
    valued = template_value(data) if is_env_template(path.name) else None
    if valued is not None:
        return [f"FLU302 template value {valued[0]}"]
    found = scan_content(data)
    return [] if found is None else [f"{found.code} {found.what}" + (f" (line {found.line})" if found.line else "")]


def trufflehog3_tools() -> list[Tool]:
    command = shutil.which("trufflehog3") or shutil.which("trufflehog3", path=str(Path(sys.executable).parent))
    if command is None:
        print("trufflehog3 is not installed (pip install trufflehog3): its columns are left out", file=sys.stderr)
        return []
    release = subprocess.run([command, "--version"], capture_output=True, text=True).stdout.split()[-1]

    def tool(name: str, *extra: str) -> Tool:
        found: dict[Path, list[str]] = {}

        def prepare(root: Path) -> None:
            with tempfile.TemporaryDirectory() as work:
                out = Path(work) / "found.json"
                args = [command, "-z", "--no-history", "-p", "1", *extra, "-f", "JSON", "-o", str(out), str(root)]
                subprocess.run(args, capture_output=True, check=True)
                for issue in json.loads(out.read_text() or "[]"):
                    found.setdefault((root / issue["path"]).resolve(), []).append(issue["rule"]["message"])

        return Tool(name, lambda path: sorted(set(found.get(path.resolve(), []))), prepare=prepare)

    return [tool(f"trufflehog3 {release}, defaults"), tool(f"trufflehog3 {release}, patterns only", "--no-entropy")]


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
    items = []
    for index, item in enumerate(planted_set()):
        folder = work / f"planted-{index:04d}"
        folder.mkdir()
        path = folder / (item.name or f"planted{item.suffix}")
        path.write_bytes(item.data)
        items.append((path, item))
    for tool in tools:
        tool.over(work)
    for path, item in items:
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
    for tool in tools:
        tool.over(root)
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
    skills = sum(1 for path in corpus_files(root) if path.name == "SKILL.md")
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
    parser.add_argument("--against", help="a git revision whose flue-skills scan runs beside this tree's")
    args = parser.parse_args(argv)

    baselines = [] if args.without_baseline else [*detect_secrets_tools(), *trufflehog3_tools()]
    tools = [Tool("flue-skills", ours), *([flue_at(args.against)] if args.against else []), *baselines]
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
