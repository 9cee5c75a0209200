"""How far `flue-skills check` agrees with the reference validator, skills-ref, skill by skill.

    .venv/bin/python benchmarks/agreement.py                         # the generated corpora
    .venv/bin/python benchmarks/agreement.py --corpus ~/src/skills   # and a real collection (any folder)
    .venv/bin/python benchmarks/agreement.py --skills-ref-python /tmp/skillsref/bin/python --report agreement.md

Corpora (seeded: the same every run, `generate.py`):
- `mutations`: a valid skill, then one skill per rule that breaks it or tests its edge (names,
  descriptions, compatibility, metadata, unknown fields, allowed-tools, the frontmatter's form
  and YAML, BOM and CRLF, encodings, the packing rules);
- `collection`: the validation benchmark's collection shaped like a public one (`--collection N`
  skills; 0 leaves it out);
- each `--corpus DIR`: every skill folder under DIR (found as `check DIR` finds them).

Each skill folder is checked by `flue-skills check FOLDER` (its `check_paths`, in this process)
and by skills-ref's `validate(FOLDER)` (what `skills-ref validate FOLDER` runs; in this process
when it has skills-ref, else under `--skills-ref-python`). Every problem either reports is
mapped to a rule family (`name-length`, `unknown-field`, `secret`, ...); a warning of ours is not
a refusal. Two agreements are reported: the same verdict (both accept, or both refuse) and the
same rules (both refuse for the same families). Every family that only one side refuses for is
a class of difference, counted, shown with an example and explained (`EXPLAINED`); a class
without an explanation is listed as such, for someone to look into.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402

FLUE, REFERENCE = "flue-skills only", "skills-ref only"

#: Why each class of difference exists: (rule family, who refuses) -> the reason, from DESIGN's rules.
EXPLAINED: dict[tuple[str, str], str] = {
    ("unknown-field", REFERENCE): (
        "a field the spec does not define is a warning for flue-skills (FLU210; an error under --strict), as the "
        "design's rules say: skills written for other agents (Claude Code's extensions) stay usable; skills-ref "
        "refuses any field outside its list"
    ),
    ("name-characters", FLUE): (
        "flue-skills holds names to the spec's ASCII pattern `^[a-z0-9]+(-[a-z0-9]+)*$`, as Flue does; skills-ref "
        "accepts any Unicode lowercase letter, and strips and NFKC-normalises a name before checking it"
    ),
    ("name-mismatch", FLUE): (
        "skills-ref compares the folder with the name stripped of spaces; flue-skills compares the name as written "
        "(a name with a space is invalid anyway)"
    ),
    ("compatibility-length", FLUE): (
        "the spec gives `compatibility` 1-500 characters; skills-ref checks only the upper bound, so an empty "
        "value passes it"
    ),
    (
        "license-type",
        FLUE,
    ): "flue-skills requires `license` to be a string (the spec's type); skills-ref does not check it",
    ("metadata-types", FLUE): (
        "the spec makes `metadata` a mapping of strings; skills-ref turns every value into a string (a nested "
        "mapping becomes its Python repr) and accepts a metadata that is not a mapping"
    ),
    ("allowed-tools-type", FLUE): (
        "the spec makes `allowed-tools` a space-separated string; skills-ref does not check the field, so a YAML "
        "list passes it"
    ),
    ("yaml", REFERENCE): (
        "skills-ref reads frontmatter with strictyaml, which refuses YAML's flow style (`[a, b]`, `{a: b}`) and "
        "anchors; flue-skills reads standard YAML (every scalar as a string), so a flow mapping of strings is a "
        "valid `metadata`, and an alias is refused by its own rule (FLU109)"
    ),
    ("no-frontmatter", REFERENCE): (
        "the design accepts a UTF-8 byte order mark before the first `---` (editors on Windows write one); "
        "skills-ref's text starts with the BOM, so it finds no frontmatter"
    ),
    ("frontmatter-size", FLUE): (
        "flue-skills bounds frontmatter at 64 KiB (FLU105, `max-frontmatter-size`) before parsing it; skills-ref "
        "has no bound"
    ),
    ("encoding", FLUE): (
        "flue-skills refuses a SKILL.md that is not UTF-8 or holds a NUL byte (FLU102); skills-ref raises "
        "UnicodeDecodeError on bytes that are not UTF-8 (a crash, not a verdict) and accepts a NUL"
    ),
    ("skill-file", FLUE): (
        "the design requires the file to be named exactly `SKILL.md` (FLU101); skills-ref also reads `skill.md`"
    ),
    ("secret", FLUE): (
        "the packing rules refuse secrets by name (`.env`, `.env.local`, keys, credentials: FLU302) in every skill "
        "folder, so none can ship (a project lets a named file through with `[tool.flue] allow`); skills-ref reads "
        "SKILL.md only"
    ),
    (
        "private-key",
        FLUE,
    ): "the packing rules refuse a file holding a private key (FLU303); skills-ref reads SKILL.md only",
    ("link", FLUE): "the packing rules refuse symbolic links (FLU301), never followed; skills-ref reads SKILL.md only",
    ("crash", REFERENCE): "skills-ref raised instead of answering (see `encoding`)",
}


# --- rule families --------------------------------------------------------------------------------

_FLUE_CODES = {
    "FLU100": "skill-file",
    "FLU101": "skill-file",
    "FLU102": "encoding",
    "FLU103": "no-frontmatter",
    "FLU104": "frontmatter-unclosed",
    "FLU105": "frontmatter-size",
    "FLU106": "yaml",
    "FLU107": "yaml",
    "FLU108": "yaml",
    "FLU109": "yaml",
    "FLU110": "unreadable",
    "FLU111": "byte-order-mark",
    "FLU203": "name-length",
    "FLU205": "name-mismatch",
    "FLU206": "description-not-a-nonempty-string",
    "FLU207": "description-length",
    "FLU208": "compatibility-length",
    "FLU209": "metadata-types",
    "FLU210": "unknown-field",
    "FLU211": "allowed-tools-commas",
    "FLU212": "nested-skill",
    "FLU213": "placeholder-description",
    "FLU215": "yaml-1.1-types",
    "FLU301": "link",
    "FLU302": "secret",
    "FLU303": "private-key",
    "FLU304": "noise",
    "FLU305": "large-file",
    "FLU306": "allowed-secret",
    "FLU307": "special-file",
    "FLU308": "unreadable",
    "FLU309": "unservable-name",
    "FLU310": "limits",
    "FLU311": "limits",
    "FLU312": "case-clash",
    "FLU313": "limits",
    "FLU314": "hard-link",
    "FLU317": "hidden-text",
    "FLU318": "hidden-text",
}
_NAME_WORDS = (
    ("empty", "name-not-a-nonempty-string"),
    ("characters long", "name-length"),
    ("lowercase", "name-case"),
    ("ASCII", "name-characters"),
    ("may hold only", "name-characters"),
    ("start with a hyphen", "name-hyphens"),
    ("end with a hyphen", "name-hyphens"),
    ("two hyphens in a row", "name-hyphens"),
)
_REFERENCE_MESSAGES = (
    (r"^Path does not exist|^Not a directory|^Missing required file", "skill-file"),
    (r"must start with YAML frontmatter", "no-frontmatter"),
    (r"not properly closed", "frontmatter-unclosed"),
    (r"^Invalid YAML|must be a YAML mapping", "yaml"),
    (r"^Unexpected fields in frontmatter", "unknown-field"),
    (r"^Missing required field in frontmatter: (\S+)", "{0}-missing"),
    (r"^Field '(name|description)' must be a non-empty string", "{0}-not-a-nonempty-string"),
    (r"^Skill name .* exceeds", "name-length"),
    (r"must be lowercase", "name-case"),
    (r"start or end with a hyphen|consecutive hyphens", "name-hyphens"),
    (r"contains invalid characters", "name-characters"),
    (r"^Directory name .* must match", "name-mismatch"),
    (r"^Description exceeds", "description-length"),
    (r"^Field 'compatibility' must be a string", "compatibility-type"),
    (r"^Compatibility exceeds", "compatibility-length"),
)


def flue_families(code: str, field_name: str | None, message: str) -> set[str]:
    """The rule families one of our diagnostics belongs to."""
    if code == "FLU201":
        return {f"{field_name}-missing"}
    if code == "FLU202":
        if field_name in ("name", "description"):
            return {f"{field_name}-not-a-nonempty-string"}
        return {"metadata-types" if field_name == "metadata" else f"{field_name}-type"}
    if code == "FLU204":
        return {family for words, family in _NAME_WORDS if words in message} or {"name-characters"}
    return {_FLUE_CODES.get(code, code)}


def reference_families(message: str) -> set[str]:
    """The rule families one skills-ref message belongs to."""
    for pattern, family in _REFERENCE_MESSAGES:
        found = re.search(pattern, message)
        if found:
            return {family.format(*found.groups())}
    return {f"other: {message[:60]}"}


# --- verdicts -------------------------------------------------------------------------------------


@dataclass
class Outcome:
    """Both validators on one skill folder."""

    corpus: str
    case: str
    folder: Path
    flue: set[str] = field(default_factory=set)  # families refused (errors)
    flue_warned: set[str] = field(default_factory=set)
    flue_said: list[str] = field(default_factory=list)  # `CODE severity: message`, errors first
    reference: set[str] = field(default_factory=set)
    reference_said: list[str] = field(default_factory=list)

    @property
    def same_verdict(self) -> bool:
        return bool(self.flue) == bool(self.reference)

    @property
    def same_rules(self) -> bool:
        return self.flue == self.reference


def check_folder(folder: Path) -> tuple[set[str], set[str], list[str]]:
    """`flue-skills check FOLDER`: the families refused and warned about, and what it said."""
    from flue_build.cli.commands.check import check_paths

    refused: set[str] = set()
    warned: set[str] = set()
    said = []
    for d in sorted(check_paths([folder]).diagnostics, key=lambda d: not d.is_error):
        families = flue_families(d.code, d.field, d.message)
        (refused if d.is_error else warned).update(families)
        said.append(f"{d.code} {d.severity}: {d.message}")
    return refused, warned, said


def reference_verdicts(folders: Sequence[Path], python: str | None) -> dict[str, list[str] | dict[str, str]]:
    """skills-ref's messages per folder: in this process when `python` is None, else under that interpreter."""
    names = [str(folder) for folder in folders]
    if python is None:
        import importlib.util

        spec = importlib.util.spec_from_file_location("skills_ref_verdicts", HERE / "probes" / "skills_ref_verdicts.py")
        assert spec is not None and spec.loader is not None
        probe = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(probe)
        found: dict[str, list[str] | dict[str, str]] = probe.verdicts(names)
        return found
    done = subprocess.run(
        [python, str(HERE / "probes" / "skills_ref_verdicts.py")],
        input=json.dumps(names),
        capture_output=True,
        text=True,
        check=True,
    )
    answered: dict[str, list[str] | dict[str, str]] = json.loads(done.stdout)
    return answered


