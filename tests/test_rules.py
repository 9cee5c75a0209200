"""Every SKILL.md rule of DESIGN.md, one test per rule and edge."""

from __future__ import annotations

import pytest
from support.diagnostics import check, codes, only

from flue_runtime.format.diagnostics import Severity
from flue_runtime.format.frontmatter import FRONTMATTER_LIMIT, MAX_NESTING
from flue_runtime.format.validate import check_skill_md

VALID = "name: my-skill\ndescription: Does things. Use when asked."


def test_valid_skill_has_metadata_and_body() -> None:
    result = check(VALID + "\nlicense: MIT\ncompatibility: Needs git\nmetadata:\n  a: b\nallowed-tools: Read Write")
    assert result.ok and result.diagnostics == ()
    assert result.metadata is not None
    assert result.metadata.to_dict() == {
        "name": "my-skill",
        "description": "Does things. Use when asked.",
        "license": "MIT",
        "compatibility": "Needs git",
        "metadata": {"a": "b"},
        "allowed-tools": "Read Write",
    }
    assert result.body == "Body.\n"


# --- frontmatter detection -----------------------------------------------------------


def test_missing_frontmatter() -> None:
    result = check_skill_md(b"# Just markdown\n", "s/SKILL.md", "s")
    d = only(result, "FLU103")
    assert (d.line, d.column) == (1, 1) and "---" in d.hint


def test_frontmatter_not_on_first_line_says_so() -> None:
    result = check_skill_md(b"\n---\nname: s\ndescription: d\n---\n", "s/SKILL.md", "s")
    assert "very first line" in only(result, "FLU103").hint


def test_unclosed_frontmatter() -> None:
    result = check_skill_md(b"---\nname: s\ndescription: d\n\nbody text\n", "s/SKILL.md", "s")
    d = only(result, "FLU104")
    assert "never closed" in d.message and result.metadata is None


def test_non_mapping_frontmatter() -> None:
    assert "a list" in only(check("- name\n- description"), "FLU107").message
    assert "a plain string" in only(check("just words"), "FLU107").message


def test_empty_frontmatter() -> None:
    assert "empty" in only(check_skill_md(b"---\n---\nbody", "s/SKILL.md", "s"), "FLU107").message


def test_bom_is_accepted() -> None:
    result = check_skill_md(b"\xef\xbb\xbf---\nname: s\ndescription: d\n---\nbody", "s/SKILL.md", "s")
    assert result.ok and result.body == "body"


def test_crlf_is_accepted_and_values_carry_no_carriage_return() -> None:
    result = check_skill_md(b"---\r\nname: s\r\ndescription: d\r\n---\r\nline one\r\n", "s/SKILL.md", "s")
    assert result.ok and result.metadata is not None
    assert result.metadata.description == "d"
    assert result.body == "line one\r\n"


def test_dashes_inside_a_value_do_not_split_the_block() -> None:
    result = check("name: my-skill\ndescription: before --- after\nlicense: MIT")
    assert result.ok and result.metadata is not None
    assert result.metadata.description == "before --- after"
    assert result.metadata.license == "MIT"


def test_indented_dashes_inside_a_block_scalar_do_not_close_the_block() -> None:
    result = check("name: my-skill\ndescription: |\n  first\n  ---\n  last")
    assert result.ok and result.metadata is not None
    assert result.metadata.description == "first\n---\nlast\n"


def test_duplicate_keys_are_errors_at_the_second_key() -> None:
    d = only(check("name: my-skill\ndescription: one\ndescription: two"), "FLU108")
    assert (d.line, d.column) == (4, 1) and "first on line 3" in d.message


def test_duplicate_keys_inside_metadata() -> None:
    d = only(check(VALID + "\nmetadata:\n  a: x\n  a: y"), "FLU108")
    assert "metadata.a" in d.message


def test_not_utf8() -> None:
    d = only(check_skill_md(b"---\nname: caf\xe9\n---\n", "s/SKILL.md", "s"), "FLU102")
    assert (d.line, d.column) == (2, 10) and "0xe9" in d.message


def test_nul_byte() -> None:
    d = only(check_skill_md(b"---\nname: s\ndescription: d\n---\nbo\x00dy", "s/SKILL.md", "s"), "FLU102")
    assert (d.line, d.column) == (5, 3)


