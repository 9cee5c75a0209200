"""define_skill: the same rules as a SKILL.md on disk, immutability, generated SKILL.md, stable ids."""

from __future__ import annotations

import random

import pytest
from support.hostile import planted

from flue_runtime.errors import SkillError, SkillNotFoundError, SkillPathError, SkillWarning
from flue_runtime.format.validate import check_skill_md
from flue_runtime.mount.define import define_skill, render_skill_md

BASE = dict(
    name="refunds", description="Handle refunds. Use when a customer wants money back.", instructions="# Refunds\n"
)


def problems(**overrides: object) -> dict[str, list[str]]:
    with pytest.raises(SkillError) as info:
        define_skill(**{**BASE, **overrides})  # type: ignore[arg-type]
    return info.value.fields


def test_a_valid_definition() -> None:
    skill = define_skill(
        **BASE,
        license="MIT",
        compatibility="Needs network",
        metadata={"team": "billing"},
        allowed_tools="Read Write",
        files={"policy.md": "30 days", "img/logo.png": b"\x89PNG"},
    )
    assert (skill.name, skill.license, skill.compatibility) == ("refunds", "MIT", "Needs network")
    assert dict(skill.metadata) == {"team": "billing"}
    assert skill.allowed_tools == ("Read", "Write")
    assert skill.resources == ("img/logo.png", "policy.md")
    assert skill.instructions == "# Refunds\n"
    assert skill.read_text("policy.md") == "30 days"
    assert skill.read_bytes("img/logo.png") == b"\x89PNG"


@pytest.mark.parametrize(
    "overrides, field, words",
    [
        ({"name": "x" * 65}, "name", "65 characters"),
        ({"name": "Refunds"}, "name", "lowercase"),
        ({"name": "-refunds"}, "name", "start with a hyphen"),
        ({"name": "refunds-"}, "name", "end with a hyphen"),
        ({"name": "re--funds"}, "name", "two hyphens"),
        ({"name": "réfunds"}, "name", "ASCII"),
        ({"name": None}, "name", "must be a string"),
        ({"description": ""}, "description", "empty"),
        ({"description": "  \n "}, "description", "empty"),
        ({"description": "é" * 1025}, "description", "1025"),
        ({"compatibility": ""}, "compatibility", "1-500"),
        ({"compatibility": "x" * 501}, "compatibility", "1-500"),
        ({"license": 3}, "license", "must be a string"),
        ({"metadata": {"a": 1}}, "metadata", "must be strings"),
        ({"metadata": {"a": {"b": "c"}}}, "metadata", "must be strings"),
        ({"metadata": ["a"]}, "metadata", "mapping"),
        ({"allowed_tools": ["Read", 3]}, "allowed-tools", "list of tool names"),
        ({"instructions": None}, "instructions", "must be a string"),
        ({"files": {"../escape.md": "x"}}, "files", "`..`"),
        ({"files": {"/etc/passwd": "x"}}, "files", "absolute"),
        ({"files": {"a\\b.md": "x"}}, "files", "backslash"),
        ({"files": {"SKILL.md": "x"}}, "files", "generated"),
        ({"files": {".env": "KEY=1"}}, "files", "secret"),
        ({"files": {"notes.txt": planted.shaped_pem(random.Random(1))}}, "files", "private key"),
        ({"files": {"a": "x", "a/b": "y"}}, "files", "also a folder"),
        ({"files": {"a.md": 3}}, "files", "str or bytes"),
    ],
)
def test_every_rule(overrides: dict[str, object], field: str, words: str) -> None:
    found = problems(**overrides)
    assert field in found, found
    assert any(words in message for message in found[field]), found


def test_every_problem_in_one_error() -> None:
    with pytest.raises(SkillError) as info:
        define_skill(name="Bad", description="", instructions="x", files={"../x": "y"})
    assert set(info.value.fields) == {"name", "description", "files"}
    text = str(info.value)
    assert text.startswith("invalid define_skill(name='Bad'): 3 problems")
    assert "  name: " in text and "  description: " in text and "  files: " in text


