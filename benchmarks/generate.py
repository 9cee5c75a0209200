"""Deterministic generators for every benchmark input (seeded: the same arguments give the same bytes).

    python benchmarks/generate.py scan DIR [--modules 5000] [--size-mb 30] [--references 200] [--skills 100]
    python benchmarks/generate.py pack DIR [--skills 1000] [--files 10] [--binary-every 50]
    python benchmarks/generate.py corpus DIR [--skills 1241]
    python benchmarks/generate.py workspace DIR [--skills 10]
    python benchmarks/generate.py dev DIR [--skills 20]
    python benchmarks/generate.py serving DIR [--skills 200]

- `scan`: a hatchling project (flue-skills hook enabled) whose package holds `modules`
  Python modules of realistic code, `size_mb` MB in all, `references` skill() calls
  to `skills` skills spread over half as many modules, and as many modules again that
  mention flue_runtime without calling skill() (they pass the scanner's byte filter
  and have to be parsed).
- `pack`: a hatchling project of `skills` skills of `files` files each (mixed text:
  markdown, Python, shell, CSV, JSON; one 2 MiB binary per `binary_every` skills),
  every one referenced from `benchpack/agents.py` (`SKILLS = (skill(...), ...)`).
  `hook=False` writes the same tree without the hook: the skill files are then plain
  package data. The mount benchmarks use the wheel built from it.
- `corpus`: a folder of `skills` skill folders shaped like a public collection (the
  validation benchmark's input): optional fields, other agents' extensions, a few
  broken names, block-scalar descriptions, and support files from none to dozens.
- `workspace`: an agent's sandbox with `skills` workspace skills under `.agents/skills/`
  (the turn-overhead benchmark's).
- `dev`: a source tree whose package declares `skills` skills read from disk (dev mode;
  the turn-overhead benchmark's dev-mode agent).
- `serving`: a folder of `skills` skill folders, each a SKILL.md and a 20 KB reference page (the
  serving benchmark's: every MCP server serves the same folder).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
from dataclasses import dataclass
from pathlib import Path

SEED = 20240607
BINARY_SIZE = 2 * 1024 * 1024

_WORDS = (
    "account adapter batch buffer cache channel client config context cursor customer "
    "data delta digest document draft entry event export field filter format frame "
    "graph handler header index invoice item job journal key layer ledger limit loader "
    "manifest message metric model module node order packet page parser payload policy "
    "queue quota range record refund region report request resource result route rule "
    "sample schema scope segment session signal snapshot source state stream summary "
    "table task template tenant ticket token trace update upload user value version "
    "window worker"
).split()
_VERBS = (
    "analyse audit build check clean collect compare compute convert count create decode "
    "draft encode explain export extract fetch filter find format group import index "
    "inspect list load merge migrate normalise parse plan prepare publish rank read "
    "reconcile render repair report resolve review sample score search sort split "
    "summarise sync tag test trace translate update validate verify write"
).split()
_TOPICS = (
    "invoices",
    "refund requests",
    "CSV exports",
    "pull requests",
    "log files",
    "PDF forms",
    "database migrations",
    "support tickets",
    "release notes",
    "API schemas",
    "spreadsheets",
    "incident reports",
    "customer emails",
    "test failures",
    "dependency updates",
    "contracts",
    "shipping labels",
    "tax forms",
    "meeting notes",
    "Terraform plans",
    "SQL queries",
)


def _ident(rng: random.Random, parts: int = 2) -> str:
    return "_".join(rng.choice(_WORDS) for _ in range(parts))


def _sentence(rng: random.Random, low: int = 6, high: int = 16) -> str:
    words = [rng.choice(_WORDS + _VERBS) for _ in range(rng.randint(low, high))]
    return " ".join(words).capitalize() + "."


def skill_name(index: int) -> str:
    return f"{_WORDS[index % len(_WORDS)]}-{_VERBS[index * 7 % len(_VERBS)]}-{index:04d}"


def description(rng: random.Random) -> str:
    """A description in the spec's recommended shape: what the skill does, then when to use it."""
    verb, verb2 = rng.choice(_VERBS), rng.choice(_VERBS)
    topic, topic2 = rng.choice(_TOPICS), rng.choice(_TOPICS)
    what = (
        f"{verb.capitalize()} and {verb2} {topic}, {rng.choice(_VERBS)} the {rng.choice(_WORDS)} {rng.choice(_WORDS)}s"
    )
    when = f"Use when the user shares {topic2} or asks to {rng.choice(_VERBS)} a {rng.choice(_WORDS)}"
    extra = f", even if they do not name the {rng.choice(_WORDS)} {rng.choice(_WORDS)}" if rng.random() < 0.5 else ""
    return f"{what}. {when}{extra}."


# --- Python source -----------------------------------------------------------------------