def compare(corpora: dict[str, list[tuple[str, Path]]], python: str | None) -> list[Outcome]:
    """Both validators on every folder of every corpus (name -> [(case, folder)])."""
    everything = [folder for cases in corpora.values() for _, folder in cases]
    answers = reference_verdicts(everything, python)
    outcomes = []
    for corpus, cases in corpora.items():
        for case, folder in cases:
            outcome = Outcome(corpus, case, folder)
            outcome.flue, outcome.flue_warned, outcome.flue_said = check_folder(folder)
            answer = answers[str(folder)]
            if isinstance(answer, dict):
                outcome.reference = {"crash"}
                outcome.reference_said = [f"raised {answer['crash']}"]
            else:
                outcome.reference = set().union(*(reference_families(m) for m in answer)) if answer else set()
                outcome.reference_said = list(answer)
            outcomes.append(outcome)
    return outcomes


# --- the report -----------------------------------------------------------------------------------


@dataclass
class Difference:
    """One class: a rule family only one side refuses for."""

    family: str
    side: str
    count: dict[str, int] = field(default_factory=dict)  # per corpus
    example: Outcome | None = None

    @property
    def why(self) -> str:
        return EXPLAINED.get((self.family, self.side), "")


#: Families that stop a validator before it reads the fields: a field rule the other side applies is no
#: difference then (skills-ref reports only its parse error; flue-skills reports every problem at once).
STOPS = frozenset(
    {"yaml", "no-frontmatter", "frontmatter-unclosed", "frontmatter-size", "encoding", "crash", "skill-file"}
)


