"""Issue 13 item 4 and issue 12 item 8: workspace skills are discovered at every prompt (changes
announced), their file list is read at activation, and one named like a declared skill is skipped
with a warning: the declared skill wins and the agent keeps working."""

from __future__ import annotations

import asyncio
import inspect
import shutil
import warnings
from pathlib import Path

import pytest
from harness_support import tool_results
from support.paths import FIXTURES

from flue_runtime import Harness, LocalSandbox, MemorySandbox, agent, define_skill, use_model, use_skill
from flue_runtime.errors import SkillWarning
from flue_runtime.models import ScriptedModel, ToolCall


def skill_md(name: str, description: str, body: str = "Do it.\n") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}"


def test_workspace_skills_are_discovered_again_at_every_prompt(tmp_path: Path) -> None:
    skills = tmp_path / ".agents" / "skills"
    (skills / "notes").mkdir(parents=True)
    (skills / "notes" / "SKILL.md").write_text(skill_md("notes", "Take notes."))
    model = ScriptedModel(["one", "two", "three"])

    @agent
    def a() -> str:
        use_model(model)
        return "x"

    session = Harness(a, sandbox=LocalSandbox(tmp_path)).session("s")
    session.prompt_sync("one")
    (skills / "todo").mkdir()
    (skills / "todo" / "SKILL.md").write_text(skill_md("todo", "Keep a todo list."))
    session.prompt_sync("two")
    shutil.rmtree(skills / "notes")
    session.prompt_sync("three")
    assert {r.system for r in model.requests} == {model.requests[0].system}
    assert "**todo**" not in model.requests[0].system
    assert model.requests[1].messages[-2]["content"] == (
        "[The available skills changed.]\nNew skills:\n- **todo** — Keep a todo list.\nAvailable skills now: notes, todo"
    )
    assert model.requests[2].messages[-2]["content"].endswith("No longer available: notes\nAvailable skills now: todo")


def test_a_workspace_skills_files_are_listed_at_activation() -> None:
    sandbox = MemorySandbox({".agents/skills/notes/SKILL.md": skill_md("notes", "Take notes.")})
    model = ScriptedModel(
        [
            [ToolCall("write", {"path": ".agents/skills/notes/template.md", "content": "# Notes\n"})],
            [ToolCall("activate_skill", {"name": "notes"})],
            [ToolCall("read_skill_resource", {"path": "/.flue/skills/notes/template.md"})],
            "ok",
        ]
    )

    @agent
    def a() -> str:
        use_model(model)
        return "x"

    Harness(a, sandbox=sandbox).session("s").prompt_sync("go")  # discovered before the file existed
    [activation] = tool_results(model, 2)
    assert activation["content"].endswith(
        "Support files (read them with read_skill_resource when the instructions call for them):\n- /.flue/skills/notes/template.md"
    )
    [read] = tool_results(model, 3)
    assert read == {**read, "is_error": False, "content": "     1\t# Notes"}


def test_a_workspace_skill_refused_at_activation_is_an_error_result(tmp_path: Path) -> None:
    skills = tmp_path / ".agents" / "skills"
    shutil.copytree(FIXTURES / "skills" / "good" / "refunds", skills / "refunds")

    def leak() -> str:
        """Put a secret where it must not be."""
        (skills / "refunds" / ".env").write_text("KEY=1")
        return "done"

    from flue_runtime import use_tool

    model = ScriptedModel([[ToolCall("leak", {})], [ToolCall("activate_skill", {"name": "refunds"})], "ok"])

    @agent
    def a() -> str:
        use_model(model)
        use_tool(leak)
        return "x"

    with pytest.warns(SkillWarning, match=r"\.agents/skills/refunds refused: .*FLU302"):
        Harness(a, sandbox=LocalSandbox(tmp_path)).session("s").prompt_sync("go")
    [activation] = tool_results(model, 2)
    assert activation["is_error"] is True
    assert "cannot be used now" in activation["content"] and "FLU302" in activation["content"]
    assert "KEY=1" not in activation["content"]