def _function(rng: random.Random, indent: str = "") -> list[str]:
    name = _ident(rng, rng.randint(2, 3))
    args = [_ident(rng, 1) + f"_{i}" for i in range(rng.randint(1, 4))]
    lines = [
        f"{indent}def {name}({', '.join(f'{a}: int' for a in args)}) -> dict[str, int]:",
        f'{indent}    """{_sentence(rng)}',
        "",
        f"{indent}    {_sentence(rng, 10, 20)}",
        f'{indent}    """',
        f"{indent}    result: dict[str, int] = {{}}",
    ]
    for _ in range(rng.randint(3, 12)):
        a, b = rng.choice(args), rng.choice(args)
        key = rng.choice(_WORDS)
        choice = rng.randrange(5)
        if choice == 0:
            lines.append(f"{indent}    result[{key!r}] = {a} * {rng.randint(2, 99)} + {b}")
        elif choice == 1:
            lines += [
                f"{indent}    if {a} > {rng.randint(0, 1000)}:",
                f"{indent}        result[{key!r}] = sum(x for x in range({b} % 17) if x % 3)",
                f"{indent}    else:",
                f"{indent}        result.setdefault({key!r}, {a} - {b})",
            ]
        elif choice == 2:
            lines += [
                f"{indent}    for index, item in enumerate([{a}, {b}, {rng.randint(1, 9)}]):",
                f'{indent}        result[f"{key}-{{index}}"] = item ** 2 // (index + 1)',
            ]
        elif choice == 3:
            lines.append(f"{indent}    # {_sentence(rng, 8, 18)}")
            lines.append(f"{indent}    result[{key!r}] = len({{k: v for k, v in result.items() if v > {a}}})")
        else:
            lines += [
                f"{indent}    try:",
                f"{indent}        result[{key!r}] = {a} // ({b} or 1)",
                f"{indent}    except ZeroDivisionError as exc:  # {rng.choice(_WORDS)}",
                f'{indent}        raise ValueError(f"cannot {rng.choice(_VERBS)} {{exc}}") from None',
            ]
    lines.append(f"{indent}    return result")
    lines.append("")
    return lines


def _class(rng: random.Random) -> list[str]:
    name = "".join(w.capitalize() for w in _ident(rng, 2).split("_"))
    lines = [
        "",
        f"class {name}:",
        f'    """{_sentence(rng)}"""',
        "",
        f"    KIND = {rng.choice(_WORDS)!r}",
        "",
        "    def __init__(self, size: int = 0) -> None:",
        "        self.size = size",
        f"        self.items: list[int] = [i * {rng.randint(2, 9)} for i in range(size)]",
        "",
    ]
    for _ in range(rng.randint(1, 4)):
        lines += _function(rng, "    ")
    return lines


def module_source(rng: random.Random, target_bytes: int, header: list[str]) -> str:
    lines = [
        f'"""{_sentence(rng, 8, 14)}',
        "",
        _sentence(rng, 12, 24),
        '"""',
        "",
        "from __future__ import annotations",
        "",
    ]
    lines += ["import collections", "import itertools", "from typing import Any", *header, ""]
    size = sum(len(line) + 1 for line in lines)
    while size < target_bytes:
        chunk = _class(rng) if rng.random() < 0.3 else ["", *_function(rng)]
        grown = size + sum(len(line) + 1 for line in chunk)
        if grown > target_bytes and grown - target_bytes > target_bytes - size:
            break  # closer to the target without this chunk
        lines += chunk
        size = grown
    return "\n".join(lines) + "\n"


# --- skills ----------------------------------------------------------------------------------


def skill_md(rng: random.Random, name: str, body_bytes: int) -> str:
    lines = ["---", f"name: {name}", f"description: {json.dumps(description(rng))}", "license: MIT"]
    if rng.random() < 0.3:
        lines += ["metadata:", f"  team: {rng.choice(_WORDS)}", f'  version: "{rng.randint(1, 5)}.{rng.randint(0, 9)}"']
    if rng.random() < 0.2:
        lines.append("allowed-tools: Read Bash(python:*)")
    lines += ["---", "", f"# {name.replace('-', ' ').title()}", ""]
    size = sum(len(line) + 1 for line in lines)
    step = 0
    while size < body_bytes:
        step += 1
        para = [
            f"## Step {step}: {rng.choice(_VERBS)} the {rng.choice(_WORDS)}",
            "",
            " ".join(_sentence(rng) for _ in range(rng.randint(3, 7))),
            "",
        ]
        if rng.random() < 0.4:
            para += ["```bash", f"python scripts/run.py --{rng.choice(_WORDS)} {rng.randint(1, 99)}", "```", ""]
        lines += para
        size += sum(len(line) + 1 for line in para)
    return "\n".join(lines) + "\n"