def differences(outcomes: Iterable[Outcome]) -> list[Difference]:
    """Each family only one side refuses for, unless the other side stopped before it could apply it."""
    found: dict[tuple[str, str], Difference] = {}
    for outcome in outcomes:
        flue_only = [f for f in outcome.flue - outcome.reference if f in STOPS or not outcome.reference & STOPS]
        reference_only = [f for f in outcome.reference - outcome.flue if f in STOPS or not outcome.flue & STOPS]
        for family, side in [(f, FLUE) for f in flue_only] + [(f, REFERENCE) for f in reference_only]:
            difference = found.setdefault((family, side), Difference(family, side))
            difference.count[outcome.corpus] = difference.count.get(outcome.corpus, 0) + 1
            if difference.example is None or (
                difference.example.corpus != "mutations" and outcome.corpus == "mutations"
            ):
                difference.example = outcome
    return sorted(found.values(), key=lambda d: (-sum(d.count.values()), d.side, d.family))


def summary(outcomes: Sequence[Outcome]) -> dict[str, dict[str, int]]:
    by_corpus: dict[str, dict[str, int]] = {}
    for outcome in outcomes:
        row = by_corpus.setdefault(outcome.corpus, {"skills": 0, "same_verdict": 0, "same_rules": 0})
        row["skills"] += 1
        row["same_verdict"] += outcome.same_verdict
        row["same_rules"] += outcome.same_rules
    return by_corpus


