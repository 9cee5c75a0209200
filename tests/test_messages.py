"""Every diagnostic code is one row of one table (`flue_runtime/format/messages.py`): severity, meaning, words.

Rewording a message touches the table only: the code that reports a problem names a key and
the values to fill in. These tests hold the table and its users to each other: every key
reported exists and is given exactly the fields its template names, every entry is used,
every code has words there, no diagnostic is made or worded outside the table (issue 42 item 2),
and a changed entry is what the walk and the field checks then say.
"""

from __future__ import annotations

import ast
import functools
import string
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.paths import ROOT

from flue_runtime.format.diagnostics import Diagnostic
from flue_runtime.format.messages import CODES, PIECES, Text
from flue_runtime.format.trees import MemoryTree
from flue_runtime.format.validate import check_fields
from flue_runtime.format.vetting import walk

#: Every case of every code, by the key callers name it with (`FLU304 folder`; `FLU104` for a code alone).
TEXTS = {f"{code} {case}".rstrip(): text for code, row in CODES.items() for case, text in row.texts.items()}
SOURCES = sorted(
    path
    for package in ("flue_runtime", "flue_build", "hatch_plugin")
    for path in (ROOT / package).rglob("*.py")
    if path.name != "messages.py"
)


@functools.cache
def nodes(path: Path) -> list[ast.AST]:
    """Every node of a source file, parsed once for all these tests."""
    return list(ast.walk(ast.parse(path.read_text(encoding="utf-8"))))


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
        for node in nodes(path):
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
        for node in nodes(path)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    assert sorted(set(TEXTS) - used) == [] and sorted(set(PIECES) - used) == []
    assert all(row.severity in ("error", "warning") and row.texts for row in CODES.values())


def test_no_diagnostic_is_made_outside_the_diagnostics_module() -> None:
    """`Diagnostic(...)` takes words: only `diagnostics.diagnostic()` (the table's words) and `bounded`'s `More`
    make one; `Diagnostic.make`, which took words from anywhere, is gone."""
    made = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in SOURCES
        if path != ROOT / "flue_runtime" / "format" / "diagnostics.py"
        for node in nodes(path)
        if isinstance(node, ast.Call) and ast.unparse(node.func).endswith(("Diagnostic", "More", "Diagnostic.make"))
    ]
    assert made == [] and not hasattr(Diagnostic, "make")


def worded(node: ast.expr) -> bool:
    """Whether `node` writes words: a string literal holding a letter, alone, in an f-string, a `+`, an
    `a if c else b` or as the glue of a `join`."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and any(char.isalpha() for char in node.value)
    if isinstance(node, ast.JoinedStr):
        return any(worded(part) for part in node.values)
    if isinstance(node, ast.BinOp):
        return worded(node.left) or worded(node.right)
    if isinstance(node, ast.IfExp):
        return worded(node.body) or worded(node.orelse)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join":
        return worded(node.func.value)
    return False


def test_no_words_reach_a_diagnostic_but_the_tables() -> None:
    """A call that names an entry of the table (`diagnostic(key, ...)`, `piece(key, ...)` and every wrapper of
    theirs) passes values, never words; so does a `replace(diagnostic, message=...)`. (`field` names a field.)"""
    keys = set(TEXTS) | set(PIECES)
    found = []
    for path in SOURCES:
        for node in nodes(path):
            if not isinstance(node, ast.Call):
                continue
            names_entry = any(set(keys_of(arg) or ()) & keys for arg in node.args)
            rewords = ast.unparse(node.func).split(".")[-1] == "replace"
            for keyword in node.keywords:
                if (names_entry and keyword.arg != "field") or (rewords and keyword.arg in ("message", "hint")):
                    if keyword.value is not None and worded(keyword.value):
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(keyword)[:80]}")
    assert found == []


def test_a_reworded_entry_is_what_the_walk_says(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(CODES["FLU304"].texts, "folder", Text("`{name}/` left out: a tool's", "remove `{name}/`"))
    tree = MemoryTree({"SKILL.md": b"---\nname: s\n---\n", "node_modules/x.js": b"x"})
    (found,) = walk(tree, display="skills/s").diagnostics
    assert (found.code, found.path, found.message, found.hint) == (
        "FLU304",
        "skills/s/node_modules",
        "`node_modules/` left out: a tool's",
        "remove `node_modules/`",
    )


def test_a_reworded_piece_is_what_the_field_checks_say(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(CODES["FLU210"].texts, "", Text("`{key}` is no field of the spec", "{hint}"))
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
        for node in nodes(path)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }


def test_the_skill_rules_never_name_a_code_of_the_build() -> None:
    """The codes the build reports (the source scanner, the collector, the audit, the hook's set-up: FLU100,
    FLU4xx, FLU5xx) are named in flue_build, and never by the skill format's modules, but `exports` (FLU413: a
    package spec another distribution does not export, which its build and the run time word alike)."""
    build = sorted(code for code in CODES if code == "FLU100" or code[3] in "45")
    rules = [path for path in sorted((ROOT / "flue_runtime" / "format").glob("*.py")) if path.name != "messages.py"]
    named_by_build = {key.partition(" ")[0] for key in _string_constants(sorted((ROOT / "flue_build").rglob("*.py")))}
    named_by_rules = {key.partition(" ")[0] for key in _string_constants(rules) if key in TEXTS}
    assert [code for code in build if code not in named_by_build | {"FLU413"}] == []
    assert [code for code in build if code in named_by_rules] == ["FLU413"]