def _text_file(rng: random.Random, kind: str, size: int) -> str:
    if kind == "csv":
        rows = ["id,name,amount,region"]
        while sum(len(r) + 1 for r in rows) < size:
            rows.append(f"{len(rows)},{rng.choice(_WORDS)},{rng.randint(1, 99999) / 100:.2f},{rng.choice(_WORDS)}")
        return "\n".join(rows) + "\n"
    if kind == "json":
        data = {
            rng.choice(_WORDS) + str(i): [rng.randint(0, 1000) for _ in range(8)] for i in range(max(1, size // 60))
        }
        return json.dumps(data, indent=2, sort_keys=True) + "\n"
    if kind == "py":
        return module_source(rng, size, [])
    if kind == "sh":
        lines = ["#!/bin/sh", "set -eu"]
        while sum(len(line) + 1 for line in lines) < size:
            lines.append(
                f'echo {rng.choice(_VERBS)} {rng.choice(_WORDS)} && test -n "${{{rng.choice(_WORDS).upper()}:-}}"'
            )
        return "\n".join(lines) + "\n"
    paragraphs = [f"# {rng.choice(_WORDS).title()} {kind}", ""]
    while sum(len(p) + 1 for p in paragraphs) < size:
        paragraphs += [" ".join(_sentence(rng) for _ in range(rng.randint(2, 6))), ""]
    return "\n".join(paragraphs)


#: The support files of a pack skill besides SKILL.md: (path, kind, low, high) sizes in bytes.
_SUPPORT = (
    ("reference.md", "md", 1500, 9000),
    ("scripts/run.py", "py", 800, 6000),
    ("scripts/check.sh", "sh", 200, 1200),
    ("data/sample.csv", "csv", 500, 6000),
    ("data/config.json", "json", 200, 3000),
    ("templates/report.md", "md", 300, 2500),
    ("examples/input.txt", "txt", 200, 2000),
    ("examples/output.txt", "txt", 200, 2000),
    ("NOTES.md", "md", 200, 1500),
)


def write_skill(folder: Path, rng: random.Random, name: str, files: int, binary: bool) -> int:
    """A skill of `files` files (SKILL.md included); with `binary`, its last file is a 2 MiB binary."""
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(skill_md(rng, name, rng.randint(1500, 6000)), encoding="utf-8")
    written = 1
    support = list(_SUPPORT)
    while len(support) < files - 1:  # more files than the template has: extra notes
        support.append((f"notes/note-{len(support)}.md", "md", 200, 1500))
    for index, (path, kind, low, high) in enumerate(support[: files - 1]):
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if binary and index == files - 2:
            target = folder / "assets" / "archive.bin"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(rng.randbytes(BINARY_SIZE))
        else:
            target.write_text(_text_file(rng, kind, rng.randint(low, high)), encoding="utf-8")
        written += 1
    return written


# --- a collection of skills, shaped like published ones ------------------------------------------

#: Top-level fields published skills carry beyond the spec (other agents' extensions, packaging habits).
_EXTRA_FIELDS = (
    ("version", lambda rng: f"{rng.randint(0, 3)}.{rng.randint(0, 12)}.{rng.randint(0, 9)}"),
    ("author", lambda rng: f"{rng.choice(_WORDS).title()} {rng.choice(_WORDS).title()}"),
    ("tags", lambda rng: "[" + ", ".join(rng.sample(_WORDS, 3)) + "]"),
    ("argument-hint", lambda rng: f'"[{rng.choice(_WORDS)}]"'),
    ("user-invocable", lambda rng: "true"),
)


def corpus_skill_md(rng: random.Random, name: str, body_bytes: int) -> str:
    """A SKILL.md with the variety of a public collection: optional fields, extensions, a few mistakes."""
    roll = rng.random()
    shown = name
    if roll < 0.02:
        shown = name.replace("-", " ").title()  # a display name where the slug belongs (FLU204)
    elif roll < 0.04:
        shown = name.rsplit("-", 1)[0]  # differs from its folder (FLU205)
    text = description(rng)
    if rng.random() < 0.4:  # longer descriptions, up to the limit's neighbourhood
        text += " " + " ".join(_sentence(rng, 10, 24) for _ in range(rng.randint(1, 6)))
    lines = ["---", f"name: {shown}"]
    if rng.random() < 0.5:
        lines.append(f"description: {json.dumps(text)}")
    else:  # a folded block scalar, as many authors write long descriptions
        lines += ["description: >-", *(f"  {chunk}" for chunk in _wrap(text, 80))]
    if rng.random() < 0.45:
        lines.append(f"license: {rng.choice(['MIT', 'Apache-2.0', 'Proprietary. LICENSE.txt has complete terms'])}")
    if rng.random() < 0.1:
        lines.append(f"compatibility: Requires {rng.choice(['git', 'python3', 'network access', 'Docker'])}")
    if rng.random() < 0.3:
        lines.append("metadata:")
        for key in rng.sample(_WORDS, rng.randint(1, 4)):
            lines.append(f'  {key}: "{rng.choice(_WORDS)} {rng.randint(1, 99)}"')
    if rng.random() < 0.2:
        tools = rng.sample(["Read", "Write", "Edit", "Grep", "Glob", "Bash(git:*)", "Bash(python:*)"], 3)
        lines.append(f"allowed-tools: {(', ' if rng.random() < 0.25 else ' ').join(tools)}")
    if rng.random() < 0.15:
        for key, value in rng.sample(_EXTRA_FIELDS, rng.randint(1, 2)):
            lines.append(f"{key}: {value(rng)}")
    lines += ["---", "", f"# {name.replace('-', ' ').title()}", ""]
    size = sum(len(line) + 1 for line in lines)
    step = 0
    while size < body_bytes:
        step += 1
        para = [f"## {rng.choice(_VERBS).title()} the {rng.choice(_WORDS)} ({step})", ""]
        para += [" ".join(_sentence(rng) for _ in range(rng.randint(2, 6))), ""]
        if rng.random() < 0.35:
            para += ["```bash", f"python scripts/{rng.choice(_VERBS)}.py --{rng.choice(_WORDS)}", "```", ""]
        lines += para
        size += sum(len(line) + 1 for line in para)
    return "\n".join(lines) + "\n"


def _wrap(text: str, width: int) -> list[str]:
    out, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            out.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*out, line]


@dataclass
class Corpus:
    root: Path
    skills: int
    files: int
    bytes: int
    skill_md_bytes: int


def make_skill_corpus(root: Path, *, skills: int = 1241, seed: int = SEED) -> Corpus:
    """A folder of `skills` skill folders, sized like a public collection.

    About half are a SKILL.md alone (2-12 KB, as most published skills); a third add a few
    references and scripts; the rest are large skills with many support files and an
    asset (a template or an image, 20-300 KB of binary).
    """
    rng = random.Random(seed + 1)
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    files = size = md_size = 0
    for index in range(skills):
        name = skill_name(index)
        folder = root / name
        folder.mkdir()
        text = corpus_skill_md(rng, name, int(rng.lognormvariate(8.4, 0.6)))
        (folder / "SKILL.md").write_text(text, encoding="utf-8")
        files += 1
        size += len(text.encode())
        md_size += len(text.encode())
        roll = rng.random()
        support = 0 if roll < 0.5 else rng.randint(1, 5) if roll < 0.85 else rng.randint(6, 25)
        for number in range(support):
            path, kind, low, high = _SUPPORT[number % len(_SUPPORT)]
            if number >= len(_SUPPORT):
                path = f"references/topic-{number}.md"
            target = folder / path
            target.parent.mkdir(parents=True, exist_ok=True)
            if number == 5:  # the large skills' asset
                data = rng.randbytes(rng.randint(20_000, 300_000))
                target = folder / "assets" / rng.choice(["template.docx", "logo.png", "form.pdf"])
                target.parent.mkdir(exist_ok=True)
                target.write_bytes(data)
                size += len(data)
            else:
                content = _text_file(rng, kind, rng.randint(low, high * 2))
                target.write_text(content, encoding="utf-8")
                size += len(content.encode())
            files += 1
    return Corpus(root, skills, files, size, md_size)


# --- a folder of skills to serve over MCP (the serving benchmark's) ------------------------------------

#: The serving benchmark's support file: every skill has one of exactly this many bytes.
SERVED_FILE = "references/guide.md"
SERVED_FILE_BYTES = 20_000


def make_serving_folder(root: Path, *, skills: int, seed: int = SEED) -> Path:
    """A folder of `skills` valid skill folders, as a team serves them: a SKILL.md of 1.5-6 KB (the pack
    project's shape: optional `metadata` and `allowed-tools`) and `references/guide.md` of exactly 20,000
    bytes of markdown. Every server of the serving benchmark serves this same folder."""
    rng = random.Random(seed + 4)
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    for index in range(skills):
        name = skill_name(index)
        folder = root / name
        (folder / "references").mkdir(parents=True)
        (folder / "SKILL.md").write_text(skill_md(rng, name, rng.randint(1500, 6000)), encoding="utf-8")
        guide = _text_file(rng, "md", SERVED_FILE_BYTES + 200)[:SERVED_FILE_BYTES]
        (folder / SERVED_FILE).write_text(guide, encoding="utf-8")
    return root


# --- a corpus of one mutation per rule (the agreement benchmark's) ----------------------------------


@dataclass(frozen=True)
class Mutation:
    """One skill folder of the mutation corpus: `case` names it, `rule` says what it exercises."""

    case: str
    rule: str
    folder: Path


#: A valid description (and body) every mutation starts from.
_BASE_DESCRIPTION = "Handle refund requests. Use when a customer asks for money back."
_BASE_BODY = "# Refunds\n\nCheck the order date, then the policy.\n"
_PEM = (
    b"-----BEGIN RSA PRIVATE KEY-----\n"
    + b"MIIEowIBAAKCAQEA7s2Yk9Cq3x0vLm8Jb4N2pQe1uZ5rT6wX8yA0bC3dE4fG5hI6\n" * 8
    + b"-----END RSA PRIVATE KEY-----\n"
)


def _front(*lines: str, name: str | None = "refunds", description: str | None = _BASE_DESCRIPTION) -> bytes:
    head = [f"name: {name}"] if name is not None else []
    head += [f"description: {description}"] if description is not None else []
    return ("---\n" + "".join(f"{line}\n" for line in (*head, *lines)) + "---\n" + _BASE_BODY).encode()


def _mutations() -> list[tuple[str, str, str, bytes | None, dict[str, bytes | str]]]:
    """(case, rule, folder name, SKILL.md bytes or None, other entries: bytes, or `->target` for a link)."""
    long_name = "a" * 64
    return [
        ("valid-minimal", "a valid skill: name and description", "refunds", _front(), {}),
        (
            "valid-every-field",
            "a valid skill with every optional field",
            "refunds",
            _front(
                "license: Apache-2.0",
                "compatibility: Requires git and network access",
                "metadata:",
                "  author: example-org",
                '  version: "1.0"',
                "allowed-tools: Read Grep Bash(git:*)",
            ),
            {"references/policy.md": "Thirty days.\n", "scripts/check.py": "print('ok')\n"},
        ),
        ("name-64", "name of exactly 64 characters (the limit)", long_name, _front(name=long_name), {}),
        ("name-65", "name of 65 characters", long_name + "a", _front(name=long_name + "a"), {}),
        ("name-uppercase", "name with capitals (folder alike)", "Refunds", _front(name="Refunds"), {}),
        ("name-underscore", "name with an underscore (folder alike)", "pdf_tools", _front(name="pdf_tools"), {}),
        ("name-non-ascii", "name with a non-ASCII lowercase letter (folder alike)", "café", _front(name="café"), {}),
        ("name-leading-hyphen", "name starting with a hyphen", "-pdf", _front(name="-pdf"), {}),
        ("name-trailing-hyphen", "name ending with a hyphen", "pdf-", _front(name="pdf-"), {}),
        ("name-double-hyphen", "name with two hyphens in a row", "pdf--tools", _front(name="pdf--tools"), {}),
        ("name-quoted-space", "quoted name with a trailing space", "refunds", _front(name='"refunds "'), {}),
        ("name-mismatch", "valid name that differs from its folder", "pdf-tools", _front(name="pdf"), {}),
        (
            "name-invalid-mismatch",
            "invalid name that differs from its folder",
            "pdf-tools",
            _front(name="PDF_Tools"),
            {},
        ),
        ("name-missing", "no name", "refunds", _front(name=None), {}),
        ("name-empty", "empty name", "refunds", _front(name='""'), {}),
        (
            "name-list",
            "name given as a list",
            "refunds",
            f"---\nname:\n  - refunds\ndescription: {_BASE_DESCRIPTION}\n---\n{_BASE_BODY}".encode(),
            {},
        ),
        ("description-missing", "no description", "refunds", _front(description=None), {}),
        ("description-empty", "empty description", "refunds", _front(description='""'), {}),
        ("description-blank", "description of spaces only", "refunds", _front(description='"   "'), {}),
        (
            "description-1024",
            "description of 1,024 characters (the limit)",
            "refunds",
            _front(description="d" * 1024),
            {},
        ),
        ("description-1025", "description of 1,025 characters", "refunds", _front(description="d" * 1025), {}),
        (
            "description-folded",
            "description as a folded block scalar",
            "refunds",
            _front("  Handle refund requests.", "  Use when a customer asks for money back.", description=">-"),
            {},
        ),
        ("compatibility-empty", "empty compatibility", "refunds", _front('compatibility: ""'), {}),
        (
            "compatibility-500",
            "compatibility of 500 characters (the limit)",
            "refunds",
            _front("compatibility: " + "c" * 500),
            {},
        ),
        ("compatibility-501", "compatibility of 501 characters", "refunds", _front("compatibility: " + "c" * 501), {}),
        ("compatibility-list", "compatibility given as a list", "refunds", _front("compatibility:", "  - git"), {}),
        ("license-list", "license given as a list", "refunds", _front("license:", "  - MIT"), {}),
        (
            "metadata-nested",
            "metadata value that is a mapping",
            "refunds",
            _front("metadata:", "  owner:", "    team: a"),
            {},
        ),
        ("metadata-list", "metadata value that is a list", "refunds", _front("metadata:", "  tags:", "    - a"), {}),
        ("metadata-string", "metadata that is a string, not a mapping", "refunds", _front("metadata: v1"), {}),
        ("metadata-number", "metadata value written as a number", "refunds", _front("metadata:", "  version: 1.0"), {}),
        ("metadata-flow", "metadata as a flow mapping", "refunds", _front('metadata: {version: "1.0"}'), {}),
        ("unknown-field", "a field the spec does not define", "refunds", _front("version: 1.0"), {}),
        (
            "unknown-extension",
            "another agent's extension field",
            "refunds",
            _front("disable-model-invocation: true"),
            {},
        ),
        (
            "allowed-tools-commas",
            "allowed-tools separated by commas",
            "refunds",
            _front("allowed-tools: Read, Grep"),
            {},
        ),
        ("allowed-tools-list", "allowed-tools as a block list", "refunds", _front("allowed-tools:", "  - Read"), {}),
        ("allowed-tools-flow", "allowed-tools as a flow list", "refunds", _front("allowed-tools: [Read, Grep]"), {}),
        (
            "description-placeholder",
            "the placeholder description `flue-skills new` writes",
            "refunds",
            _front(description="Describe what this skill does and when the agent should use it."),
            {},
        ),
        ("no-frontmatter", "no frontmatter at all", "refunds", _BASE_BODY.encode(), {}),
        ("frontmatter-blank-line", "a blank line before the frontmatter", "refunds", b"\n" + _front(), {}),
        ("frontmatter-unclosed", "frontmatter never closed", "refunds", b"---\nname: refunds\ndescription: d\n", {}),
        ("yaml-invalid", "frontmatter that is not YAML", "refunds", _front(description="[unclosed"), {}),
        ("yaml-colon", "an unquoted colon in a value", "refunds", _front(description="Use when: a refund"), {}),
        ("yaml-not-mapping", "frontmatter that is a list", "refunds", b"---\n- refunds\n---\nBody.\n", {}),
        ("yaml-duplicate-key", "a key given twice", "refunds", _front("name: refunds"), {}),
        ("yaml-alias", "a YAML anchor and alias", "refunds", _front("license: &l MIT", "metadata:", "  l: *l"), {}),
        ("frontmatter-large", "frontmatter over 64 KiB", "refunds", _front("metadata:", "  blob: " + "x" * 70_000), {}),
        ("bom", "a UTF-8 byte order mark", "refunds", b"\xef\xbb\xbf" + _front(), {}),
        ("crlf", "CRLF line endings", "refunds", _front().replace(b"\n", b"\r\n"), {}),
        ("bom-crlf", "a BOM and CRLF line endings", "refunds", b"\xef\xbb\xbf" + _front().replace(b"\n", b"\r\n"), {}),
        ("not-utf8", "a byte that is not UTF-8 in the body", "refunds", _front() + b"caf\xe9\n", {}),
        ("nul-byte", "a NUL byte in the body", "refunds", _front() + b"\x00\n", {}),
        ("empty-file", "an empty SKILL.md", "refunds", b"", {}),
        ("skill-md-lowercase", "the file named skill.md", "refunds", None, {"skill.md": _front()}),
        ("no-skill-md", "a folder with no SKILL.md", "refunds", None, {"README.md": "# Refunds\n"}),
        ("secret-env", "a .env file beside SKILL.md", "refunds", _front(), {".env": "API_KEY=abc123\n"}),
        ("private-key", "a file holding a PEM private key", "refunds", _front(), {"notes.txt": _PEM}),
        (
            "symlink",
            "a symbolic link to a file of the skill",
            "refunds",
            _front(),
            {"policy.md": "x\n", "link.md": "->policy.md"},
        ),
        ("large-file", "a support file over 1 MiB", "refunds", _front(), {"data.bin": b"\x00" * (1024 * 1024 + 1)}),
        ("noise", "a node_modules folder", "refunds", _front(), {"node_modules/x/index.js": "x\n"}),
        (
            "nested-skill",
            "a skill inside the skill",
            "refunds",
            _front(),
            {"inner/SKILL.md": _front(name="inner")},
        ),
    ]


def make_mutation_corpus(root: Path) -> list[Mutation]:
    """A valid skill, then one skill per rule that breaks it (or tests its edge): names, descriptions,
    compatibility, metadata, unknown fields, allowed-tools, the frontmatter's form and YAML, encodings, and
    the packing rules (secrets, keys, links, noise). Each in `root/<case>/<folder>`."""
    if root.exists():
        shutil.rmtree(root)
    found = []
    for case, rule, name, skill_md, files in _mutations():
        folder = root / case / name
        folder.mkdir(parents=True)
        if skill_md is not None:
            (folder / "SKILL.md").write_bytes(skill_md)
        for path, content in files.items():
            target = folder / path
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, str) and content.startswith("->"):
                target.symlink_to(content[2:])
            else:
                target.write_bytes(content.encode() if isinstance(content, str) else content)
        found.append(Mutation(case, rule, folder))
    return found