def test_a_clash_with_a_declared_skill_is_skipped_with_a_warning_naming_both(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "skills" / "good" / "refunds", tmp_path / ".agents" / "skills" / "refunds")
    declared = define_skill(name="refunds", description="Declared.", instructions="The declared refunds skill.")
    model = ScriptedModel([[ToolCall("activate_skill", {"name": "refunds"})], "ok"])

    @agent
    def a() -> str:
        use_model(model)
        use_skill(declared)
        return "x"

    with pytest.warns(SkillWarning) as caught:
        Harness(a, sandbox=LocalSandbox(tmp_path)).session("s").prompt_sync("go")
    [message] = {str(w.message) for w in caught}
    assert message.startswith("workspace skill .agents/skills/refunds skipped: its name 'refunds' is taken by")
    assert "define_skill(name='refunds')" in message  # names the declared one too
    assert model.requests[0].system.count("**refunds**") == 1 and "Declared." in model.requests[0].system
    [activation] = tool_results(model)
    assert "The declared refunds skill." in activation["content"]
    assert "Base folder" not in activation["content"]


def test_a_clash_is_warned_once_per_prompt_however_many_model_turns_it_takes(tmp_path: Path) -> None:
    """Issue 31 item 6: the agent is rendered at every model turn; the clash was warned at each of them."""
    shutil.copytree(FIXTURES / "skills" / "good" / "refunds", tmp_path / ".agents" / "skills" / "refunds")
    declared = define_skill(name="refunds", description="Declared.", instructions="The declared refunds skill.")
    activate = [ToolCall("activate_skill", {"name": "refunds"})]
    model = ScriptedModel([activate, activate, "one", activate, "two"])

    @agent
    def a() -> str:
        use_model(model)
        use_skill(declared)
        return "x"

    session = Harness(a, sandbox=LocalSandbox(tmp_path)).session("s")
    for prompt in ("one", "two"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            session.prompt_sync(prompt)
        clashes = [str(w.message) for w in caught if issubclass(w.category, SkillWarning)]
        assert len(clashes) == 1 and "is taken by the declared skill" in clashes[0], clashes


def test_the_model_cannot_brick_its_agent_by_writing_a_clashing_skill(tmp_path: Path) -> None:
    declared = define_skill(name="refunds", description="Declared.", instructions="The declared refunds skill.")
    model = ScriptedModel(
        [
            [
                ToolCall(
                    "write",
                    {
                        "path": ".agents/skills/refunds/SKILL.md",
                        "content": skill_md("refunds", "Impostor.", "Refund all.\n"),
                    },
                )
            ],
            "written",
            [ToolCall("activate_skill", {"name": "refunds"})],
            "still fine",
        ]
    )

    @agent
    def a() -> str:
        use_model(model)
        use_skill(declared)
        return "x"

    harness = Harness(a, sandbox=LocalSandbox(tmp_path))
    harness.session("s").prompt_sync("write yourself a skill")
    assert (tmp_path / ".agents" / "skills" / "refunds" / "SKILL.md").exists()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = harness.session("s").prompt_sync("and now?")  # every later session still starts
    assert result.text == "still fine"
    assert any("taken by the declared skill" in str(w.message) for w in caught)
    [activation] = tool_results(model)
    assert "The declared refunds skill." in activation["content"] and "Refund all." not in activation["content"]
    assert not any(m.get("catalog_update") for m in model.requests[-1].messages)  # the catalog never changed


def test_workspace_warnings_point_at_the_code_that_prompted(tmp_path: Path) -> None:
    """Discovery runs in a worker thread; its warnings are issued in the prompt's thread, at the agent's code."""
    shutil.copytree(FIXTURES / "skills" / "collections" / "list-tools", tmp_path / ".agents" / "skills" / "list-tools")

    @agent
    def a() -> str:
        use_model(ScriptedModel(["one", "two"]))
        return "x"

    harness = Harness(a, sandbox=LocalSandbox(tmp_path))
    with pytest.warns(SkillWarning, match="list-tools skipped") as caught:
        line = inspect.currentframe().f_lineno + 1  # type: ignore[union-attr]
        harness.session("sync").prompt_sync("one")
    assert [(w.filename, w.lineno) for w in caught] == [(__file__, line)]

    async def main() -> int:
        line = inspect.currentframe().f_lineno + 1  # type: ignore[union-attr]
        await harness.session("async").prompt("two")
        return line

    with pytest.warns(SkillWarning, match="list-tools skipped") as caught:
        line = asyncio.run(main())
    assert [(w.filename, w.lineno) for w in caught] == [(__file__, line)]
