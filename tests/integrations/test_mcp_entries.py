"""The Skills extension's entries as SEP-2640 states them, through the MCP SDK's client in process:
the frontmatter typed as a YAML loader types it, the result fields of the negotiated revision only, and
the host's side (`flue_runtime.mcp.host`) refusing every file and field that is not what the entry says."""

from __future__ import annotations

import pytest
from support.optional import need

need("mcp", "mcp")

import copy
import hashlib
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcpclient import get_skill, list_skills, verified_skills
from support.paths import FIXTURES
from support.projects import write_skill

from flue_runtime.errors import SkillVerificationError
from flue_runtime.mcp import skills_server
from flue_runtime.mcp.entries import entry
from flue_runtime.mcp.host import check_entry, verify_file, verify_skill, verify_skill_md
from flue_runtime.mount.disk import load_skill_dir
from flue_runtime.mount.reference import SkillReference

#: Frontmatter as authors write it (the Agent Skills fields, another agent's, and free-form ones), and what a
#: YAML 1.2 loader makes of it, in the order written.
TYPED_SOURCE = """\
license: Apache-2.0
user-invocable: false
disable-model-invocation: true
build: 7
metadata:
  a: 1
  b: "2"
  ratio: 0.5
  nothing: ~
  octal: 0o17
  hex: 0x1F
  padded: 0777
tags: [alpha, 2, true, null]
paths:
  - src/**
  - "*.md"
hooks:
  before: {run: lint, timeout: 30}
reviewed: 2024-05-01
answer: yes
grouped: 1_000
clock: 1:30
forever: .inf
quoted: "false"
text: !!str 7
tagged: ! 8
count: !!int "9"
block: |
  two
  lines
"""
TYPED = {
    "license": "Apache-2.0",
    "user-invocable": False,
    "disable-model-invocation": True,
    "build": 7,
    "metadata": {"a": 1, "b": "2", "ratio": 0.5, "nothing": None, "octal": 15, "hex": 31, "padded": 777},
    "tags": ["alpha", 2, True, None],
    "paths": ["src/**", "*.md"],
    "hooks": {"before": {"run": "lint", "timeout": 30}},
    "reviewed": "2024-05-01",
    "answer": "yes",
    "grouped": "1_000",
    "clock": "1:30",
    "forever": ".inf",
    "quoted": "false",
    "text": "7",
    "tagged": "8",
    "count": 9,
    "block": "two\nlines\n",
}


@pytest.fixture
def typed_skill(tmp_path: Path) -> SkillReference:
    folder = write_skill(tmp_path / "typed", frontmatter=TYPED_SOURCE, files={"notes/a b.md": "# Notes\n"})
    return load_skill_dir(folder)


def served(skill: SkillReference, mode: str) -> Client:
    return Client(skills_server([skill]), mode=mode)


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_frontmatter_is_the_yaml_as_a_loader_types_it(typed_skill: SkillReference, mode: str) -> None:
    async def session() -> None:
        async with served(typed_skill, mode) as client:
            [listed] = (await list_skills(client))["skills"]
            front = listed["frontmatter"]
            assert front == {"name": "typed", "description": typed_skill.description, **TYPED}
            assert list(front) == ["name", "description", *TYPED]  # every field, in the order written
            # JSON's types, not Python's loose equality: False is not 0, 7 is not 7.0, "2" is not 2.
            assert [type(v) for v in front.values()] == [str, str, *(type(v) for v in TYPED.values())]
            assert type(front["metadata"]["a"]) is int and type(front["metadata"]["ratio"]) is float
            assert (await get_skill(client, listed["uri"]))["skill"]["frontmatter"] == front
            await verified_skills(client)

    anyio.run(session)


def test_the_skill_rules_still_read_every_value_as_a_string(typed_skill: SkillReference) -> None:
    assert typed_skill.metadata["a"] == "1" and typed_skill.metadata["octal"] == "0o17"
    assert entry(typed_skill)["frontmatter"]["metadata"]["a"] == 1


def test_result_fields_are_those_of_the_negotiated_revision(typed_skill: SkillReference) -> None:
    """`resultType`, `ttlMs` and `cacheScope` are defined from 2026-07-28 (the base schema's `Result` and
    `CacheableResult`, which the extension's results extend); a 2025-11-25 client gets none of them."""

    async def session() -> None:
        async with served(typed_skill, "legacy") as client:
            assert client.protocol_version == "2025-11-25"
            assert sorted(await list_skills(client)) == ["skills"]
            assert sorted(await get_skill(client, "skill://typed/SKILL.md")) == ["skill"]
        async with served(typed_skill, "2026-07-28") as client:
            for got in (await list_skills(client), await get_skill(client, "skill://typed/SKILL.md")):
                assert (got["resultType"], got["ttlMs"], got["cacheScope"]) == ("complete", 300_000, "public")

    anyio.run(session)


