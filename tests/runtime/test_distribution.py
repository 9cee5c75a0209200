"""What an installed package or distribution name ships is resolved by the run time (issue 42 item 1):
`flue_runtime.mount.distribution.shipped`, which `flue-skills ls`, `mcp`, `export` and `eval` print or serve.
Its bundles, or the project of its editable install, or its raw skill folders, vetted now; nothing by that name,
`SkillNotFoundError`. (The bundles of built wheels: tests/runtime/test_ls.py, through the command.)"""

from __future__ import annotations

import pytest
from support.paths import ROOT

from flue_runtime.errors import SkillNotFoundError
from flue_runtime.mount.distribution import shipped

#: A distribution the `test` extra installs: plain skill folders, built without the hook.
RAW = "agent-skills-bundle"


def test_a_package_that_ships_nothing_says_so() -> None:
    found = shipped("json")
    assert (found.bundles, found.project, found.raw, found.listed(), found.skills()) == ((), None, None, [], [])
    assert found.nothing() is not None and found.nothing().startswith("package 'json' (")
    assert "has no skill bundle (built without the flue-skills hook) nor a skill folder installed" in (
        found.nothing() or ""
    )


def test_a_name_nothing_has_is_not_found() -> None:
    with pytest.raises(SkillNotFoundError):
        shipped("no_such_package_xyz")


def test_an_editable_install_is_its_project_whose_build_lists_its_skills() -> None:
    """This checkout is installed editable: its project, not a bundle, says what it ships."""
    found = shipped("flue-skills")
    assert found.project == ROOT and found.bundles == () and found.nothing() is None
    assert found.described == "distribution 'flue-skills'"


def test_raw_skill_folders_are_vetted_and_listed_where_they_lie() -> None:
    pytest.importorskip("agent_skills_bundle")
    found = shipped(RAW)
    assert found.raw is not None and found.nothing() is None
    listed = found.listed()
    assert [row.name for row in listed] == sorted(row.name for row in listed)
    assert {row.id for row in listed} == {skill.id for skill in found.skills()}
    assert all(row.exports is None and row.files >= 1 and row.size > 0 for row in listed)