def _share(part: int, whole: int) -> str:
    return f"{part:,} ({100 * part / whole:.1f}%)" if whole else "0"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _verdict(refused: set[str], said: list[str]) -> str:
    """What a validator said, shortly: each message's first line, at most two messages."""
    shown = [line if len(line) <= 160 else line[:159] + "…" for line in (m.splitlines()[0] for m in said)]
    if not refused:
        return "accepts" + (f" ({shown[0]})" if shown else "")
    return "; ".join(shown[:2]) + (f" (+{len(shown) - 2})" if len(shown) > 2 else "")


def report(outcomes: Sequence[Outcome], version: str, corpora: dict[str, str]) -> str:
    lines = [
        f"Agreement of `flue-skills check` with skills-ref {version}, {datetime.date.today().isoformat()}.",
        "",
        "| corpus | skills | same verdict | same rules |",
        "|---|---|---|---|",
    ]
    for corpus, row in summary(outcomes).items():
        lines.append(
            f"| {corpus}: {corpora[corpus]} | {row['skills']:,} | {_share(row['same_verdict'], row['skills'])} "
            f"| {_share(row['same_rules'], row['skills'])} |"
        )
    found = differences(outcomes)
    names = list(summary(outcomes))
    lines += [
        "",
        "Each class of difference: a rule only one side refuses a skill for (a warning of ours is no refusal; a "
        "field rule is not counted against a side that stopped at reading the frontmatter).",
        "",
        f"| rule | refused by | skills ({', '.join(names)}) | example | flue-skills check says | skills-ref says | why |",
        "|---|---|---|---|---|---|---|",
    ]
    for d in found:
        assert d.example is not None
        e = d.example
        counts = " / ".join(str(d.count.get(name, 0)) for name in names)
        lines.append(
            f"| `{d.family}` | {d.side} | {counts} | {e.corpus}: `{_cell(e.case)}` "
            f"| {_cell(_verdict(e.flue, e.flue_said))} | {_cell(_verdict(e.reference, e.reference_said))} "
            f"| {_cell(d.why) or '**unexplained**'} |"
        )
    return "\n".join(lines) + "\n"