# --- the host's side -----------------------------------------------------------------------------


def files_of(skill: SkillReference) -> dict[str, bytes]:
    made = entry(skill)
    return {r["uri"]: skill.read_bytes(f.path) for r, f in zip(made["resources"], skill.files)}


def test_the_host_accepts_what_the_server_serves(typed_skill: SkillReference) -> None:
    made = entry(typed_skill)
    files = files_of(typed_skill)
    assert "skill://typed/notes/a%20b.md" in files
    verify_skill(made, files)
    assert verify_skill_md(made, files["skill://typed/SKILL.md"])["tags"] == ["alpha", 2, True, None]


def refused(call: Any, *args: Any) -> SkillVerificationError:
    with pytest.raises(SkillVerificationError) as caught:
        call(*args)
    assert caught.value.skill == "skill://typed/SKILL.md"
    return caught.value


def test_the_host_refuses_a_tampered_file_of_the_same_size(typed_skill: SkillReference) -> None:
    made, files = entry(typed_skill), files_of(typed_skill)
    uri = "skill://typed/notes/a%20b.md"
    tampered = files[uri].replace(b"Notes", b"Evil!")
    error = refused(verify_file, made, uri, tampered)
    assert error.what == uri and "sha256:" + hashlib.sha256(tampered).hexdigest() in error.reason
    refused(verify_skill, made, {**files, uri: tampered})
    skill_md = files["skill://typed/SKILL.md"].replace(b"Step one.", b"Step six.")
    assert refused(verify_skill_md, made, skill_md).what == "skill://typed/SKILL.md"


def test_the_host_refuses_a_wrong_size_before_hashing(typed_skill: SkillReference) -> None:
    made, files = entry(typed_skill), files_of(typed_skill)
    uri = "skill://typed/notes/a%20b.md"
    error = refused(verify_file, made, uri, files[uri] + b"\n")
    assert error.what == uri and error.reason.startswith(f"{len(files[uri]) + 1} bytes read, the entry lists ")
    refused(verify_skill_md, made, files["skill://typed/SKILL.md"] + b"more\n")


def test_the_host_refuses_an_unlisted_file(typed_skill: SkillReference) -> None:
    made = entry(typed_skill)
    for uri in ["skill://typed/secret.md", "skill://typed/notes/a b.md", "skill://other/SKILL.md"]:
        assert "not listed" in refused(verify_file, made, uri, b"").reason


def resealed(made: dict[str, Any], skill_md: bytes) -> dict[str, Any]:
    """The entry with SKILL.md's digest and size made to fit `skill_md`: only the frontmatter check is left."""
    changed = copy.deepcopy(made)
    changed["resources"][0].update(digest="sha256:" + hashlib.sha256(skill_md).hexdigest(), size=len(skill_md))
    return changed


@pytest.mark.parametrize(
    ("field", "listed", "written"),
    [
        ("user-invocable", "false", b"user-invocable: false"),  # the string the old server sent for a boolean
        ("build", "7", b"build: 7"),
        ("build", 7.5, b"build: 7"),
        ("metadata", {"a": "1"}, b"metadata:\n  a: 1"),
        ("tags", ["alpha", 2, True], b"tags: [alpha, 2, true, null]"),
        ("disable-model-invocation", 1, b"disable-model-invocation: true"),  # JSON: a number is not a boolean
    ],
)
def test_the_host_refuses_a_frontmatter_field_that_differs(
    typed_skill: SkillReference, field: str, listed: Any, written: bytes
) -> None:
    made, files = entry(typed_skill), files_of(typed_skill)
    assert written in files["skill://typed/SKILL.md"]
    made["frontmatter"][field] = listed
    error = refused(verify_skill_md, made, files["skill://typed/SKILL.md"])
    assert error.what == f"frontmatter {field!r}" and "the entry says" in error.reason


