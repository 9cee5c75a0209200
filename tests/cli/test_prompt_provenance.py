"""`flue-skills prompt --provenance --store PATH --session ID` (MODULE:AGENT before `--provenance` taken and not
used): a stored session's turns, as `Session.provenance()` reads them, for a terminal and as JSON; the store is only
read."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from flue_build.cli import main
from flue_build.cli.exits import OK, USAGE
from flue_runtime import Harness, agent, define_skill, use_model, use_skill
from flue_runtime.models import ScriptedModel, ToolCall

REFUNDS = define_skill(
    name="refunds",
    description="Handle refund requests.",
    instructions="Read policy.md first.",
    files={"policy.md": "Orders younger than 30 days are refundable.\n"},
)
VIP = define_skill(name="vip", description="Extra care for VIP customers.", instructions="Offer a voucher.")


def stored_session(db: Path) -> Harness:
    """A SQLite store holding session case-42: an explicit activation, a read, and the model's own activation."""
    model = ScriptedModel(
        [
            [ToolCall("read_skill_resource", {"path": "/.flue/skills/refunds/policy.md"})],
            [ToolCall("activate_skill", {"name": "vip"})],
            "Refunded, with a voucher.",
        ]
    )

    @agent
    def support() -> str:
        use_model(model)
        use_skill(REFUNDS)
        use_skill(VIP)
        return "Answer support questions."

    harness = Harness(support, store=str(db))
    harness.session("case-42").prompt_sync("I want a refund", activate=["refunds"])
    return harness


def test_json_is_the_sessions_provenance(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "sessions.db"
    expected = [turn.to_dict() for turn in stored_session(db).session("case-42").provenance()]
    command = ["prompt", "any.module:agent", "--provenance", "--store", str(db), "--session", "case-42"]
    assert main([*command, "--format", "json"]) == OK
    shown = json.loads(capsys.readouterr().out)
    assert shown == {"session": "case-42", "turns": expected}
    served = [(s["kind"], s["skill"], s["path"], s["explicit"]) for turn in shown["turns"] for s in turn["served"]]
    assert served == [
        ("activation", "refunds", "SKILL.md", True),
        ("read", "refunds", "policy.md", False),
        ("activation", "vip", "SKILL.md", False),
    ]


def test_text_shows_each_turns_catalog_and_what_was_served(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "sessions.db"
    turns = stored_session(db).session("case-42").provenance()
    assert main(["prompt", "any.module:agent", "--provenance", "--store", str(db), "--session", "case-42"]) == OK
    out = capsys.readouterr().out
    assert out.startswith("session case-42: 3 model turns recorded\nturn 1 (step 0 of its prompt, answer at message")
    assert out.count("  catalog: 2 skills\n") == 3
    first, read = turns[0].served
    assert f"refunds  {REFUNDS.id[:12]}  {REFUNDS.origin}" in out
    assert f"activation (explicit)  refunds/SKILL.md   file {first.sha256[:12]}  skill {REFUNDS.id[:12]}" in out
    assert f"read                   refunds/policy.md  file {read.sha256[:12]}  skill {REFUNDS.id[:12]}" in out
    assert "  served: nothing" in out  # the last turn, the answer, called no tool


def test_no_agent_is_needed_to_read_a_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 42 item 1: the store alone says what its session saw; the form with MODULE:AGENT prints the same."""
    db = tmp_path / "sessions.db"
    stored_session(db)
    reading = ["--provenance", "--store", str(db), "--session", "case-42"]
    assert main(["prompt", *reading]) == OK
    alone = capsys.readouterr().out
    assert main(["prompt", "any.module:agent", *reading]) == OK
    assert capsys.readouterr().out == alone and alone.startswith("session case-42: 3 model turns recorded")
    assert main(["prompt", "--store", str(db)]) == USAGE
    assert "name the agent as MODULE:AGENT" in capsys.readouterr().err


def test_what_is_missing_is_a_usage_error_and_nothing_is_created(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "sessions.db"
    stored_session(db)
    base = ["prompt", "any.module:agent", "--provenance"]
    assert main([*base, "--store", str(tmp_path / "none.db"), "--session", "case-42"]) == USAGE
    assert not (tmp_path / "none.db").exists()
    assert main([*base, "--store", str(db), "--session", "case-7"]) == USAGE
    assert main([*base, "--store", str(db)]) == USAGE
    assert main(["prompt", "any.module:agent", "--store", str(db), "--session", "case-42"]) == USAGE
    err = capsys.readouterr().err
    assert "none.db: no such file" in err and "case-7: the store holds no such session" in err
    assert "--provenance, --store PATH and --session ID go together" in err


def test_the_guide_shows_what_the_command_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The provenance guide's console sample: its Python sample run, then the command it shows on that store."""
    from support.site import page

    text = page("guides/provenance.md")
    sample = re.search(r"```python\n(.*?)```", text, re.DOTALL)
    shown = re.search(r"```console\n\$ flue-skills (.*?)\n(.*?)```", text, re.DOTALL)
    assert sample is not None and shown is not None
    (tmp_path / "snippet.py").write_text(sample.group(1), encoding="utf-8")
    ran = subprocess.run([sys.executable, "snippet.py"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert ran.returncode == 0, ran.stderr
    monkeypatch.chdir(tmp_path)
    assert main(shlex.split(shown.group(1))) == OK
    assert _stable(capsys.readouterr().out) == _stable(shown.group(2))


def _stable(text: str) -> str:
    """What changes from run to run left out: the time of each turn, the id of an explicit activation's call."""
    text = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", "TIME", text)
    return re.sub(r"explicit_[0-9a-f]+", "explicit_ID", text)


def test_the_text_tells_apart_two_servers_one_text_shows() -> None:
    """Issue 40 item 3: a remote skill's catalog row keeps its server's identity beside the origin shown (one
    command in two environments shows alike)."""
    from flue_build.cli.commands.prompt import provenance_text
    from flue_runtime.agents.provenance import CatalogEntry, Turn

    shown = "MCP server `serve-skills` skill://refunds"
    catalog = (
        CatalogEntry("refunds-0123abcd", shown, "d1", "mcp-0123abcd00000000"),
        CatalogEntry("refunds-4567ef01", shown, "d1", "mcp-4567ef0100000000"),
        CatalogEntry("local", "define_skill(name='local')", "d2"),
    )
    text = provenance_text("s", [Turn(0, 1, 0.0, catalog)])
    assert f"{shown} (server mcp-0123abcd00000000)" in text and f"{shown} (server mcp-4567ef0100000000)" in text
    assert "define_skill(name='local')\n" in text + "\n" and "local" in text