def skills_ref_version(python: str | None) -> str:
    code = "from importlib.metadata import version; print(version('skills-ref'))"
    if python is None:
        from importlib.metadata import version

        return version("skills-ref")
    return subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def _in_corpus(root: Path) -> list[tuple[str, Path]]:
    """Every skill folder under `root`, as `check ROOT` finds them."""
    from flue_build.scan.found import find_skills

    return [(found.file.parent.relative_to(root).as_posix() or ".", found.file.parent) for found in find_skills(root)]


def run(
    work: Path, *, collection: int = 1241, real: Sequence[Path] = (), python: str | None = None
) -> tuple[list[Outcome], dict[str, str]]:
    """Generate the corpora under `work`, check every folder with both validators."""
    mutations = generate.make_mutation_corpus(work / "mutations")
    corpora = {"mutations": [(m.case, m.folder) for m in mutations]}
    described = {"mutations": "one skill per rule"}
    if collection:
        made = generate.make_skill_corpus(work / "collection", skills=collection)
        corpora["collection"] = [(p.name, p) for p in sorted(made.root.iterdir()) if p.is_dir()]
        described["collection"] = "generated, shaped like a public collection"
    for root in real:
        corpora[root.name] = _in_corpus(root.resolve())
        described[root.name] = f"every skill under `{root}`"
    return compare(corpora, python), described


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, action="append", default=[], help="a folder of real skills (repeatable)")
    parser.add_argument("--collection", type=int, default=1241, help="skills in the generated collection (0: none)")
    parser.add_argument("--skills-ref-python", help="an interpreter with skills-ref (default: this one)")
    parser.add_argument("--workdir", type=Path, help="keep the generated corpora here")
    parser.add_argument("--report", type=Path, help="write the markdown report here too")
    parser.add_argument("--json", type=Path, help="write every outcome as JSON here")
    args = parser.parse_args(argv)
    python = args.skills_ref_python
    if python is None:
        try:
            import skills_ref  # noqa: F401
        except ImportError:
            parser.exit(
                2, "agreement: skills-ref is not installed here; pip install skills-ref, or --skills-ref-python\n"
            )
    with tempfile.TemporaryDirectory(prefix="flue-agreement-") as temporary:
        work = args.workdir or Path(temporary)
        outcomes, described = run(work, collection=args.collection, real=args.corpus, python=python)
        text = report(outcomes, skills_ref_version(python), described)
        print(text)
        if args.report:
            args.report.write_text(text, encoding="utf-8")
        if args.json:
            args.json.write_text(json.dumps([as_json(o) for o in outcomes], indent=2), encoding="utf-8")
    return 0


def as_json(outcome: Outcome) -> dict[str, Any]:
    return {
        "corpus": outcome.corpus,
        "case": outcome.case,
        "flue": sorted(outcome.flue),
        "flue_warned": sorted(outcome.flue_warned),
        "flue_said": outcome.flue_said,
        "skills_ref": sorted(outcome.reference),
        "skills_ref_said": outcome.reference_said,
        "same_verdict": outcome.same_verdict,
        "same_rules": outcome.same_rules,
    }


if __name__ == "__main__":
    raise SystemExit(main())
