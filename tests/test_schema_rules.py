"""The JSON Schema is the one source of the frontmatter rules: everything else reads them from it (issue 11)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any

import pytest
from support.paths import ROOT
from support.site import section

from flue_runtime.format import schema
from flue_runtime.format.codes import SUMMARIES
from flue_runtime.format.messages import CODES
from flue_runtime.format.naming import NAME_MAX, name_problems, suggest_name
from flue_runtime.format.schema_validator import ANNOTATIONS
from flue_runtime.format.validate import check_fields

RULES = schema.schema()["properties"]


def breaking(keyword: str, value: Any) -> Any:
    """A field value that fails exactly this keyword of the shipped schema."""
    if keyword == "type":
        return 5
    if keyword == "minLength":
        return ""
    if keyword == "maxLength":
        return "a" * (value + 1)
    if keyword == "pattern":
        return " "
    if keyword == "additionalProperties":
        return {"key": 1}
    raise AssertionError(f"the schema gained `{keyword}`: teach this test (and check_fields) what breaks it")


CASES = [
    (field, keyword, value)
    for field, rule in RULES.items()
    for keyword, value in rule.items()
    if keyword not in ANNOTATIONS
]


@pytest.mark.parametrize("field, keyword, value", CASES, ids=[f"{f}.{k}" for f, k, _ in CASES])
def test_every_rule_of_the_schema_has_its_own_diagnostic(field: str, keyword: str, value: Any) -> None:
    """No rule of the shipped schema falls through to the generic wording: each has a code and a hint of its own."""
    data = {"name": "my-skill", "description": "d", field: breaking(keyword, value)}
    [found] = [d for d in check_fields(data, "s/SKILL.md", None) if d.is_error]
    assert found.field == field
    assert "see `flue-skills schema`" not in found.hint
    assert found.code in CODES


def test_limits_in_messages_are_the_schemas() -> None:
    assert NAME_MAX == RULES["name"]["maxLength"]
    assert suggest_name("a" * 100) == "a" * RULES["name"]["maxLength"]
    limit = RULES["description"]["maxLength"]
    [d] = check_fields({"name": "x", "description": "d" * (limit + 1)}, "p", None)
    assert d.message == f"description is {limit + 1} characters long; the limit is {limit}"
    low, high = RULES["compatibility"]["minLength"], RULES["compatibility"]["maxLength"]
    [d] = check_fields({"name": "x", "description": "d", "compatibility": ""}, "p", None)
    assert d.message == f"compatibility must be {low}-{high} characters, not 0"


def test_code_summaries_quote_the_schema() -> None:
    assert f"{RULES['name']['maxLength']} characters at most" in SUMMARIES["FLU203"]
    assert f"{RULES['description']['maxLength']} characters at most" in SUMMARIES["FLU207"]
    compatibility = RULES["compatibility"]
    assert f"{compatibility['minLength']}-{compatibility['maxLength']} characters" in SUMMARIES["FLU208"]
    shown = re.search(r"rule `(.+)`", SUMMARIES["FLU204"])
    assert shown is not None
    assert re.fullmatch(shown.group(1), "pdf-tools") and not re.fullmatch(shown.group(1), "pdf--tools")


def test_the_rules_table_quotes_the_schema() -> None:
    table = section("concepts/skills.md", "## Writing a skill")
    rows = dict(re.findall(r"^\| `([a-z-]+)` \| (.+) \|$", table, re.MULTILINE))
    assert f"1-{RULES['name']['maxLength']} characters" in rows["name"]
    assert f"at most {RULES['description']['maxLength']} characters" in rows["description"]
    compatibility = RULES["compatibility"]
    assert f"{compatibility['minLength']}-{compatibility['maxLength']} characters" in rows["compatibility"]


def test_the_cli_prints_the_schema_the_validator_compiles(capsys: pytest.CaptureFixture[str]) -> None:
    from flue_build.cli import main

    assert main(["schema"]) == 0
    assert json.loads(capsys.readouterr().out) == schema.schema()


def test_a_rule_without_words_is_still_explained() -> None:
    # Every way the shipped pattern can fail has words; an unexplained failure would fall back to the validator's.
    assert name_problems("my-skill\n") == ["may hold only a-z, 0-9 and hyphens, not '\\n'"]


def test_run_time_validation_never_imports_jsonschema() -> None:
    """define_skill, workspace SKILL.md checks and tool arguments: jsonschema is a test dependency only."""
    code = """
import sys
from flue_runtime import define_skill
from flue_runtime.format.validate import check_skill_md
from flue_runtime.agents.tools import tool_from_function
define_skill(name="probe", description="A probe.", instructions="x")
check_skill_md(b"---\\nname: probe\\ndescription: d\\n---\\nx", "probe/SKILL.md", "probe")
def f(n: int) -> int:
    "Double n."
    return 2 * n
tool_from_function(f).check_arguments({"n": 1})
print(sorted(m for m in ("jsonschema", "importlib.resources") if m in sys.modules))
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert proc.stdout.strip() == "[]"