# --- an agent's workspace --------------------------------------------------------------------------


def make_workspace(root: Path, *, skills: int, seed: int = SEED) -> Path:
    """A sandbox folder whose `.agents/skills/` holds `skills` valid workspace skills: a SKILL.md of
    1-4 KB, and for half of them a reference page and a script (the turn benchmark's sandbox)."""
    rng = random.Random(seed + 2)
    if root.exists():
        shutil.rmtree(root)
    folder = root / ".agents" / "skills"
    folder.mkdir(parents=True)
    for index in range(skills):
        name = f"local-{skill_name(index)}"
        skill = folder / name
        skill.mkdir()
        (skill / "SKILL.md").write_text(skill_md(rng, name, rng.randint(1000, 4000)), encoding="utf-8")
        if index % 2:
            (skill / "references").mkdir()
            (skill / "references" / "guide.md").write_text(_text_file(rng, "md", rng.randint(1000, 3000)))
            (skill / "scripts").mkdir()
            (skill / "scripts" / "check.sh").write_text(_text_file(rng, "sh", rng.randint(200, 800)))
    return root


def make_dev_package(root: Path, *, skills: int, seed: int = SEED) -> Path:
    """A source tree (no build, no bundle: dev mode) whose package `benchdev` declares `skills` skills, each
    `skill("./skills/<name>/SKILL.md")` in `benchdev/agent.py` (`SKILLS`): a SKILL.md of 1-4 KB and a reference
    page (the turn benchmark's dev-mode agent), in a project (its pyproject.toml beside the package, as in a
    flat layout). Returns the folder to put on sys.path."""
    rng = random.Random(seed + 3)
    if root.exists():
        shutil.rmtree(root)
    package = root / "benchdev"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (root / "pyproject.toml").write_text(_pyproject("benchdev", "benchdev", hook=True), encoding="utf-8")
    calls = []
    for index in range(skills):
        name = f"dev-{skill_name(index)}"
        skill = package / "skills" / name
        (skill / "references").mkdir(parents=True)
        (skill / "SKILL.md").write_text(skill_md(rng, name, rng.randint(1000, 4000)), encoding="utf-8")
        (skill / "references" / "policy.md").write_text(_text_file(rng, "md", rng.randint(1000, 3000)))
        calls.append(f'    skill("./skills/{name}/SKILL.md"),')
    (package / "agent.py").write_text("from flue_runtime import skill\n\nSKILLS = [\n" + "\n".join(calls) + "\n]\n")
    return root


