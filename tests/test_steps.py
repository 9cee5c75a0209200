"""Each step of the walk (`vetting.ENTRY_STEPS`, `FOLDER_STEPS`, `WARNINGS`) and of the field checks
(`validate.FIELD_CHECKS`) on its own, on a small real input: the entry or mapping it judges gets its
verdict (an action and a diagnostic, or the diagnostics of a field rule), and one it does not judge
gets none, so the next step decides. Every step in the tables has a case here: a step added without
one fails `test_every_step_has_a_case`.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

import pytest
from support.sources import PEM_KEY

from flue_runtime.format import validate, vetting
from flue_runtime.format.diagnostics import Diagnostic
from flue_runtime.format.frontmatter import parse
from flue_runtime.format.trees import DiskTree
from flue_runtime.format.vetting import DEFAULT_LIMITS, LARGE_FILE, Action, Entry, Limits, Verdict

CASES: dict[object, Callable[[Path], None]] = {}


def case(*steps: object) -> Callable[[Callable[[Path], None]], Callable[[Path], None]]:
    def register(test: Callable[[Path], None]) -> Callable[[Path], None]:
        for step in steps:
            CASES[step] = test
        return test

    return register


# --- the walk's steps -----------------------------------------------------------------------


def walking(
    root: Path,
    files: dict[str, bytes] | None = None,
    *,
    allow: Collection[str] | None = None,
    limits: Limits = DEFAULT_LIMITS,
    large_file: int = LARGE_FILE,
) -> vetting._Walking:
    """One walk's state over a real folder holding `files`."""
    for rel, data in (files or {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return vetting._Walking(DiskTree(root), "s", allow, large_file, limits, ())


def entry(walk: vetting._Walking, rel: str, *, examined: bool = True) -> Entry:
    """The entry at `rel` as the walk makes it, `lstat`ed (as `_examined` leaves it) unless not `examined`."""
    folder, _, name = rel.rpartition("/")
    made = Entry(folder, name, rel)
    if examined:
        made.info = walk.tree.stat(rel)
    return made


def read(walk: vetting._Walking, rel: str) -> Entry:
    """The entry at `rel` as the walk has it once `_read` read it."""
    made = entry(walk, rel)
    assert vetting._read(walk, made) is None
    return made


def judged(verdict: Verdict | None, action: Action, *codes: str) -> list[Diagnostic]:
    assert verdict is not None, "no verdict"
    assert verdict.action is action
    assert [d.code for d in verdict.diagnostics] == list(codes)
    return list(verdict.diagnostics)


@case(vetting._unservable_name)
def _(root: Path) -> None:
    walk = walking(root)
    (found,) = judged(vetting._unservable_name(walk, Entry("", "a\nb", "a\nb")), Action.REFUSE, "FLU309")
    assert found.path == "s/a\\nb" and "control character" in found.message
    assert vetting._unservable_name(walk, Entry("", "notes.md", "notes.md")) is None


@case(vetting._examined)
def _(root: Path) -> None:
    walk = walking(root, {"notes.md": b"x"})
    (found,) = judged(vetting._examined(walk, Entry("", "gone.md", "gone.md")), Action.REFUSE, "FLU308")
    assert found.message.startswith("cannot stat: ")
    present = Entry("", "notes.md", "notes.md")
    assert vetting._examined(walk, present) is None
    assert stat.S_ISREG(present.info.mode) and present.info.size == 1


@case(vetting._symbolic_link)
def _(root: Path) -> None:
    walk = walking(root, {"notes.md": b"x"})
    (root / "link.md").symlink_to("notes.md")
    (found,) = judged(vetting._symbolic_link(walk, entry(walk, "link.md")), Action.REFUSE, "FLU301")
    assert found.message == "symbolic link to `notes.md` refused: a link is never followed into a bundle"
    assert vetting._symbolic_link(walk, entry(walk, "notes.md")) is None


@case(vetting._folder)
def _(root: Path) -> None:
    walk = walking(root, {"docs/a.md": b"a", ".ssh/config": b"c", "notes.md": b"n"})
    judged(vetting._folder(walk, entry(walk, "docs")), Action.DESCEND)
    judged(vetting._folder(walk, entry(walk, ".ssh")), Action.REFUSE, "FLU302")
    assert vetting._folder(walk, entry(walk, "notes.md")) is None


@case(vetting._secret_folder)
def _(root: Path) -> None:
    files = {".aws/credentials": b"c", "docs/a.md": b"a"}
    walk = walking(root, files)
    (found,) = judged(vetting._secret_folder(walk, entry(walk, ".aws")), Action.REFUSE, "FLU302")
    assert found.message == "`.aws/` holds credentials; refused"
    assert vetting._secret_folder(walk, entry(walk, "docs")) is None
    assert vetting._secret_folder(walking(root, allow={".aws"}), entry(walk, ".aws")) is None


@case(vetting._too_deep)
def _(root: Path) -> None:
    walk = walking(root)
    limit = vetting.MAX_FOLDER_DEPTH
    deepest = "/".join(["d"] * limit)
    (found,) = judged(vetting._too_deep(walk, Entry(deepest, "d", deepest + "/d")), Action.REFUSE, "FLU313")
    assert found.message == f"folder nested more than {limit} levels deep inside the skill; refused"
    assert vetting._too_deep(walk, Entry(deepest.rpartition("/")[0], "d", deepest)) is None


@case(vetting._noise_folder)
def _(root: Path) -> None:
    walk = walking(root, {"node_modules/x.js": b"x", "src/x.js": b"x"})
    (found,) = judged(vetting._noise_folder(walk, entry(walk, "node_modules")), Action.SKIP, "FLU304")
    assert (found.path, found.message) == (
        "s/node_modules",
        "`node_modules/` skipped: tool output, not part of a skill",
    )
    assert vetting._noise_folder(walk, entry(walk, "src")) is None


@case(vetting._special_file)
def _(root: Path) -> None:
    walk = walking(root, {"notes.md": b"x"})
    os.mkfifo(root / "pipe")
    (found,) = judged(vetting._special_file(walk, entry(walk, "pipe")), Action.REFUSE, "FLU307")
    assert found.message == "not a regular file (a FIFO); refused"
    assert vetting._special_file(walk, entry(walk, "notes.md")) is None


@case(vetting._secret_name)
def _(root: Path) -> None:
    walk = walking(root, {".env": b"A=1", "notes.md": b"x"})
    refused = entry(walk, ".env")
    (found,) = judged(vetting._secret_name(walk, refused), Action.REFUSE, "FLU302")
    assert found.message == "`.env` looks like a secret; refused" and refused.secret_name
    plain = entry(walk, "notes.md")
    assert vetting._secret_name(walk, plain) is None and not plain.secret_name
    allowed = entry(walk, ".env")
    assert vetting._secret_name(walking(root, allow={".env"}), allowed) is None
    assert allowed.secret_name  # remembered: the packed file gets FLU306


@case(vetting._noise_file)
def _(root: Path) -> None:
    walk = walking(root, {"x.pyc": b"x", "x.py": b"x"})
    (found,) = judged(vetting._noise_file(walk, entry(walk, "x.pyc")), Action.SKIP, "FLU304")
    assert found.message == "`x.pyc` skipped: editor, OS, VCS or compiler litter"
    assert vetting._noise_file(walk, entry(walk, "x.py")) is None


@case(vetting._file_count)
def _(root: Path) -> None:
    walk = walking(root, {"a.md": b"a", "b.md": b"b"}, limits=Limits(skill_files=1))
    assert vetting._file_count(walk, entry(walk, "a.md")) is None
    (found,) = judged(vetting._file_count(walk, entry(walk, "b.md")), Action.STOP, "FLU310")
    assert (found.path, found.message) == ("s", "more than 1 files in one skill; refused (the walk stopped at b.md)")


@case(vetting._bundle_size)
def _(root: Path) -> None:
    walk = walking(root, {"small.md": b"12345", "big.md": b"x" * 11}, limits=Limits(bundle_size=10))
    assert vetting._bundle_size(walk, entry(walk, "small.md")) is None
    assert walk.total == 0  # counted when read
    judged(vetting._bundle_size(walk, entry(walk, "big.md")), Action.SKIP)
    assert walk.total == 11  # over the limit: `finish` reports FLU311


@case(vetting._read)
def _(root: Path) -> None:
    walk = walking(root, {"notes.md": b"hello", "more.md": b"x" * 8}, limits=Limits(bundle_size=10))
    found = entry(walk, "notes.md")
    assert vetting._read(walk, found) is None
    assert (found.read.size, walk.total, found.read.sha256[:8]) == (5, 5, "2cf24dba")
    judged(vetting._read(walk, entry(walk, "more.md")), Action.SKIP)  # past the bytes left: over the limit
    assert walk.total == 11
    gone = entry(walk, "notes.md")
    (root / "notes.md").unlink()
    (problem,) = judged(vetting._read(walking(root), gone), Action.REFUSE, "FLU308")
    assert problem.message.startswith("cannot read: ")


@case(vetting._secret_content)
def _(root: Path) -> None:
    walk = walking(root, {"key.txt": PEM_KEY, "notes.md": b"x"})
    (found,) = judged(vetting._secret_content(walk, read(walk, "key.txt")), Action.REFUSE, "FLU303")
    assert (found.message, found.line) == ("holds a PEM private key; refused", 1)
    assert vetting._secret_content(walk, read(walk, "notes.md")) is None
    assert vetting._secret_content(walking(root, allow={"key.txt"}), read(walk, "key.txt")) is None


@case(vetting._hidden_text)
def _(root: Path) -> None:
    tags = "".join(chr(0xE0000 + ord(c)) for c in "hi").encode()
    walk = walking(root, {"tags.md": b"a" + tags + b"\xe2\x80\x8b", "zwsp.md": b"a\xe2\x80\x8bb"})
    (found, warned) = judged(vetting._hidden_text(walk, read(walk, "tags.md")), Action.REFUSE, "FLU317", "FLU318")
    assert (found.path, found.line, found.column, warned.column) == ("s/tags.md", 1, 2, 4)
    assert vetting._hidden_text(walk, read(walk, "zwsp.md")) is None  # kept, with FLU318 (`_kept`)


@case(vetting._kept)
def _(root: Path) -> None:
    walk = walking(root, {"notes.md": b"x" * 20}, large_file=10)
    os.link(root / "notes.md", root / "twin.md")
    judged(vetting._kept(walk, read(walk, "notes.md")), Action.KEEP, "FLU305", "FLU314")
    (root / "twin.md").unlink()
    judged(vetting._kept(walking(root), read(walk, "notes.md")), Action.KEEP)
    (root / "zwsp.md").write_bytes(b"a\xe2\x80\x8bb")
    judged(vetting._kept(walking(root), read(walk, "zwsp.md")), Action.KEEP, "FLU318")


@case(vetting._allowed_secret)
def _(root: Path) -> None:
    walk = walking(root, {"key.txt": PEM_KEY, ".env": b"A=1"}, allow={"key.txt", ".env"})
    found = vetting._allowed_secret(walk, read(walk, "key.txt"))
    assert found is not None and (found.code, found.line) == ("FLU306", 1)
    assert found.message == "packed although it holds a PEM private key: allowed by [tool.flue] allow"
    named = read(walk, ".env")
    named.secret_name = True
    found = vetting._allowed_secret(walk, named)
    assert found is not None and found.message == "packed although it looks like a secret: allowed by [tool.flue] allow"
    assert vetting._allowed_secret(walking(root), read(walk, "key.txt")) is None  # not allowed: refused before


@case(vetting._large_file)
def _(root: Path) -> None:
    walk = walking(root, {"big.bin": b"x" * (3 * 1024 * 1024 // 2), "small.md": b"x"}, large_file=1024 * 1024)
    found = vetting._large_file(walk, read(walk, "big.bin"))
    assert found is not None and (found.code, found.message) == ("FLU305", "large file packed (1.5 MiB)")
    assert vetting._large_file(walk, read(walk, "small.md")) is None


@case(vetting._hard_linked)
def _(root: Path) -> None:
    walk = walking(root, {"notes.md": b"x", "alone.md": b"y"})
    os.link(root / "notes.md", root / "twin.md")
    found = vetting._hard_linked(walk, read(walk, "notes.md"))
    assert found is not None and found.code == "FLU314" and found.message.startswith("hard-linked file packed: 2 names")
    assert vetting._hard_linked(walk, read(walk, "alone.md")) is None


# --- the field checks -------------------------------------------------------------------------

VALID = "name: s\ndescription: Handle refunds.\n"


def fields(yaml: str, directory: str | None = "s") -> validate._Fields:
    """A frontmatter mapping under check, read from a real SKILL.md text (for lines and columns)."""
    front = parse(f"---\n{yaml}---\n".encode(), "s/SKILL.md")
    assert front.data is not None, front.diagnostics
    return validate._Fields.of(front.data, "s/SKILL.md", directory, front)


def codes(found: list[Diagnostic]) -> list[tuple[str, int | None, int | None, str | None]]:
    return [(d.code, d.line, d.column, d.field) for d in found]


@case(validate._required)
def _(root: Path) -> None:
    found = validate._required(fields("license: MIT\n", "refunds"))
    assert codes(found) == [("FLU201", 1, 1, "name"), ("FLU201", 1, 1, "description")]
    assert found[0].hint == "add `name: refunds` (the skill directory's name)"
    assert validate._required(fields(VALID)) == []


@case(validate._schema_failures)
def _(root: Path) -> None:
    found = validate._schema_failures(fields("name: Bad_Name\ndescription: ''\ncompatibility: ''\nlicense: [a]\n"))
    assert codes(found) == [
        ("FLU204", 2, 7, "name"),
        ("FLU206", 3, 14, "description"),
        ("FLU202", 5, 10, "license"),  # (in the schema's order of fields; `check_skill_md` sorts by place)
        ("FLU208", 4, 16, "compatibility"),
    ]
    assert found[2].message == "`license` must be a string, not a list"
    long_name = "n" * 65
    (too_long,) = validate._schema_failures(fields(f"name: {long_name}\ndescription: d\n", None))
    assert too_long.code == "FLU203"
    (metadata,) = validate._schema_failures(fields(VALID + "metadata:\n  tags: [a, b]\n"))
    assert (metadata.code, metadata.message) == (
        "FLU209",
        "metadata value `tags` is a list; metadata values must be strings",
    )
    assert validate._schema_failures(fields(VALID)) == []


@case(validate._name_is_folder)
def _(root: Path) -> None:
    (found,) = validate._name_is_folder(fields(VALID, "refunds"))
    assert codes([found]) == [("FLU205", 2, 7, "name")]
    assert found.hint == "rename the directory to `s` or set `name: refunds`"
    assert validate._name_is_folder(fields(VALID)) == []
    assert validate._name_is_folder(fields(VALID, None)) == []  # no folder: `define_skill`


@case(validate._placeholder)
def _(root: Path) -> None:
    placeholder = validate.PLACEHOLDER_DESCRIPTION
    (found,) = validate._placeholder(fields(f"name: s\ndescription: {placeholder}\n"))
    assert codes([found]) == [("FLU213", 3, 14, "description")]
    assert validate._placeholder(fields(VALID)) == []


@case(validate._reserved_metadata)
def _(root: Path) -> None:
    """Issue 40 item 10 (the Skills extension's "Reservations"): `metadata` keys under `io.modelcontextprotocol/`
    are reserved for MCP extensions, which define none yet; a key of another prefix is the skill's own."""
    yaml = VALID + "metadata:\n  io.modelcontextprotocol/origin: x\n  acme.io/team: billing\n"
    (found,) = validate._reserved_metadata(fields(yaml))
    assert codes([found]) == [("FLU214", 5, 3, "metadata")]
    assert "`io.modelcontextprotocol/origin`" in found.message
    assert validate._reserved_metadata(fields(VALID + "metadata:\n  io.modelcontextprotocol.x: y\n")) == []
    assert validate._reserved_metadata(fields(VALID)) == []


@case(validate._comma_tools)
def _(root: Path) -> None:
    (found,) = validate._comma_tools(fields(VALID + "allowed-tools: Read, Write\n"))
    assert codes([found]) == [("FLU211", 4, 16, "allowed-tools")]
    assert found.hint == "write it as a space-separated string: `allowed-tools: Read Write`"
    assert validate._comma_tools(fields(VALID + "allowed-tools: Read Write\n")) == []


@case(validate._typed_otherwise)
def _(root: Path) -> None:
    found = validate._typed_otherwise(fields(VALID + "license: yes\nmetadata:\n  n: '0777'\n  tags: [beta, 1:30]\n"))
    assert codes(found) == [("FLU215", 4, 10, "license"), ("FLU215", 6, 3, "metadata"), ("FLU215", 7, 16, "metadata")]
    assert [d.hint.rpartition(" ")[2] for d in found] == ['"yes"`', '"0777"`', '"1:30"`']
    assert (
        found[0].message.startswith("`yes` is `true` to YAML 1.1 readers")
        and "but a string to YAML 1.2" in found[0].message
    )
    assert validate._typed_otherwise(validate._Fields.of({"name": "s", "description": "yes"}, "s", "s", None)) == []
    assert validate._typed_otherwise(fields(VALID + "license: 'yes'\nmetadata:\n  '0777': \"on\"\n")) == []


@case(validate._unknown_fields)
def _(root: Path) -> None:
    found = validate._unknown_fields(fields(VALID + "licence: MIT\nmodel: x\n"))
    assert codes(found) == [("FLU210", 4, 1, "licence"), ("FLU210", 5, 1, "model")]
    assert found[0].hint == "did you mean `license`?"
    assert validate._unknown_fields(fields(VALID + "license: MIT\n")) == []


# --- every step has its case, and the steps are what `walk` and `check_fields` run -----------

STEPS: list[Any] = [
    *vetting.ENTRY_STEPS,
    *vetting.FOLDER_STEPS,
    *vetting.WARNINGS,
    *validate.FIELD_CHECKS,
]


def test_every_step_has_a_case() -> None:
    assert [step.__name__ for step in STEPS if step not in CASES] == []


@pytest.mark.parametrize("step", STEPS, ids=lambda step: f"{step.__module__.rpartition('.')[2]}.{step.__name__}")
def test_step(step: object, tmp_path: Path) -> None:
    CASES[step](tmp_path)


def test_walk_and_check_fields_run_the_tables(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A step taken out of its table is no longer run: the tables are the control flow, not a copy of it."""
    (tmp_path / "x.pyc").write_bytes(b"x")
    tree = DiskTree(tmp_path)
    assert [d.code for d in vetting.walk(tree, display="s").diagnostics] == ["FLU304"]
    monkeypatch.setattr(vetting, "ENTRY_STEPS", tuple(s for s in vetting.ENTRY_STEPS if s is not vetting._noise_file))
    walked = vetting.walk(tree, display="s")
    assert walked.diagnostics == [] and [f.path for f in walked.files] == ["x.pyc"]

    data = {"name": "s", "description": "d", "licence": "MIT"}
    assert [d.code for d in validate.check_fields(data, "s/SKILL.md", "s")] == ["FLU210"]
    monkeypatch.setattr(validate, "FIELD_CHECKS", validate.FIELD_CHECKS[:-1])
    assert validate.check_fields(data, "s/SKILL.md", "s") == []
