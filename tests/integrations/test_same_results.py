"""One set of calls through every surface (the harness, MCP, pydantic-ai, the OpenAI Agents SDK, LangChain):
the model gets the same catalog, the same tool definitions and the same result texts from each."""

from __future__ import annotations

from surfaces import SURFACES, Call, Seen

from flue_runtime.integrations.skillset import Skillset
from flue_runtime.mount.reference import SkillReference

CALLS: list[Call] = [
    ("activate_skill", {"name": "refunds"}),
    ("activate_skill", {"name": "triage"}),
    ("activate_skill", {"name": "billing"}),
    ("read_skill_resource", {"path": "/.flue/skills/refunds/policy.md"}),
    ("read_skill_resource", {"path": "/.flue/skills/refunds/templates/email (v2).md"}),
    ("read_skill_resource", {"path": "/.flue/skills/refunds/data/rates.csv", "offset": 2, "limit": 1}),
    ("read_skill_resource", {"path": "/.flue/skills/refunds/assets/stamp.png", "offset": 8, "limit": 16}),
    ("read_skill_resource", {"path": "/.flue/skills/refunds/../triage/SKILL.md"}),
    ("read_skill_resource", {"path": "/.flue/skills/refunds/secret.md"}),
    ("read_skill_resource", {"path": "/.flue/skills/refunds/policy.md", "offset": 99}),
    ("activate_skill", {}),
    ("activate_skill", {"name": "refunds", "extra": 1}),
]
FAILING = {7, 8, 9, 10, 11}


def test_every_surface_gives_the_model_the_same_texts(demo: dict[str, SkillReference]) -> None:
    skills = [demo["refunds"], demo["triage"]]
    seen: dict[str, Seen] = {name: via(skills, CALLS) for name, via in SURFACES.items()}
    harness = seen["harness"]
    expected = Skillset(skills)

    assert harness.catalog == expected.catalog and "- **refunds** — Handle refund requests" in harness.catalog
    assert harness.tools == [tool.spec() for tool in expected.tools]
    assert [failed for _, failed in harness.results] == [i in FAILING for i in range(len(CALLS))]
    assert harness.results[3][0].startswith("     1\tRefund policy")
    assert harness.results[6][0].startswith("[binary file /.flue/skills/refunds/assets/stamp.png")
    for name, surface in seen.items():
        assert surface.catalog == harness.catalog, name
        assert surface.tools == harness.tools, name
        assert [text for text, _ in surface.results] == [text for text, _ in harness.results], name
        if name != "openai-agents":  # the Agents SDK has no failure flag on function outputs
            assert surface.results == harness.results, name
