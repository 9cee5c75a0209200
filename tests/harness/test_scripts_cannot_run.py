"""Issue 44 item 4: a skill that ships `scripts/`, mounted where no script can run (no sandbox, or one without
`allow_exec`), is told to the developer: one `SkillWarning` per agent naming the skill and how to let scripts run,
not one per prompt or render; none where scripts can run, and none for a workspace skill (whose scripts never run)."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from flue_runtime import Harness, LocalSandbox, agent, define_skill, use_model, use_skill
from flue_runtime.agents.sandbox import Sandbox
from flue_runtime.errors import SkillWarning
from flue_runtime.models import ScriptedModel, ToolCall

CSV = define_skill(
    name="csv-tools",
    description="Count rows of CSV files. Use when the user shares one.",
    instructions="Run scripts/count.py with the file.",
    files={"scripts/count.py": "print(1)\n"},
)
NOTES = define_skill(name="notes", description="Take notes. Use when asked.", instructions="Write them down.")


def _harness(sandbox: Sandbox | None) -> Harness:
    model = ScriptedModel([[ToolCall("activate_skill", {"name": "csv-tools"})], "one", "two", "three"])

    @agent
    def a() -> str:
        use_model(model)
        use_skill(CSV)
        use_skill(NOTES)
        return "Help with files."

    return Harness(a, sandbox=sandbox)


def _warned(harness: Harness) -> list[str]:
    """What the harness warned while two sessions prompted (four renders, three prompts)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = harness.session("one")
        first.prompt_sync("count rows")
        first.prompt_sync("again")
        harness.session("two").prompt_sync("and again")
    return [str(w.message) for w in caught if issubclass(w.category, SkillWarning)]


@pytest.mark.parametrize("where", ["no sandbox", "a sandbox without allow_exec"])
def test_scripts_that_cannot_run_are_warned_once_per_agent(where: str, tmp_path: Path) -> None:
    harness = _harness(None if where == "no sandbox" else LocalSandbox(tmp_path))
    [message] = _warned(harness)
    assert "'csv-tools'" in message and "notes" not in message
    assert "LocalSandbox(path, allow_exec=True)" in message and "run_skill_script" in message


def test_no_warning_where_scripts_can_run(tmp_path: Path) -> None:
    assert _warned(_harness(LocalSandbox(tmp_path, allow_exec=True))) == []


def test_a_workspace_skills_scripts_are_not_warned_about(tmp_path: Path) -> None:
    folder = tmp_path / ".agents" / "skills" / "tidy"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: tidy\ndescription: Tidy files. Use when asked.\n---\nRun it.\n")
    (folder / "scripts" / "tidy.py").write_text("print(1)\n")
    model = ScriptedModel(["ok"])

    @agent
    def a() -> str:
        use_model(model)
        use_skill(NOTES)
        return "Help."

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Harness(a, sandbox=LocalSandbox(tmp_path)).session("s").prompt_sync("hi")
    assert [w for w in caught if issubclass(w.category, SkillWarning)] == []
