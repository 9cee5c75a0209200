"""Hints that fix what public skills get wrong (issue 15, items 10-12), on frontmatter shaped like theirs."""

from __future__ import annotations

import yaml
from support.diagnostics import check, only

from flue_runtime.format.validate import check_skill_md

# --- FLU210: unknown fields move under `metadata:`, in block form --------------------------------

# The shape of many published skills: a version and an author at the top level.
WEBAPP_TESTING = """\
name: webapp-testing
description: Toolkit for interacting with and testing local web applications using Playwright.
license: Complete terms in LICENSE.txt
version: 1.0.0
author: Jane Doe"""

# ... and of those that already keep some metadata, plus tags as a YAML list.
MCP_BUILDER = """\
name: mcp-builder
description: Guide for creating high-quality MCP servers. Use when building an MCP server.
license: MIT
metadata:
  author: acme
  category: development
version: 2.1.0
tags: [mcp, python, typescript]"""


def apply(frontmatter: str, hint: str) -> dict[str, object]:
    """The frontmatter with the hint's `metadata:` block in place of the old one and the moved fields."""
    block = hint[hint.index("metadata:") :]
    moved = {line.split(":")[0].strip() for line in block.splitlines()[1:] if not line.strip().startswith("#")}
    kept, skipping = [], False
    for line in frontmatter.splitlines():
        key = line.split(":")[0]
        if not line.startswith(" "):
            skipping = key == "metadata" or key in moved
        if not skipping:
            kept.append(line)
    loaded: dict[str, object] = yaml.safe_load("\n".join([*kept, block]))
    return loaded


def test_unknown_field_hint_is_the_block_form() -> None:
    result = check(WEBAPP_TESTING, directory="webapp-testing")
    version = next(d for d in result.diagnostics if "`version`" in d.message)
    assert version.hint == (
        "not part of the Agent Skills spec; move it under `metadata:`, whose values are strings:\n"
        'metadata:\n  version: "1.0.0"'
    )
    assert "{" not in version.hint  # never the flow form some validators reject
    author = next(d for d in result.diagnostics if "`author`" in d.message)
    assert author.hint.endswith('metadata:\n  author: "Jane Doe"')


def test_unknown_field_hint_merges_into_the_existing_block() -> None:
    result = check(MCP_BUILDER, directory="mcp-builder")
    version = next(d for d in result.diagnostics if "`version`" in d.message)
    assert version.hint == (
        "not part of the Agent Skills spec; add it to the `metadata:` block (line 5), whose values are strings:\n"
        'metadata:\n  author: acme\n  category: development\n  version: "2.1.0"'
    )
    # Applied, the hint gives one metadata block (no duplicate key) that is valid and keeps the value.
    fixed = apply(MCP_BUILDER, version.hint)
    assert fixed["metadata"] == {"author": "acme", "category": "development", "version": "2.1.0"}
    rechecked = check(yaml.safe_dump(fixed, sort_keys=False).strip(), directory="mcp-builder")
    assert not any("`version`" in d.message for d in rechecked.diagnostics)
    tags = next(d for d in result.diagnostics if "`tags`" in d.message)
    assert tags.hint.endswith('  tags: "mcp, python, typescript"')  # a list becomes one string


def test_unknown_field_already_in_metadata_is_never_a_duplicate_key() -> None:
    result = check(MCP_BUILDER.replace("  category: development", "  version: 2.0.0"), directory="mcp-builder")
    version = next(d for d in result.diagnostics if "`version`" in d.message)
    assert "already holds `version`" in version.hint and "metadata:\n" not in version.hint


def test_a_long_metadata_block_is_elided_in_the_hint() -> None:
    entries = "\n".join(f"  k{i}: v{i}" for i in range(6))
    result = check(f"name: my-skill\ndescription: d\nmetadata:\n{entries}\nowner: me")
    d = only(result, "FLU210")
    assert d.hint.endswith('metadata:\n  k0: v0\n  k1: v1\n  k2: v2\n  # ... 3 more entries\n  owner: "me"')


def test_unknown_field_hint_quotes_what_yaml_would_not_keep_a_string() -> None:
    result = check("name: my-skill\ndescription: d\nmetadata:\n  beta: yes\n  owner: team\nreleased: 2024-01-01")
    d = only(result, "FLU210")
    assert d.hint.endswith('metadata:\n  beta: "yes"\n  owner: team\n  released: "2024-01-01"')


def test_a_mapping_moves_in_flattened() -> None:
    result = check('name: my-skill\ndescription: d\nsource:\n  repo: acme/tools\n  ref: "v2"')
    assert only(result, "FLU210").hint.endswith('metadata:\n  source.repo: "acme/tools"\n  source.ref: "v2"')


# --- FLU204: the folder's own name first ------------------------------------------------------------


def test_bad_name_in_a_validly_named_folder_suggests_the_folder_name() -> None:
    d = only(check("name: PDF Processing\ndescription: Extract text from PDFs.", directory="pdf-processing"), "FLU204")
    assert d.hint == "use `name: pdf-processing`, the folder's name"


def test_folder_name_first_then_the_slug_when_they_differ() -> None:
    d = only(check("name: PDF Processing\ndescription: Extract text from PDFs.", directory="pdf"), "FLU204")
    assert d.hint == (
        "use `name: pdf`, the folder's name; or use `name: pdf-processing` and rename the folder to `pdf-processing`"
    )


def test_invalid_folder_name_gets_the_slug_for_both() -> None:
    d = only(check("name: PDF Processing\ndescription: d", directory="PDF_Processing"), "FLU204")
    assert d.hint == "use `name: pdf-processing` and name the directory `pdf-processing`"


def test_too_long_name_in_a_valid_folder() -> None:
    d = only(check(f"name: {'a' * 70}\ndescription: d", directory="short-name"), "FLU203")
    assert d.hint.startswith("use `name: short-name`, the folder's name")


# --- FLU202: a list of tools with spaces is not joined ------------------------------------------------

GIT_HELPER = """\
name: git-helper
description: Summarise the working tree. Use when asked what changed.
allowed-tools:
  - Bash(git status:*)
  - Bash(git diff:*)
  - Read"""


def test_tool_list_with_spaces_says_joining_changes_the_tools() -> None:
    d = only(check(GIT_HELPER, directory="git-helper"), "FLU202")
    assert "Bash(git status:*) Bash(git diff:*)" not in d.hint  # no suggestion that changes the tools
    assert "`Bash(git status:*)` would read as `Bash(git` and `status:*)`" in d.hint
    assert "changes what the tools are" in d.hint
    assert "the others can stay: `allowed-tools: Read`" in d.hint


def test_tool_list_without_spaces_is_joined() -> None:
    d = only(check("name: my-skill\ndescription: d\nallowed-tools: [Read, Grep, Glob]"), "FLU202")
    assert d.hint == "write it as a space-separated string: `allowed-tools: Read Grep Glob`"


def test_hints_reach_the_file_report() -> None:
    text = f"---\n{GIT_HELPER}\n---\nBody.\n".encode()
    [d] = check_skill_md(text, "git-helper/SKILL.md", "git-helper").diagnostics
    assert "changes what the tools are" in d.format()
