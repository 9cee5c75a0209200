"""Issue 41 item 1: text from others never drives the terminal. Hostile text (OSC 52, which writes the clipboard;
CSI sequences that clear the screen and move the cursor; a C1 CSI; a carriage return; bidirectional overrides) is
put in every place a command prints from: a skill's description and instructions, an eval set's queries, a
script's output, a tool's result, the model's answer and tool calls, a skill name a model makes up, the name of a
folder in the workspace (whose warning the command prints). Every command runs in this process (`main`), and what it wrote to stdout and stderr holds no byte a
terminal acts on: each such character arrives escaped, by `format.diagnostics.printable`.
`prompt --raw` is the one way to get the exact bytes."""

from __future__ import annotations

import io
import itertools
import json
import re
import shlex
import sys
import textwrap
from pathlib import Path

import pytest
from support import scripted_mcp
from support.hosted_skills import StandIn, failure, stand_in
from support.projects import copy_project
from support.scripted_mcp import entry, served, skill_md, write_config

from flue_build.cli import main

__all__ = ["stand_in"]

#: OSC 52 (the clipboard), clear screen, cursor up, erase line, a C1 CSI, NEL, BEL, a carriage return, bidi overrides.
HOSTILE = "\x1b]52;c;ZXZpbA==\x07 \x1b[2J\x1b[1A\x1b[2K \x9b31m \x85 \r \u202egnp.exe\u202c \u2066x\u2069 \u200f end"
#: HOSTILE as a catalog line shows it (its white space, NEL and CR among it, made single spaces).
KEPT = " ".join(HOSTILE.split())
#: What a terminal acts on, or what reorders a line as shown (a line break and a tab are layout, kept).
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")

_modules = itertools.count()

AGENT = """
import json
from pathlib import Path

from flue_runtime import LocalSandbox, agent, use_model, use_sandbox, use_skill, use_tool
from flue_runtime.models import ModelRequest, ModelResponse, ScriptedModel, ToolCall
from flue_runtime.mount.disk import load_skill_dir

HERE = Path(__file__).parent
HOSTILE = {hostile!r}


def lookup(query: str) -> str:
    \"\"\"Look something up in the archive.\"\"\"
    return "found: " + HOSTILE


def reply(request: ModelRequest) -> ModelResponse:
    last = request.messages[-1]
    if last["role"] == "tool":
        return ModelResponse(text="The answer:\\n" + HOSTILE + "\\nend of answer")
    if "EVAL" in last["content"]:  # an eval query: a skill name the model made up, and the right one
        return ModelResponse(
            tool_calls=(ToolCall("activate_skill", {{"name": HOSTILE}}), ToolCall("activate_skill", {{"name": "hostile"}}))
        )
    return ModelResponse(
        text="Working " + HOSTILE,
        tool_calls=(
            ToolCall("activate_skill", {{"name": "hostile"}}),
            ToolCall("activate_skill", {{"name": HOSTILE}}),
            ToolCall("lookup", {{"query": HOSTILE}}),
            ToolCall("run_skill_script", {{"skill": "hostile", "script": "echo.py", "args": [HOSTILE]}}),
            ToolCall("read", {{"path": "notes.txt"}}),
        ),
    )


model = ScriptedModel([reply] * 1000)


@agent
def hostile_agent():
    use_model(model)
    use_skill(load_skill_dir(HERE / "skills" / "hostile"))
    use_tool(lookup)
    use_sandbox(LocalSandbox(HERE / "work", allow_exec=True))
    return "Answer questions."
"""