def test_alias_bomb_is_refused_quickly() -> None:
    bomb = "name: my-skill\ndescription: d\n" + "a: &a [x, x, x, x, x, x, x, x, x]\n"
    for i in range(1, 10):
        bomb += f"{chr(97 + i)}: &{chr(97 + i)} [" + ", ".join([f"*{chr(96 + i)}"] * 9) + "]\n"
    d = only(check(bomb), "FLU109")
    assert "alias" in d.message and d.line == 5


def test_deep_nesting_is_refused() -> None:
    deep = "[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1)
    d = only(check(VALID + f"\nmetadata: {deep}"), "FLU109")
    assert "deeper" in d.message


def test_very_deep_nesting_does_not_recurse() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    result = check_skill_md(f"---\n{VALID}\nx: {deep}\n---\n".encode(), "s/SKILL.md", "my-skill", limit=1 << 20)
    # libyaml stops at its own depth limit first; either way a diagnostic, no RecursionError
    [d] = result.diagnostics
    assert d.code in {"FLU106", "FLU109"} and ("nest" in d.message or "depth" in d.message)


def test_oversized_frontmatter() -> None:
    padding = "\n".join(f"k{i}: {'x' * 60}" for i in range(FRONTMATTER_LIMIT // 60))
    d = only(check(VALID + "\n" + padding), "FLU105")
    assert f"{FRONTMATTER_LIMIT:,}" in d.message


def test_multibyte_frontmatter_is_measured_in_bytes() -> None:
    # 30,000 characters, 90,000 UTF-8 bytes: over the limit although the character count is not.
    result = check(VALID + "\nlicense: " + "€" * 30_000)
    assert "FLU105" in codes(result)


def test_yaml_syntax_error_has_position_and_hint() -> None:
    d = only(check("name: my-skill\ndescription: Triage. Use when: it crashes"), "FLU106")
    assert (d.line, d.column) == (3, 30)
    assert 'description: "Triage. Use when: it crashes"' in d.hint


def test_tab_indentation_hint() -> None:
    d = only(check("name: my-skill\ndescription: d\nmetadata:\n\ta: b"), "FLU106")
    assert "tabs" in d.hint


# --- name ---------------------------------------------------------------------------------


@pytest.mark.parametrize("length, ok", [(64, True), (65, False)])
def test_name_length(length: int, ok: bool) -> None:
    name = "a" * length
    result = check(f"name: {name}\ndescription: d", directory=name)
    assert result.ok is ok
    if not ok:
        d = only(result, "FLU203")
        assert "65 characters" in d.message and (d.line, d.column) == (2, 7)


@pytest.mark.parametrize(
    "name, words",
    [
        ("PDF-Tools", "lowercase"),
        ("-pdf", "start with a hyphen"),
        ("pdf-", "end with a hyphen"),
        ("pdf--tools", "two hyphens"),
        ("café", "ASCII"),
        ("pdf_tools", "'_'"),
        ("pdf tools", "' '"),
    ],
)
def test_name_rule(name: str, words: str) -> None:
    result = check(f'name: "{name}"\ndescription: d', directory=name)
    d = only(result, "FLU204")
    assert words in d.message
    assert (d.line, d.column) == (2, 7)
    assert "FLU205" not in codes(result)  # the folder bears that very name: no mismatch


def test_name_hint_suggests_a_valid_name() -> None:
    d = only(check("name: Café_Tools-\ndescription: d", directory=None), "FLU204")
    assert "`name: cafe-tools`" in d.hint


def test_name_with_trailing_newline_is_refused() -> None:
    assert "FLU204" in codes(check('name: "my-skill\\n"\ndescription: d'))


def test_name_must_match_directory() -> None:
    d = only(check("name: pdf\ndescription: d", directory="pdf-tools"), "FLU205")
    assert (d.line, d.column) == (2, 7)
    assert "pdf-tools" in d.hint


@pytest.mark.parametrize(
    "name, directory, hint",
    [
        ("PDF-Tools", "pdf-tools", "set `name: pdf-tools`"),  # the folder's valid name is the way out
        ("Bad_Name", "Bad_Name2", "use `name: bad-name` and name the directory `bad-name`"),
    ],
)
def test_an_invalid_name_is_also_reported_when_it_differs_from_the_folder(name: str, directory: str, hint: str) -> None:
    result = check(f"name: {name}\ndescription: d", directory=directory)
    assert codes(result) == ["FLU204", "FLU205"]
    mismatch = only(result, "FLU205")
    assert (mismatch.line, mismatch.column) == (2, 7)
    assert mismatch.message == f"name `{name}` differs from its directory `{directory}`"
    assert mismatch.hint == hint  # never "rename the directory to" an invalid name


def test_missing_required_fields() -> None:
    result = check("license: MIT")
    assert codes(result).count("FLU201") == 2
    assert any("name: my-skill" in d.hint for d in result.diagnostics)


# --- description --------------------------------------------------------------------------


def test_description_empty() -> None:
    assert only(check("name: my-skill\ndescription:"), "FLU206").line == 3


def test_description_whitespace_only() -> None:
    assert only(check('name: my-skill\ndescription: "   "'), "FLU206").column == 14


@pytest.mark.parametrize("count, ok", [(1024, True), (1025, False)])
def test_description_length_counts_code_points(count: int, ok: bool) -> None:
    text = "é" * count  # two UTF-8 bytes each: a byte count would refuse 1024
    result = check(f"name: my-skill\ndescription: {text}")
    assert result.ok is ok
    if not ok:
        d = only(result, "FLU207")
        assert "1025" in d.message and (d.line, d.column) == (3, 14)


# --- optional fields ----------------------------------------------------------------------


def test_compatibility_empty() -> None:
    assert "FLU208" in codes(check(VALID + '\ncompatibility: ""'))


@pytest.mark.parametrize("count, ok", [(500, True), (501, False)])
def test_compatibility_length(count: int, ok: bool) -> None:
    assert check(VALID + "\ncompatibility: " + "ü" * count).ok is ok


def test_metadata_as_scalar() -> None:
    d = only(check(VALID + "\nmetadata: author"), "FLU202")
    assert "mapping" in d.message and "metadata:\n    author:" in d.hint


def test_metadata_as_list() -> None:
    assert "a list" in only(check(VALID + "\nmetadata:\n  - a\n  - b"), "FLU202").message


def test_metadata_with_nested_values() -> None:
    d = only(check(VALID + '\nmetadata: {"x": {"y": 1}}'), "FLU209")
    assert "`x`" in d.message and (d.line, d.column) == (4, 17)


def test_allowed_tools_as_list() -> None:
    d = only(check(VALID + "\nallowed-tools:\n  - Read\n  - Write"), "FLU202")
    assert "write it as a space-separated string: `allowed-tools: Read Write`" in d.hint
    assert (d.line, d.column) == (5, 3)


def test_allowed_tools_comma_separated_is_a_warning_with_the_fix() -> None:
    result = check(VALID + "\nallowed-tools: Read, Bash(git:*), Write")
    assert result.ok  # a warning, the skill still loads
    d = only(result, "FLU211")
    assert d.severity is Severity.WARNING and (d.line, d.column) == (4, 16)
    assert "`allowed-tools: Read Bash(git:*) Write`" in d.hint


def test_comma_separated_tools_holding_a_space_are_not_joined() -> None:
    """Issue 15.12 for FLU211 too: `Bash(git log:*)` joined with spaces would read as two tools."""
    d = only(check(VALID + "\nallowed-tools: Read, Bash(git log:*), Write"), "FLU211")
    assert "allowed-tools: Read Bash(git log:*) Write" not in d.hint
    assert "joined, `Bash(git log:*)` would read as `Bash(git` and `log:*)`" in d.hint
    assert "(the others can stay: `allowed-tools: Read Write`)" in d.hint


def test_unknown_fields_warn() -> None:
    result = check(VALID + "\nversion: 1.0\nargument-hint: '[n]'\nallowed_tools: Read")
    assert result.ok
    warnings = {d.message: d for d in result.diagnostics}
    assert set(codes(result)) == {"FLU210"}
    assert all(d.severity is Severity.WARNING for d in result.diagnostics)
    # issue 15: the block form, never a flow mapping (which some validators reject)
    assert warnings["unknown field `version`"].hint.endswith(
        'move it under `metadata:`, whose values are strings:\nmetadata:\n  version: "1.0"'
    )
    assert "extension" in warnings["unknown field `argument-hint`"].hint
    assert "did you mean `allowed-tools`?" in warnings["unknown field `allowed_tools`"].hint
    assert warnings["unknown field `version`"].line == 4


def test_unknown_fields_are_errors_under_strict() -> None:
    result = check(VALID + "\nauthor: me", strict=True)
    assert not result.ok and only(result, "FLU210").severity is Severity.ERROR


def test_scalars_are_never_coerced() -> None:
    result = check(VALID + "\nlicense: 1.0\nmetadata:\n  version: 1.0\n  on: yes\n  n: null\n  when: 2024-01-01")
    assert result.ok and result.metadata is not None
    assert result.metadata.license == "1.0"
    assert dict(result.metadata.metadata) == {"version": "1.0", "on": "yes", "n": "null", "when": "2024-01-01"}


# --- frontmatter other readers take differently (issue 41 item 8) ------------------------------


def test_a_byte_order_mark_is_a_warning_other_readers_refuse() -> None:
    result = check_skill_md(b"\xef\xbb\xbf---\nname: s\ndescription: d\n---\nbody", "s/SKILL.md", "s")
    d = only(result, "FLU111")
    assert (d.line, d.column, d.severity) == (1, 1, Severity.WARNING) and "byte-order mark" in d.message
    assert result.ok and "without" in d.hint
    assert "FLU111" not in codes(check_skill_md(b"---\nname: s\ndescription: d\n---\n\xef\xbb\xbf", "s/SKILL.md", "s"))


@pytest.mark.parametrize(
    "value, yaml_1_1, yaml_1_2",
    [
        ("yes", "true", "a string"),
        ("No", "false", "a string"),
        ("ON", "true", "a string"),
        ("off", "false", "a string"),
        ("y", "true", "a string"),
        ("N", "false", "a string"),
        ("0777", "the number 511", "the number 777"),
        ("0o17", "a string", "the number 15"),
        ("2024-05-01", "a date", "a string"),
        ("2001-12-14t21:59:43.10-05:00", "a timestamp", "a string"),
        ("1_000", "the number 1000", "a string"),
        ("1:30", "the number 90", "a string"),
        ("0b101", "the number 5", "a string"),
        ("1e3", "a string", "the number 1000.0"),
    ],
)
def test_a_plain_value_yaml_1_1_reads_otherwise_warns_at_the_value_with_the_quoted_form(
    value: str, yaml_1_1: str, yaml_1_2: str
) -> None:
    result = check(VALID + f"\nlicense: {value}")
    d = only(result, "FLU215")
    assert (d.line, d.column, d.severity, d.field) == (4, 10, Severity.WARNING, "license")
    assert f"`{value}`" in d.message and yaml_1_1 in d.message and yaml_1_2 in d.message
    assert d.hint.endswith(f'`license: "{value}"`')
    assert result.ok
    for quoted in (f'"{value}"', f"'{value}'", f"|\n  {value}", f"!!str {value}"):
        assert "FLU215" not in codes(check(VALID + f"\nlicense: {quoted}"))


@pytest.mark.parametrize("value", ["true", "False", "null", "~", "7", "-3", "1.0", "1.5e-3", "0x1F", "07", "v1:30"])
def test_a_plain_value_both_versions_read_alike_does_not_warn(value: str) -> None:
    assert "FLU215" not in codes(check(VALID + f"\nlicense: {value}"))


def test_values_and_keys_inside_metadata_warn_whichever_reader_reads_them() -> None:
    block = check(VALID + "\nmetadata:\n  version: 0777\n  on: beta\n  released: 2024-05-01")
    flow = check(VALID + "\nmetadata: {version: 0777, on: beta, released: 2024-05-01}  # a flow mapping: PyYAML")
    assert [(d.line, d.column) for d in block.diagnostics if d.code == "FLU215"] == [(5, 12), (6, 3), (7, 13)]
    assert [(d.line, d.column) for d in flow.diagnostics if d.code == "FLU215"] == [(4, 21), (4, 27), (4, 47)]
    for result in (block, flow):
        hints = [d.hint for d in result.diagnostics if d.code == "FLU215"]
        assert hints[0].endswith('`version: "0777"`') and hints[1].endswith('`"on": "beta"`'), hints
        assert result.ok and all(d.field == "metadata" for d in result.diagnostics)


def test_every_problem_is_reported_at_once() -> None:
    result = check("name: Bad_Name\ndescription: ''\ncompatibility: ''\nallowed-tools: [a]\nfoo: bar", directory="x")
    assert codes(result) == ["FLU204", "FLU205", "FLU206", "FLU208", "FLU202", "FLU210"]
