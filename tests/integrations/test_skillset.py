"""Skillset, the one seam to the harness's skill tools: what it refuses."""

from __future__ import annotations

import pytest

from flue_runtime import define_skill
from flue_runtime.errors import AgentError
from flue_runtime.integrations.skillset import Skillset


def test_two_skills_with_one_name_are_refused_naming_both() -> None:
    one = define_skill(name="notes", description="Take notes. Use when asked.", instructions="Short lines.\n")
    two = define_skill(name="notes", description="Other notes. Use when asked.", instructions="Long lines.\n")
    for twice in ([one, two], [one, one]):
        with pytest.raises(AgentError, match=r"two skills are named 'notes': .* and .*pass each name once"):
            Skillset(twice)


def test_only_skill_references_are_taken() -> None:
    with pytest.raises(AgentError, match="must be SkillReference objects .* not str"):
        Skillset(["notes"])  # type: ignore[list-item]


def test_no_skills_no_tools_and_no_catalog() -> None:
    empty = Skillset([])
    assert (empty.tools, empty.catalog) == ((), "")