def test_the_host_refuses_a_field_only_one_side_has(typed_skill: SkillReference) -> None:
    made, files = entry(typed_skill), files_of(typed_skill)
    skill_md = files["skill://typed/SKILL.md"]
    extra = skill_md.replace(b"build: 7\n", b"build: 7\nhooks-extra: run\n")
    error = refused(verify_skill_md, resealed(made, extra), extra)
    assert error.what == "frontmatter 'hooks-extra'" and error.reason.startswith("the entry says nothing")
    dropped = copy.deepcopy(made)
    del dropped["frontmatter"]["license"]
    assert refused(verify_skill_md, dropped, skill_md).what == "frontmatter 'license'"


def test_the_host_takes_one_json_number_for_one_value(typed_skill: SkillReference) -> None:
    """JSON has one number type: an entry written by another server may say 1 where YAML says 1.0."""
    made, files = entry(typed_skill), files_of(typed_skill)
    skill_md = files["skill://typed/SKILL.md"].replace(b"ratio: 0.5", b"ratio: 1.0")
    made = resealed(made, skill_md)
    made["frontmatter"]["metadata"]["ratio"] = 1
    assert verify_skill_md(made, skill_md)["metadata"]["ratio"] == 1.0


_BROKEN_ENTRIES = {
    "dynamic": (lambda e: e.update(resources="dynamic"), "resources"),
    "no resources": (lambda e: e.pop("resources"), "resources"),
    "name not the URI's": (lambda e: e["frontmatter"].update(name="other"), "frontmatter 'name'"),
    "no description": (lambda e: e["frontmatter"].pop("description"), "frontmatter 'description'"),
    "SKILL.md not listed": (lambda e: e["resources"].pop(0), "skill://typed/SKILL.md"),
    "a file twice": (lambda e: e["resources"].append(dict(e["resources"][1])), "'skill://typed/notes/a%20b.md'"),
    "another skill's file": (lambda e: e["resources"][1].update(uri="skill://other/x.md"), "'skill://other/x.md'"),
    "a traversal": (lambda e: e["resources"][1].update(uri="skill://typed/%2e%2e/x.md"), "skill://typed/%2e%2e/x.md"),
    "an upper-case digest": (
        lambda e: e["resources"][1].update(digest="sha256:" + "A" * 64),
        "skill://typed/notes/a%20b.md",
    ),
    "a size not a count": (lambda e: e["resources"][1].update(size=True), "skill://typed/notes/a%20b.md"),
}


@pytest.mark.parametrize("broken", list(_BROKEN_ENTRIES))
def test_the_host_refuses_an_entry_it_cannot_verify_by(typed_skill: SkillReference, broken: str) -> None:
    change, what = _BROKEN_ENTRIES[broken]
    made = entry(typed_skill)
    change(made)
    assert refused(check_entry, made).what == what


@pytest.mark.parametrize(
    "skill_md",
    [
        b"# no frontmatter\n",
        (FIXTURES / "hostile/skills/alias-bomb/SKILL.md").read_bytes(),  # expanded, it would not fit in memory
        b"---\nname: typed\ndescription: " + b"x" * 70_000 + b"\n---\n",
        b"---\nname: typed\nname: typed\ndescription: d\n---\n",
    ],
    ids=["no frontmatter", "alias bomb", "over the size limit", "duplicate key"],
)
def test_the_host_refuses_a_skill_md_it_cannot_read_safely(typed_skill: SkillReference, skill_md: bytes) -> None:
    """A served SKILL.md is read by the same strict reader as a skill on disk, whatever its digest says."""
    error = refused(verify_skill_md, resealed(entry(typed_skill), skill_md), skill_md)
    assert error.what == "frontmatter" and error.reason.startswith("the SKILL.md read cannot be parsed: FLU1")


def test_the_host_takes_a_dynamic_entry_only_when_allowed_and_still_compares_its_frontmatter(
    typed_skill: SkillReference,
) -> None:
    """`remote_skills(..., allow_dynamic=True)`: no digests to check, but SKILL.md is still the entry's, field by field."""
    made, files = entry(typed_skill), files_of(typed_skill)
    made["resources"] = "dynamic"
    skill_md = files["skill://typed/SKILL.md"]
    assert refused(check_entry, made).what == "resources"
    assert refused(verify_skill_md, made, skill_md).what == "resources"
    check_entry(made, allow_dynamic=True)
    assert verify_skill_md(made, skill_md, allow_dynamic=True)["name"] == "typed"
    made["frontmatter"]["license"] = "GPL-3.0"
    error = refused(lambda *a: verify_skill_md(*a, allow_dynamic=True), made, skill_md)
    assert error.what == "frontmatter 'license'"
