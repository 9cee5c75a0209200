"""Issue 13 item 9: the catalog has a budget. Declared skills come first, then workspace skills while
they fit, then one line saying how many more; `find_skills` then searches them all, and a wrong
name given to `activate_skill` gets a bounded answer."""

from __future__ import annotations

import re
from typing import Any

from harness_support import tool_results

from flue_runtime import Harness, MemorySandbox, agent, define_skill, use_model, use_skill, use_state
from flue_runtime.agents.catalog import CATALOG_BUDGET, NAMES_LIMIT, catalog
from flue_runtime.agents.reading import utf8_size
from flue_runtime.agents.skill_tools import FIND_LIMIT
from flue_runtime.models import ScriptedModel, ToolCall

SPECIAL = {
    "pdf-forms": "Fill PDF forms.",
    "pdf-merge": "Merge PDF files into one.",
    "tax-returns": "Prepare tax returns, forms included.",
}


def workspace(count: int) -> MemorySandbox:
    """`count` filler skills and the three SPECIAL ones, as workspace skills."""
    skills = {f"topic-{i:04d}": f"Answer questions about topic {i}, one of many." for i in range(count)}
    skills.update(SPECIAL)
    return MemorySandbox(
        {
            f".agents/skills/{name}/SKILL.md": f"---\nname: {name}\ndescription: {description}\n---\nDo {name}.\n"
            for name, description in skills.items()
        }
    )


DECLARED = [define_skill(name=f"declared-{i}", description=f"Declared skill {i}.", instructions="x") for i in (2, 1)]


def make_agent(model: ScriptedModel) -> Any:
    @agent
    def a() -> str:
        use_model(model)
        for skill in DECLARED:
            use_skill(skill)
        return "Help."

    return a


def catalog_lines(system: str) -> list[str]:
    return system.split("activate_skill` with its name and follow the instructions it returns.\n\n")[1].splitlines()


def test_declared_first_then_workspace_skills_while_they_fit_then_how_many_more() -> None:
    model = ScriptedModel(["ok"])
    session = Harness(make_agent(model), sandbox=workspace(300), catalog_budget=2000).session("s")
    session.prompt_sync("hi")
    lines = catalog_lines(model.requests[0].system)
    listed, last = lines[:-1], lines[-1]
    assert listed[:2] == ["- **declared-2** — Declared skill 2.", "- **declared-1** — Declared skill 1."]
    assert listed[2] == "- **pdf-forms** — Fill PDF forms."  # workspace skills by name, after the declared
    assert sum(utf8_size(line) + 1 for line in listed) <= 2000
    assert sum(utf8_size(line) + 1 for line in lines[: len(listed) + 1]) > 2000 - len(last)  # as many as fit
    more = 2 + 303 - len(listed)
    assert (
        last
        == f"({more:,} more skills are not listed here: call `find_skills` with a few words about the task to find them.)"
    )
    assert [t["name"] for t in model.requests[0].tools] == [
        "activate_skill",
        "find_skills",
        "read",
        "write",
        "ls",
    ]


def test_the_default_budget_keeps_a_large_workspace_out_of_the_system_prompt() -> None:
    sandbox = workspace(1000)
    model = ScriptedModel(["ok"])
    Harness(make_agent(model), sandbox=sandbox).session("s").prompt_sync("hi")
    system = model.requests[0].system
    found = [(f"topic-{i:04d}", f"Answer questions about topic {i}, one of many.") for i in range(1000)]
    everything = catalog([(s.name, s.description) for s in DECLARED] + list(SPECIAL.items()) + found)
    assert utf8_size(system) < CATALOG_BUDGET + 1024 < utf8_size(everything) / 3
    assert re.search(r"\(\d+ more skills are not listed here", system)


def test_find_skills_returns_the_best_matching_lines_bounded() -> None:
    model = ScriptedModel(
        [[ToolCall("find_skills", {"query": "fill pdf form"}), ToolCall("find_skills", {"query": "topic"})], "ok"]
    )
    Harness(make_agent(model), sandbox=workspace(300), catalog_budget=2000).session("s").prompt_sync("hi")
    best, many = tool_results(model)
    assert best["content"] == (
        "3 skills match 'fill pdf form':\n"
        "- **pdf-forms** — Fill PDF forms.\n"
        "- **pdf-merge** — Merge PDF files into one.\n"
        "- **tax-returns** — Prepare tax returns, forms included.\n"
        "Activate one with activate_skill."
    )
    lines = many["content"].splitlines()
    assert lines[0] == f"300 skills match 'topic'; the best {FIND_LIMIT}:"
    assert (
        len(lines) == FIND_LIMIT + 2 and lines[1] == "- **topic-0000** — Answer questions about topic 0, one of many."
    )


def test_an_unknown_name_gets_a_bounded_answer() -> None:
    model = ScriptedModel([[ToolCall("activate_skill", {"name": "pdf-form"})], "ok"])
    Harness(make_agent(model), sandbox=workspace(300), catalog_budget=2000).session("s").prompt_sync("hi")
    [result] = tool_results(model)
    assert result["is_error"] is False
    assert result["content"].startswith("There is no skill named 'pdf-form'. Similar names: pdf-forms. ")
    assert result["content"].endswith("There are 305 skills: call find_skills with a few words to search them.")
    assert "topic-0299" not in result["content"]
    # Without a cut catalog, the names are listed, at most NAMES_LIMIT of them.
    model = ScriptedModel([[ToolCall("activate_skill", {"name": "nope"})], "ok"])
    Harness(make_agent(model), sandbox=workspace(100), catalog_budget=None).session("s").prompt_sync("hi")
    [result] = tool_results(model)
    names = result["content"].split("Available skills: ")[1]
    assert names.count(",") == NAMES_LIMIT and names.endswith(", and 55 more.")


def test_a_large_catalog_change_is_announced_within_the_budget_and_brings_find_skills() -> None:
    model = ScriptedModel(["one", "two"])
    sandbox = workspace(300)

    @agent
    def a() -> str:
        use_model(model)
        for skill in DECLARED:
            use_skill(skill)
        if use_state("workspace", False):
            use_sandbox(sandbox)
        return "Help."

    from flue_runtime import use_sandbox

    session = Harness(a, catalog_budget=2000).session("s")
    session.prompt_sync("one")
    session.set_state("workspace", True)
    session.prompt_sync("two")
    note = model.requests[1].messages[-2]["content"]
    new_lines = [line for line in note.splitlines() if line.startswith("- **")]
    assert sum(utf8_size(line) + 1 for line in new_lines) <= 2000
    assert f"(and {303 - len(new_lines):,} more, not listed here: find_skills searches them)" in note
    assert note.splitlines()[-1].endswith(f", and {305 - NAMES_LIMIT} more (find_skills searches them all)")
    assert utf8_size(note) < 2000 + 2000
    assert [t["name"] for t in model.requests[0].tools] == ["activate_skill"]
    assert [t["name"] for t in model.requests[1].tools] == ["activate_skill", "find_skills", "read", "write", "ls"]
