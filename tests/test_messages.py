"""Every run-time diagnostic's words live in one table (`flue_runtime/format/messages.py`), keyed by code.

Rewording a message touches the table only: the code that reports a problem names a key and
the values to fill in. These tests hold the table and its users to each other: every key
reported exists and is given exactly the fields its template names, every entry is used,
every code but the build's has words there, no diagnostic in `flue_runtime` is worded outside
the table, and a changed entry is what the walk and the field checks then say.
"""

from __future__ import annotations

import ast
import string
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.paths import ROOT

from flue_runtime.format.diagnostics import CODES
from flue_runtime.format.messages import PIECES, TEXTS, Text
from flue_runtime.format.trees import MemoryTree
from flue_runtime.format.validate import check_fields
from flue_runtime.format.vetting import walk

SOURCES = sorted(
    path
    for package in ("flue_runtime", "flue_build")
    for path in (ROOT / package).rglob("*.py")
    if path.name != "messages.py"
)


def fields_of(*templates: str) -> set[str]:
    """The names a template fills in (`{limit:,}` and `{name[maxLength]}` name `limit` and `name`)."""
    found = set()
    for template in templates:
        for _, name, _, _ in string.Formatter().parse(template):
            if name is not None:
                found.add(name.split("[", 1)[0].split(".", 1)[0])
    return found


def keys_of(node: ast.expr) -> list[str] | None:
    """The keys an argument can be: a string, or either side of `a if c else b`; None when computed."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        body, orelse = keys_of(node.body), keys_of(node.orelse)
        return None if body is None or orelse is None else body + orelse
    return None


def worded_calls() -> Iterator[tuple[str, int, str, ast.Call]]:
    """Every call that names a table entry: `diagnostic(key, ...)`, `deferred(key, ...)`, `piece(key, ...)`, and the field
    checks' `fields.problem(key, ...)` and the frontmatter reader's `_Refused.at(where, key, ...)`."""
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            owner = ast.unparse(func.value) if isinstance(func, ast.Attribute) else ""
            if node.args and (
                name in ("diagnostic", "deferred", "piece")
                or (name, owner) in (("problem", "fields"), ("at", "_Refused"))
            ):
                yield where, node.lineno, name, node


def test_every_key_reported_exists_and_gets_exactly_its_templates_fields() -> None:
    checked = 0
    for where, _, name, call in worded_calls():
        key_arg = call.args[1] if name == "at" else call.args[0]
        keys = keys_of(key_arg)
        ignored = ("field", "problems") if name == "deferred" else ("field",)  # (a `Deferred`'s own)
        passed = {keyword.arg for keyword in call.keywords if keyword.arg is not None and keyword.arg not in ignored}
        if keys is None or any(keyword.arg is None for keyword in call.keywords):
            continue  # a computed key or `**values`: the tests of each surface's words cover those
        for key in keys:
            if name == "piece":
                assert key in PIECES, f"{where}: no piece {key!r}"
                expected = fields_of(PIECES[key])
            else:
                assert key in TEXTS, f"{where}: no text {key!r}"
                expected = fields_of(*TEXTS[key])
            assert passed == expected, f"{where}: {key!r} takes {sorted(expected)}, given {sorted(passed)}"
            checked += 1
    assert checked > 80  # the walk, the secrets' verdicts, the field checks and the frontmatter reader


def test_every_entry_is_used_and_every_text_names_a_code() -> None:
    used = {
        node.value
        for path in SOURCES
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    assert sorted(set(TEXTS) - used) == [] and sorted(set(PIECES) - used) == []
    assert all(key.partition(" ")[0] in CODES for key in TEXTS)


def test_no_diagnostic_of_the_run_time_is_worded_outside_the_table() -> None:
    """`Diagnostic.make` takes words; in `flue_runtime` (the skill format, the sources, `define_skill`, what
    an MCP host reads) only `diagnostic()` calls it."""
    worded = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in sorted((ROOT / "flue_runtime").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "Diagnostic.make"
    ]
    assert worded == ["flue_runtime/format/diagnostics.py:" + worded[-1].rpartition(":")[2]], worded


def test_a_reworded_entry_is_what_the_walk_says(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(TEXTS, "FLU304 folder", Text("`{name}/` left out: a tool's", "remove `{name}/`"))
    tree = MemoryTree({"SKILL.md": b"---\nname: s\n---\n", "node_modules/x.js": b"x"})
    (found,) = walk(tree, display="skills/s").diagnostics
    assert (found.code, found.path, found.message, found.hint) == (
        "FLU304",
        "skills/s/node_modules",
        "`node_modules/` left out: a tool's",
        "remove `node_modules/`",
    )


def test_a_reworded_piece_is_what_the_field_checks_say(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(TEXTS, "FLU210", Text("`{key}` is no field of the spec", "{hint}"))
    monkeypatch.setitem(PIECES, "FLU210 typo", "perhaps `{close}`")
    (found,) = check_fields({"name": "s", "description": "d", "licence": "MIT"}, "s/SKILL.md", "s")
    assert (found.code, found.message, found.hint, found.field) == (
        "FLU210",
        "`licence` is no field of the spec",
        "perhaps `license`",
        "licence",
    )


def _string_constants(paths: list[Path]) -> set[str]:
    return {
        node.value
        for path in paths
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }


def test_the_table_words_every_code_the_skill_rules_report() -> None:
    """Every code of `diagnostics.CODES` has its words in the table, but those the build reports (the
    source scanner, the collector, the audit, the hook's set-up: FLU100, FLU4xx, FLU5xx), which the
    skill format's modules never name (but `diagnostics` and `codes`, which list every code)."""
    worded = {key.partition(" ")[0] for key in TEXTS}
    unworded = sorted(set(CODES) - worded)
    assert unworded == sorted(code for code in CODES if code == "FLU100" or code[3] in "45")
    build = _string_constants(sorted((ROOT / "flue_build").rglob("*.py")))
    rules = _string_constants(
        [
            path
            for path in sorted((ROOT / "flue_runtime" / "format").glob("*.py"))
            if path.name not in ("diagnostics.py", "codes.py")
        ]
    )
    assert [code for code in unworded if code not in build] == []
    assert [code for code in unworded if code in rules] == []
