"""`run_skill_script` never runs a workspace skill's script: those files sit in the sandbox, where the
model's own `write` tool reaches, so running them would run what the model wrote."""

from __future__ import annotations

from pathlib import Path

import pytest
from harness_support import tool_results

from flue_runtime import Harness, LocalSandbox, agent, define_skill, use_model, use_skill
from flue_runtime.models import ScriptedModel, ToolCall

WORKSPACE_SKILL = "---\nname: helper\ndescription: Helps. Use when asked.\n---\nRun scripts/go.py.\n"


def write_workspace_skill(work: Path) -> Path:
    folder = work / ".agents" / "skills" / "helper"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(WORKSPACE_SKILL)
    (folder / "scripts" / "go.py").write_text("open('ran', 'w').write('yes')\n")
    return folder


@pytest.mark.parametrize("also_bundled", [False, True])
def test_a_workspace_skills_script_is_never_run(
    also_bundled: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    work = tmp_path / "work"
    write_workspace_skill(work)
    mounted = define_skill(
        name="tools", description="Has a script.", instructions="Run it.", files={"scripts/hello.py": "print('hi')\n"}
    )
    model = ScriptedModel([[ToolCall("run_skill_script", {"skill": "helper", "script": "go.py"})], "ok"])

    @agent
    def a() -> str:
        use_model(model)
        if also_bundled:
            use_skill(mounted)
        return "x"

    Harness(a, sandbox=LocalSandbox(work, allow_exec=True)).session("s").prompt_sync("go")
    offered = [tool["name"] for tool in model.requests[0].tools]
    [result] = tool_results(model)
    assert not (work / "ran").exists()
    assert result["is_error"]
    if also_bundled:  # offered for the application's skill, refused for the workspace's
        assert "run_skill_script" in offered
        assert "'helper' is a workspace skill" in result["content"]
    else:  # only a workspace skill has scripts: the tool is not offered at all
        assert "run_skill_script" not in offered
        assert "no tool named 'run_skill_script'" in result["content"]
