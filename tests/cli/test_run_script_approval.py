"""Issue 33, consent: `flue-skills run` asks on the terminal before a skill's script runs, once per skill and
content in the session; a no, or end of input, refuses it and the conversation goes on."""

from __future__ import annotations

import io
import sys
import textwrap
from pathlib import Path

import pytest

from flue_build.cli import main

AGENT = textwrap.dedent(
    """
    from flue_runtime import LocalSandbox, agent, define_skill, use_model, use_sandbox, use_skill
    from flue_runtime.models import ScriptedModel, ToolCall

    TOOLS = define_skill(
        name="tools", description="Has a script.", instructions="Run it.",
        files={"scripts/hello.py": "open('ran', 'a').write('x')\\nprint('hi')\\n"},
    )
    RUN = ToolCall("run_skill_script", {"skill": "tools", "script": "hello.py"})
    MODEL = ScriptedModel([[RUN], "first done", [RUN], "second done"])

    @agent
    def runner():
        use_model(MODEL)
        use_skill(TOOLS)
        use_sandbox(LocalSandbox(".", allow_exec=True))
        return "Run scripts."
    """
)


@pytest.mark.parametrize("answer", ["y", "n"])
def test_run_asks_on_the_terminal_once_per_skill_content(
    answer: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "approval_agent.py").write_text(AGENT)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path / "work")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delitem(sys.modules, "approval_agent", raising=False)
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"go\n{answer}\nagain\n"))
    assert main(["run", "approval_agent:runner"]) == 0
    out, err = capsys.readouterr()
    assert err.count("run scripts/hello.py of skill 'tools' (define_skill(name='tools'), content ") == 1
    assert "with arguments []? [y/N] " + answer in err
    ran = tmp_path / "work" / "ran"
    if answer == "y":  # asked once: the second run of the same content is not asked again
        assert ran.read_text() == "xx"
        assert out.count("exit status: 0") == 2
    else:
        assert not ran.exists()
        assert out.count("hello.py of skill 'tools' was not run: not approved") == 2
    assert "first done" in out and "second done" in out