def test_deeply_immutable() -> None:
    metadata = {"team": "billing"}
    files: dict[str, str | bytes] = {"policy.md": "30 days"}
    skill = define_skill(**BASE, metadata=metadata, files=files)
    before = skill.id
    metadata["team"] = "changed"
    files["policy.md"] = "changed"
    files["new.md"] = "added"
    assert dict(skill.metadata) == {"team": "billing"}
    assert skill.read_text("policy.md") == "30 days" and skill.resources == ("policy.md",)
    assert skill.id == before
    with pytest.raises(TypeError):
        skill.metadata["team"] = "x"  # type: ignore[index]
    with pytest.raises(AttributeError):
        skill.name = "other"  # type: ignore[misc]


def test_generated_skill_md_round_trips_through_the_parser() -> None:
    tricky = 'Use when: "quotes", \\backslashes\\, tabs\t, newlines\nNEL\x85, BOM\ufeff, emoji 🎉 --- and # hash'
    skill = define_skill(
        name="round-trip",
        description=tricky,
        instructions="---\nnot frontmatter\n",
        license="- dash",
        compatibility="yes",
        metadata={"version": "1.0", "key: colon": "null", "z": ""},
        allowed_tools="Read Bash(git log:*)",
    )
    parsed = check_skill_md(skill.read_bytes("SKILL.md"), "round-trip/SKILL.md", "round-trip", strict=True)
    assert parsed.ok, parsed.diagnostics
    assert parsed.metadata == skill.fields
    assert parsed.body == "---\nnot frontmatter\n" == skill.instructions


def test_same_content_same_id_whatever_the_order() -> None:
    a = define_skill(**BASE, metadata={"a": "1", "b": "2"}, files={"x.md": "x", "y.md": b"y"})
    b = define_skill(**BASE, metadata={"b": "2", "a": "1"}, files={"y.md": b"y", "x.md": "x"})
    c = define_skill(**BASE, metadata={"a": "1", "b": "3"}, files={"x.md": "x", "y.md": b"y"})
    assert a.id == b.id and a == b and hash(a) == hash(b)
    assert a.id != c.id and a != c


def test_packing_is_lazy_and_cached() -> None:
    skill = define_skill(**BASE, files={"a.md": "a"})
    source = skill.source
    assert source._packed is None
    first = skill.files
    assert source._packed is not None and skill.files is first


@pytest.mark.parametrize(
    "path", ["../SKILL.md", "/SKILL.md", "a/../SKILL.md", "%2e%2e/x", "%252e%252e/x", "a\\b", "a\x00", "．．/x", ""]
)
def test_reads_refuse_paths_that_leave_the_skill(path: str) -> None:
    skill = define_skill(**BASE, files={"a.md": "a"})
    with pytest.raises(SkillPathError, match="refused path"):
        skill.read_bytes(path)


def test_read_of_a_missing_file_names_the_files() -> None:
    skill = define_skill(**BASE, files={"a.md": "a"})
    with pytest.raises(SkillNotFoundError, match="'SKILL.md', 'a.md'|SKILL.md, a.md"):
        skill.read_text("b.md")


def test_render_is_deterministic() -> None:
    skill = define_skill(**BASE, metadata={"b": "1", "a": "2"})
    assert render_skill_md(skill.fields, "x") == render_skill_md(skill.fields, "x")
    assert render_skill_md(skill.fields, "x").index('"a"') < render_skill_md(skill.fields, "x").index('"b"')


@pytest.mark.parametrize(
    ("overrides", "code"),
    [
        ({"description": "Describe what this skill does and when the agent should use it."}, "FLU213"),
        ({"allowed_tools": "Read, Write"}, "FLU211"),
    ],
)
def test_the_field_warnings_a_skill_md_gets_are_issued_too(overrides: dict[str, object], code: str) -> None:
    """What check and the builds warn about in a SKILL.md is a SkillWarning here, and the skill is still defined."""
    with pytest.warns(SkillWarning, match=rf"define_skill\(name='refunds'\): {code} ") as caught:
        skill = define_skill(**{**BASE, **overrides})  # type: ignore[arg-type]
    assert len(caught) == 1
    assert skill.name == "refunds"