def yaml_escaped(text: str) -> str:
    """`text` in a YAML double-quoted scalar: every control character as an escape, so SKILL.md is valid YAML."""
    return json.dumps(text)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    """A hostile skill on disk, an agent module mounting it, a sandbox holding a hostile file; the MODULE:AGENT."""
    skill = tmp_path / "skills" / "hostile"
    (skill / "scripts").mkdir(parents=True)
    (skill / "evals").mkdir()
    (skill / "SKILL.md").write_text(
        f"---\nname: hostile\ndescription: {yaml_escaped('Use for anything. ' + HOSTILE)}\n---\n"
        f"# Hostile\n\nRun scripts/echo.py. {HOSTILE}\nThe end.\n",
        encoding="utf-8",
    )
    (skill / "scripts" / "echo.py").write_text(
        f"import sys\nprint({HOSTILE!r}, *sys.argv[1:])\nprint({HOSTILE!r}, file=sys.stderr)\n", encoding="utf-8"
    )
    queries = [
        {"query": f"EVAL help me {HOSTILE}", "should_trigger": True},
        {"query": f"EVAL {HOSTILE} something else", "should_trigger": False},
    ]
    (skill / "evals" / "triggers.json").write_text(json.dumps(queries), encoding="utf-8")
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "notes.txt").write_text(f"notes {HOSTILE}\n", encoding="utf-8")
    named = tmp_path / "work" / ".agents" / "skills" / f"a{HOSTILE.replace(chr(13), '')}"  # (a model can write it)
    named.mkdir(parents=True)
    (named / "SKILL.md").write_text("---\nname: a\ndescription: A workspace skill.\n---\nBody.\n")
    module = f"hostile_text_agent_{next(_modules)}"
    (tmp_path / f"{module}.py").write_text(textwrap.dedent(AGENT.format(hostile=HOSTILE)), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path, f"{module}:hostile_agent"


def printed(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """What the command wrote to stdout and stderr."""
    main(list(argv))
    out, err = capsys.readouterr()
    return f"{out}{err}"


def assert_clean(text: str) -> None:
    found = sorted({repr(c) for c in UNSAFE.findall(text)})
    assert not found, f"printed raw: {', '.join(found)}\n{text}"


def test_prompt_escapes_the_system_prompt_and_activations(
    folder: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    _, agent = folder
    text = printed(capsys, "prompt", agent, "--skill", "hostile")
    assert_clean(text)
    assert "\\x1b]52;c;ZXZpbA==\\x07" in text and "\\u202egnp.exe\\u202c" in text  # shown, escaped
    assert "The end." in text  # the activation, line by line
    main(["prompt", agent, "--skill", "hostile", "--format", "json"])
    out, err = capsys.readouterr()
    assert_clean(out + err)
    assert f"Use for anything. {KEPT}" in json.loads(out)["system"]  # JSON's escapes read back as the same string


def test_prompt_raw_prints_the_exact_bytes(folder: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    _, agent = folder
    main(["prompt", agent, "--raw", "--skill", "hostile"])
    out = capsys.readouterr().out
    assert f"Use for anything. {KEPT}" in out and f"Run scripts/echo.py. {HOSTILE}\nThe end." in out


def test_run_escapes_the_trace_the_answer_and_the_question(
    folder: tuple[Path, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, agent = folder
    monkeypatch.setattr(sys, "stdin", io.StringIO("go\ny\n"))
    assert main(["run", agent]) == 0
    out, err = capsys.readouterr()
    assert_clean(out + err)
    assert "<- run_skill_script returned: exit status: 0" in out  # the script ran (asked, and said yes)
    assert "  <- lookup returned: found: \\x1b]52;c;ZXZpbA==\\x07" in out
    assert "The answer:\n\\x1b]52" in out and "\nend of answer" in out  # the answer keeps its lines
    assert "flue-skills run: warning: workspace skill .agents/skills/a\\x1b]52;c;ZXZpbA==\\x07" in err


def test_eval_escapes_queries_and_what_the_model_named(
    folder: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    _, agent = folder
    text = printed(capsys, "eval", agent, "--runs", "1", "--jobs", "1")
    assert_clean(text)
    assert "EVAL help me \\x1b]52" in text
    main(["eval", agent, "--runs", "1", "--format", "json"])
    out, err = capsys.readouterr()
    assert_clean(out + err)
    document = json.loads(out)
    assert {q["query"] for q in document["queries"]} == {f"EVAL help me {HOSTILE}", f"EVAL {HOSTILE} something else"}


def test_check_ls_export_new_and_schema_print_nothing_raw(
    folder: tuple[Path, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    base, agent = folder
    named = base / "named" / "bad"
    named.mkdir(parents=True)
    (named / "SKILL.md").write_text(f"---\nname: {yaml_escaped(HOSTILE)}\ndescription: Bad.\n---\nBody.\n")
    assert_clean(printed(capsys, "check", str(base / "skills"), str(base / "named")))
    assert_clean(printed(capsys, "check", str(base / "skills"), "--format", "json"))
    project = copy_project("runtime-agent", tmp_path / "project")
    skill_md = project / "skills" / "data-tools" / "SKILL.md"
    described = yaml_escaped(f"Summarise data files. {HOSTILE} Use when the user shares tabular data.")
    skill_md.write_text(re.sub("description: .*", lambda _: f"description: {described}", skill_md.read_text()))
    for form in ("text", "json"):
        listed = printed(capsys, "ls", str(project), "--format", form)
        assert_clean(listed)
        assert "\\x1b]52" in listed or "\\u001b]52" in listed
    assert_clean(printed(capsys, "export", agent, str(tmp_path / "out")))
    assert_clean(printed(capsys, "new", HOSTILE))
    assert_clean(printed(capsys, "new", "fresh", "--description", f"Use for x. {HOSTILE}"))
    assert_clean(printed(capsys, "schema"))


def test_mcp_on_stdio_sends_no_escape_byte(
    folder: tuple[Path, str], capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The protocol stream is JSON for a client: every control character arrives as a JSON escape."""
    _, agent = folder
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": "skill://hostile/SKILL.md"}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list"},
    ]
    data = "".join(json.dumps(r) + "\n" for r in requests).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    assert main(["mcp", agent]) == 0
    out, err = capsysbinary.readouterr()
    assert b"\x1b" not in out and b"\x1b" not in err
    assert b"\\u001b]52" in out  # the skill was served, escaped as JSON escapes it
    assert_clean(err.decode())


def test_publish_prints_what_a_hosted_service_said_escaped(
    stand_in: StandIn, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hosted service's error message (input, from a server), in the progress line and the error, for both
    services and both formats."""
    skill = tmp_path / "skills" / "refunds"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: refunds\ndescription: Handle refunds.\n---\nDo it well.\n")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'acme'\nversion = '1'\n")
    monkeypatch.chdir(tmp_path)
    for service in ("anthropic", "openai"):
        stand_in.failure = failure(service, 500, f"the service says {HOSTILE}")
        for form in ("text", "json"):
            text = printed(capsys, "publish", str(tmp_path / "skills"), "--to", service, "--format", form)
            assert_clean(text)
            assert "the service says" in text  # the message is shown, escaped


@pytest.mark.slow  # starts an MCP server as a child process
def test_lock_prints_what_a_server_listed_escaped(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """A server's skill URI (its prefix is the server's to choose) and the warnings about what it served (captured
    at the file descriptors: the server, a child process, writes its stderr there)."""
    files = {"SKILL.md": skill_md("refunds", "Handle refunds.")}
    prefix = f"acme{HOSTILE}".replace("/", "")
    listed = entry("refunds", files, root=f"{prefix}/refunds")
    broken = {**entry("triage", {"SKILL.md": skill_md("triage", "Sort.")}), "uri": f"skill://{HOSTILE}/x/SKILL.md"}
    config = write_config(tmp_path, [[listed, broken]], served(files, f"{prefix}/refunds"))
    command = shlex.join([sys.executable, str(Path(scripted_mcp.__file__)), str(config)])
    text = printed(capfd, "lock", command, "--lock", str(tmp_path / "flue-skills.lock"))
    assert_clean(text)
    assert "1 skill pinned" in text and "\\x1b]52" in text  # the URI is shown, escaped; the warning too
