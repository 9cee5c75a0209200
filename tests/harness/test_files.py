"""Sandbox file tools, the /.flue/skills tree, traversal attempts, paging, and workspace skills."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from harness_support import tool_results
from support.paths import FIXTURES

from flue_runtime import Harness, LocalSandbox, MemorySandbox, agent, use_model, use_skill
from flue_runtime.agents.reading import MAX_BYTES, MAX_LINES, page
from flue_runtime.errors import SkillWarning
from flue_runtime.models import ScriptedModel, ToolCall
from flue_runtime.mount.reference import SkillReference


def run_calls(calls: list[ToolCall], *skills: SkillReference, sandbox: object = None) -> list[dict[str, object]]:
    model = ScriptedModel([calls, "ok"])

    @agent
    def a() -> str:
        use_model(model)
        for s in skills:
            use_skill(s)
        return "x"

    Harness(a, sandbox=sandbox).session("s").prompt_sync("go")  # type: ignore[arg-type]
    return tool_results(model)


TRAVERSALS = [
    "/.flue/skills/refunds/../../../etc/passwd",
    "/.flue/skills/refunds/%2e%2e/%2e%2e/etc/passwd",
    "/.flue/skills/refunds/%252e%252e/x",
    "/.flue/skills/refunds/..%2fvip/SKILL.md",
    "/.flue/skills/refunds/..\\vip\\SKILL.md",
    "/.flue/skills/refunds//policy.md",
    "/.flue/skills/refunds/./policy.md",
    "/.flue/skills/refunds/policy.md\x00.png",
    "/.flue/skills/refunds/\uff0e\uff0e/vip/SKILL.md",
    "/.flue/skills/ghost/SKILL.md",
]


@pytest.mark.parametrize("path", TRAVERSALS)
@pytest.mark.parametrize("tool", ["read", "read_skill_resource"])
def test_traversal_attempts_fail(tool: str, path: str, refunds: SkillReference, vip: SkillReference) -> None:
    [result] = run_calls([ToolCall(tool, {"path": path})], refunds, vip, sandbox=MemorySandbox({"etc/passwd": "root"}))
    assert result["is_error"] is True
    assert "root" not in str(result["content"]) and "Offer a voucher" not in str(result["content"])


def test_read_resolves_skill_paths_transparently(refunds: SkillReference) -> None:
    sandbox = MemorySandbox({"notes.md": "mine\n"})
    skill_file, own = run_calls(
        [ToolCall("read", {"path": "/.flue/skills/refunds/policy.md"}), ToolCall("read", {"path": "notes.md"})],
        refunds,
        sandbox=sandbox,
    )
    assert skill_file["content"] == "     1\tOrders younger than 30 days are refundable."
    assert own["content"] == "     1\tmine"


def test_writing_under_flue_skills_is_refused(refunds: SkillReference) -> None:
    sandbox = MemorySandbox()
    [result] = run_calls(
        [ToolCall("write", {"path": "/.flue/skills/refunds/policy.md", "content": "all free"})],
        refunds,
        sandbox=sandbox,
    )
    assert result["is_error"] and "read-only" in str(result["content"])
    assert refunds.read_text("policy.md").startswith("Orders younger")
    assert sandbox.list("/") == []


def test_write_and_ls_in_the_sandbox(refunds: SkillReference) -> None:
    sandbox = MemorySandbox()
    wrote, root, skills, one = run_calls(
        [
            ToolCall("write", {"path": "out/reply.md", "content": "Dear customer"}),
            ToolCall("ls", {}),
            ToolCall("ls", {"path": "/.flue/skills"}),
            ToolCall("ls", {"path": "/.flue/skills/refunds"}),
        ],
        refunds,
        sandbox=sandbox,
    )
    assert wrote["content"] == "wrote 13 bytes to out/reply.md"
    assert sandbox.read_bytes("/out/reply.md") == b"Dear customer"
    assert root["content"] == ".flue/\nout/"
    assert skills["content"] == "refunds/"
    sizes = {f.path: f.size for f in refunds.files}
    assert one["content"] == f"SKILL.md  ({sizes['SKILL.md']} bytes)\nforms/\npolicy.md  ({sizes['policy.md']} bytes)"


def test_local_sandbox_refuses_symlink_escape_and_dotdot(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("top secret")
    os.symlink(tmp_path / "secret.txt", root / "link.txt")
    os.symlink(tmp_path, root / "up")
    results = run_calls(
        [
            ToolCall("read", {"path": "link.txt"}),
            ToolCall("read", {"path": "up/secret.txt"}),
            ToolCall("read", {"path": "../secret.txt"}),
            ToolCall("write", {"path": "up/new.txt", "content": "x"}),
            ToolCall("ls", {"path": "up"}),
        ],
        sandbox=LocalSandbox(root),
    )
    assert all(r["is_error"] for r in results), results
    assert not any("top secret" in str(r["content"]) for r in results)
    assert not (tmp_path / "new.txt").exists()


def test_paging_text_by_lines_and_bytes() -> None:
    data = "".join(f"line {i}\n" for i in range(1, 5001)).encode()
    first = page(data, "big.txt", "read")
    assert first.splitlines()[0] == "     1\tline 1"
    assert first.splitlines()[MAX_LINES - 1] == f"{MAX_LINES:>6}\tline {MAX_LINES}"
    assert first.endswith(f"[big.txt: lines 1-{MAX_LINES} of 5000; call read with offset={MAX_LINES + 1} to read on]")
    last = page(data, "big.txt", "read", offset=4999)
    assert last == "  4999\tline 4999\n  5000\tline 5000"
    wide = ("x" * 1000 + "\n").encode() * 200
    chunk = page(wide, "wide.txt", "read")
    assert len(chunk.encode()) <= MAX_BYTES + 200 and "call read with offset=" in chunk


def test_paging_binary_as_base64() -> None:
    import base64

    data = bytes(range(256)) * 400  # 102,400 bytes
    first = page(data, "blob.bin", "read_skill_resource")
    head, body, hint = first.split("\n")
    assert head.startswith("[binary file blob.bin, 102400 bytes; base64 of bytes 0-")
    end = int(head.rsplit("-", 1)[1].rstrip("]"))
    assert base64.b64decode(body) == data[:end] and len(body) <= MAX_BYTES
    assert hint == f"[call read_skill_resource with offset={end} to read on]"


def test_offset_past_the_end_is_a_clear_error(refunds: SkillReference) -> None:
    [result] = run_calls(
        [ToolCall("read_skill_resource", {"path": "/.flue/skills/refunds/policy.md", "offset": 99})], refunds
    )
    assert result["is_error"] and "offset 99 is past the end" in str(result["content"])


# --- workspace skills -----------------------------------------------------------------------


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    skills = tmp_path / ".agents" / "skills"
    shutil.copytree(FIXTURES / "skills" / "good" / "pdf-tools", skills / "pdf-tools")
    shutil.copytree(FIXTURES / "skills" / "collections" / "list-tools", skills / "list-tools")  # malformed
    return tmp_path


def test_workspace_skills_are_discovered_after_declared_ones(workspace: Path, refunds: SkillReference) -> None:
    model = ScriptedModel([[ToolCall("activate_skill", {"name": "pdf-tools"})], "ok"])

    @agent
    def a() -> str:
        use_model(model)
        use_skill(refunds)
        return "x"

    with pytest.warns(SkillWarning, match=r"list-tools skipped: .*FLU202"):
        Harness(a, sandbox=LocalSandbox(workspace)).session("s").prompt_sync("go")
    system = model.requests[0].system
    assert system.index("**refunds**") < system.index("**pdf-tools**")
    assert "list-tools" not in system
    [activation] = tool_results(model)
    assert "Base folder: .agents/skills/pdf-tools" in str(activation["content"])
    assert "- /.flue/skills/pdf-tools/reference.md" in str(activation["content"])


def test_workspace_edits_show_at_the_next_activation(workspace: Path) -> None:
    model = ScriptedModel(
        [
            [ToolCall("activate_skill", {"name": "pdf-tools"})],
            "ok",
            [ToolCall("activate_skill", {"name": "pdf-tools"})],
            "ok",
        ]
    )

    @agent
    def a() -> str:
        use_model(model)
        return "x"

    session = Harness(a, sandbox=LocalSandbox(workspace)).session("s")
    with pytest.warns(SkillWarning, match="list-tools skipped"):
        session.prompt_sync("one")
    skill_md = workspace / ".agents" / "skills" / "pdf-tools" / "SKILL.md"
    skill_md.write_text(skill_md.read_text().replace("# PDF tools", "# PDF tools, edited"))
    with pytest.warns(SkillWarning, match="list-tools skipped"):  # discovered again at every prompt
        session.prompt_sync("two")
    assert "# PDF tools, edited" not in str(model.requests[1].messages[-1]["content"])
    assert "# PDF tools, edited" in str(model.requests[3].messages[-1]["content"])


def test_workspace_secret_and_symlink_are_skipped(tmp_path: Path) -> None:
    skills = tmp_path / ".agents" / "skills"
    shutil.copytree(FIXTURES / "skills" / "good" / "refunds", skills / "refunds")
    (skills / "refunds" / ".env").write_text("KEY=1")
    shutil.copytree(FIXTURES / "skills" / "good" / "code-review", skills / "code-review")
    os.symlink("/etc/passwd", skills / "code-review" / "passwd")

    @agent
    def a() -> str:
        use_model(ScriptedModel(["ok"]))
        return "x"

    with pytest.warns(SkillWarning) as caught:
        session = Harness(a, sandbox=LocalSandbox(tmp_path)).session("s")
        assert session.system_prompt == "x\n"
    messages = sorted(str(w.message) for w in caught)
    assert "FLU301" in messages[0] and "code-review" in messages[0]
    assert "FLU302" in messages[1] and "refunds" in messages[1]


def test_workspace_skills_in_a_memory_sandbox() -> None:
    sandbox = MemorySandbox(
        {
            ".agents/skills/notes/SKILL.md": "---\nname: notes\ndescription: Take notes.\n---\nWrite notes.\n",
            ".agents/skills/notes/template.md": "# Notes\n",
            ".agents/skills/broken/SKILL.md": "no frontmatter",
        }
    )
    model = ScriptedModel([[ToolCall("activate_skill", {"name": "notes"})], "ok"])

    @agent
    def a() -> str:
        use_model(model)
        return "x"

    with pytest.warns(SkillWarning, match="broken skipped: .*FLU103"):
        Harness(a, sandbox=sandbox).session("s").prompt_sync("go")
    assert "- **notes** — Take notes." in model.requests[0].system
    assert "Write notes." in str(tool_results(model)[0]["content"])


def test_workspace_skill_folder_that_is_a_symlink_is_skipped_with_a_warning(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere" / "refunds"
    shutil.copytree(FIXTURES / "skills" / "good" / "refunds", elsewhere)
    (tmp_path / "root" / ".agents" / "skills").mkdir(parents=True)
    os.symlink(elsewhere, tmp_path / "root" / ".agents" / "skills" / "refunds")

    @agent
    def a() -> str:
        use_model(ScriptedModel(["ok"]))
        return "x"

    with pytest.warns(SkillWarning, match=r"\.agents/skills/refunds skipped: FLU301"):
        session = Harness(a, sandbox=LocalSandbox(tmp_path / "root")).session("s")
        assert session.system_prompt == "x\n"