# --- projects ---------------------------------------------------------------------------------


def _pyproject(name: str, package: str, hook: bool) -> str:
    requires = '["hatchling>=1.24", "hatch-flue-skills"]' if hook else '["hatchling>=1.24"]'
    text = (
        f'[build-system]\nrequires = {requires}\nbuild-backend = "hatchling.build"\n\n'
        f'[project]\nname = "{name}"\nversion = "1.0.0"\nrequires-python = ">=3.11"\ndependencies = ["flue-skills"]\n\n'
        f'[tool.hatch.build.targets.wheel]\npackages = ["{package}"]\n'
    )
    if hook:
        text += "\n[tool.hatch.build.hooks.flue-skills]\n\n[tool.flue]\n"
    return text


@dataclass
class ScanProject:
    root: Path
    package: Path
    modules: int
    bytes: int
    references: int
    skills: int
    parsed_modules: int  # modules that mention flue_runtime (the scanner parses these)


_REFERENCE_STYLES = (
    ("from flue_runtime import skill", "skill"),
    ("from flue_runtime import skill as load_skill", "load_skill"),
    ("import flue_runtime", "flue_runtime.skill"),
    ("import flue_runtime as fr", "fr.skill"),
)


def make_scan_project(
    root: Path, *, modules: int = 5000, size_mb: float = 30, references: int = 200, skills: int = 100, seed: int = SEED
) -> ScanProject:
    """The scan benchmark's project (see the module docstring)."""
    rng = random.Random(seed)
    if root.exists():
        shutil.rmtree(root)
    package = root / "benchscan"
    package.mkdir(parents=True)
    (root / "pyproject.toml").write_text(_pyproject("benchscan", "benchscan", hook=True), encoding="utf-8")
    names = [skill_name(i) for i in range(skills)]
    for name in names:
        folder = package / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(skill_md(rng, name, rng.randint(800, 3000)), encoding="utf-8")
        (folder / "reference.md").write_text(_text_file(rng, "md", rng.randint(300, 2000)), encoding="utf-8")
    subpackages = max(1, modules // 100)
    regular = max(1, modules - 1 - subpackages)  # plus the top __init__ and one __init__ per subpackage
    referencing = max(1, references // 2) if references else 0
    mentioning = referencing
    # Which modules reference skills, and which only mention flue_runtime: spread evenly.
    order = list(range(regular))
    rng.shuffle(order)
    ref_modules = sorted(order[:referencing])
    mention_modules = set(order[referencing : referencing + mentioning])
    calls: dict[int, list[str]] = {index: [] for index in ref_modules}
    for call in range(references):
        calls[ref_modules[call % len(ref_modules)]].append(names[call % skills])
    # Sizes vary (most modules small, a few large) and add up to the target.
    weights = [rng.lognormvariate(0, 0.8) for _ in range(regular)]
    scale = int(size_mb * 1_000_000) / sum(weights)
    inits = [package / "__init__.py"] + [package / f"area{n:03d}" / "__init__.py" for n in range(subpackages)]
    total = 0
    for init in inits:
        init.parent.mkdir(parents=True, exist_ok=True)
        text = f'"""Package {init.parent.name}."""\n'
        init.write_text(text, encoding="utf-8")
        total += len(text)
    for index in range(regular):
        path = package / f"area{index % subpackages:03d}" / f"mod_{index:05d}.py"
        header: list[str] = []
        footer: list[str] = []
        if index in calls:
            style, callee = _REFERENCE_STYLES[index % len(_REFERENCE_STYLES)]
            header.append(style)
            for number, name in enumerate(calls[index]):
                footer.append(f'SKILL_{number} = {callee}("../skills/{name}/SKILL.md")')
        elif index in mention_modules:
            header += [
                "from typing import TYPE_CHECKING",
                "",
                "if TYPE_CHECKING:",
                "    from flue_runtime import SkillReference",
            ]
        source = module_source(rng, int(weights[index] * scale), header)
        if footer:
            source += "\n" + "\n".join(footer) + "\n"
        path.write_text(source, encoding="utf-8")
        total += len(source.encode("utf-8"))
    written = regular + len(inits)
    return ScanProject(root, package, written, total, references, skills, len(ref_modules) + len(mention_modules))


@dataclass
class PackProject:
    root: Path
    skills: int
    files: int
    bytes: int
    binaries: int


def make_pack_project(
    root: Path, *, skills: int = 1000, files: int = 10, binary_every: int = 50, hook: bool = True, seed: int = SEED
) -> PackProject:
    """The pack benchmark's project (see the module docstring)."""
    rng = random.Random(seed)
    if root.exists():
        shutil.rmtree(root)
    package = root / "benchpack"
    package.mkdir(parents=True)
    (root / "pyproject.toml").write_text(_pyproject("benchpack", "benchpack", hook=hook), encoding="utf-8")
    (package / "__init__.py").write_text(
        '"""Agents with a thousand skills (flue-skills benchmark)."""\n', encoding="utf-8"
    )
    count = 0
    binaries = 0
    names = [skill_name(i) for i in range(skills)]
    for index, name in enumerate(names):
        binary = binary_every > 0 and index % binary_every == binary_every - 1
        binaries += binary
        count += write_skill(package / "skills" / name, rng, name, files, binary)
    agents = [
        '"""Every skill of the package, referenced once (resolving them is the mount benchmark)."""',
        "",
        "from flue_runtime import skill",
        "",
        "SKILLS = (",
        *(f'    skill("./skills/{name}/SKILL.md"),' for name in names),
        ")",
        "",
    ]
    (package / "agents.py").write_text("\n".join(agents), encoding="utf-8")
    size = sum(p.stat().st_size for p in (package / "skills").rglob("*") if p.is_file())
    return PackProject(root, skills, count, size, binaries)


def without_hook(project: Path, copy: Path) -> Path:
    """The same project tree, its pyproject without the hook: skill files become plain package data."""
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(project, copy)
    (copy / "pyproject.toml").write_text(_pyproject("benchpack", "benchpack", hook=False), encoding="utf-8")
    return copy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    scan = sub.add_parser("scan")
    scan.add_argument("dir", type=Path)
    scan.add_argument("--modules", type=int, default=5000)
    scan.add_argument("--size-mb", type=float, default=30)
    scan.add_argument("--references", type=int, default=200)
    scan.add_argument("--skills", type=int, default=100)
    pack = sub.add_parser("pack")
    pack.add_argument("dir", type=Path)
    pack.add_argument("--skills", type=int, default=1000)
    pack.add_argument("--files", type=int, default=10)
    pack.add_argument("--binary-every", type=int, default=50)
    pack.add_argument("--no-hook", action="store_true")
    corpus = sub.add_parser("corpus")
    corpus.add_argument("dir", type=Path)
    corpus.add_argument("--skills", type=int, default=1241)
    workspace = sub.add_parser("workspace")
    workspace.add_argument("dir", type=Path)
    workspace.add_argument("--skills", type=int, default=10)
    dev = sub.add_parser("dev")
    dev.add_argument("dir", type=Path)
    dev.add_argument("--skills", type=int, default=20)
    serving = sub.add_parser("serving")
    serving.add_argument("dir", type=Path)
    serving.add_argument("--skills", type=int, default=200)
    args = parser.parse_args()
    if args.what == "corpus":
        print(make_skill_corpus(args.dir, skills=args.skills))
    elif args.what == "workspace":
        print(make_workspace(args.dir, skills=args.skills))
    elif args.what == "dev":
        print(make_dev_package(args.dir, skills=args.skills))
    elif args.what == "serving":
        print(make_serving_folder(args.dir, skills=args.skills))
    elif args.what == "scan":
        print(
            make_scan_project(
                args.dir, modules=args.modules, size_mb=args.size_mb, references=args.references, skills=args.skills
            )
        )
    else:
        print(
            make_pack_project(
                args.dir, skills=args.skills, files=args.files, binary_every=args.binary_every, hook=not args.no_hook
            )
        )


if __name__ == "__main__":
    main()
