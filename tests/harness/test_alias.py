"""Issue 22 item 5: `use_skill(ref, name=...)` mounts a skill under another valid name (catalog, tools, the
virtual tree), its instructions and files unchanged; the name rule decides the alias; clashes raise."""

from __future__ import annotations

from pathlib import Path

import pytest
from harness_support import tool_results
from support.optional import need
from support.projects import write_skill

from flue_runtime import Harness, LocalSandbox, MemorySandbox, SkillError, SkillReference, agent, use_model, use_skill
from flue_runtime.errors import AgentError
from flue_runtime.integrations.skillset import Skillset
from flue_runtime.models import ScriptedModel, ToolCall
from flue_runtime.mount.disk import load_skill_dir


def prompt(
    mount: list[tuple[SkillReference, str | None]], calls: list[ToolCall], sandbox: object = None
) -> ScriptedModel:
    model = ScriptedModel([calls, "ok"] if calls else ["ok"])

    @agent
    def assistant() -> str:
        use_model(model)
        for skill, name in mount:
            use_skill(skill, name=name)
        return "Help."

    Harness(assistant, sandbox=sandbox).prompt_sync("go")
    return model


def test_a_skill_mounted_under_an_alias_shows_that_name_everywhere_and_its_instructions_unchanged(
    refunds: SkillReference,
) -> None:
    model = prompt(
        [(refunds, "money-back")],
        [
            ToolCall("activate_skill", {"name": "money-back"}),
            ToolCall("read_skill_resource", {"path": "/.flue/skills/money-back/policy.md"}),
            ToolCall("read_skill_resource", {"path": "/.flue/skills/money-back/SKILL.md"}),
            ToolCall("activate_skill", {"name": "refunds"}),
            ToolCall("read", {"path": "/.flue/skills/money-back/policy.md"}),
        ],
        sandbox=MemorySandbox(),
    )
    system = model.requests[0].system
    assert "- **money-back** — Handle refund requests." in system and "**refunds**" not in system
    activation, policy, skill_md, unknown, read = (r["content"] for r in tool_results(model))
    assert activation.startswith('<skill name="money-back">\n# Refunds\n\nRead policy.md, then check the order date.\n')
    assert "/.flue/skills/money-back/policy.md" in activation and "/.flue/skills/refunds/" not in activation
    assert policy == "     1\tOrders younger than 30 days are refundable."
    assert 'name: "refunds"' in skill_md  # SKILL.md as written: the alias is the mount's, not the file's
    assert "money-back" in unknown and "refunds" not in unknown.split("Available")[-1]
    assert read == policy


def test_the_alias_is_checked_by_the_skill_name_rule(refunds: SkillReference) -> None:
    for alias, code in (("Money Back", "FLU204"), ("a" * 65, "FLU203"), ("../refunds", "FLU204"), (7, "FLU202")):
        with pytest.raises(SkillError) as caught:
            prompt([(refunds, alias)], [])  # type: ignore[list-item]
        assert [d.code for d in caught.value.diagnostics] == [code], alias
        assert "cannot mount skill 'refunds' under another name" in str(caught.value)


def test_two_skills_under_one_name_still_raise_and_one_skill_may_be_mounted_under_two(
    refunds: SkillReference, vip: SkillReference
) -> None:
    with pytest.raises(AgentError, match="skill 'vip' is mounted twice in one render"):
        prompt([(vip, None), (refunds, "vip")], [])
    with pytest.raises(AgentError, match="skill 'refunds' is mounted twice"):
        prompt([(refunds, None), (vip, "x"), (vip, "refunds")], [])
    model = prompt([(refunds, None), (refunds, "money-back")], [])
    assert "- **refunds** —" in model.requests[0].system and "- **money-back** —" in model.requests[0].system
    assert refunds.renamed("refunds") is refunds
    assert refunds.renamed("x").renamed("refunds") == refunds


def test_a_dev_mode_folder_keeps_its_alias_when_vetted_again(tmp_path: Path) -> None:
    folder = write_skill(tmp_path / "skills" / "refunds", "Handle refunds.")
    skill = load_skill_dir(folder)
    model = ScriptedModel([[ToolCall("activate_skill", {"name": "money-back"})], "ok"])

    @agent
    def assistant() -> str:
        use_model(model)
        use_skill(skill, name="money-back")
        return "Help."

    session = Harness(assistant, sandbox=LocalSandbox(tmp_path)).session("s")
    (folder / "SKILL.md").write_text("---\nname: refunds\ndescription: Refunds, edited.\n---\nNew steps.\n")
    session.prompt_sync("go")
    assert "- **money-back** — Refunds, edited." in model.requests[0].system
    assert tool_results(model)[0]["content"].startswith('<skill name="money-back">\nNew steps.')


def test_hosts_that_take_references_use_the_alias_and_mcp_refuses_it(refunds: SkillReference) -> None:
    aliased = refunds.renamed("money-back")
    skillset = Skillset([aliased])
    assert "- **money-back** —" in skillset.catalog
    assert skillset.call("activate_skill", {"name": "money-back"}).text.startswith('<skill name="money-back">')
    need("mcp", "mcp")
    from flue_runtime.mcp import skills_server

    with pytest.raises(AgentError, match="serve it under its own name \\('refunds'\\)"):
        skills_server([aliased])
