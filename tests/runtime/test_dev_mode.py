"""Issue 21 item 3: dev mode is live for every change, through the same vetting.

A `skill("./skills/x/SKILL.md")` resolved from a source tree is a snapshot of the folder;
the harness mounts the folder as it is now at every render (and vets it again at
activation), so an added or removed file, a new description, a new secret or a broken name
shows at the next use without reloading the module. Bundled and defined skills never change.
"""

from __future__ import annotations

import importlib
import random
from pathlib import Path
from types import ModuleType

import pytest
from support.hostile import planted
from support.imports import ImportSandbox
from support.projects import write_module, write_skill

from flue_runtime import (
    Harness,
    MemorySandbox,
    SkillError,
    ToolFailure,
    agent,
    define_skill,
    use_model,
    use_skill,
)
from flue_runtime.agents.skill_tools import MountedSkills
from flue_runtime.models import ScriptedModel, ToolCall

DESCRIPTION = "Handle refund requests. Use when a customer asks for money back."


def dev_package(root: Path, pkg: str, imports: ImportSandbox) -> tuple[ModuleType, Path]:
    """A package in a source tree (no bundle: dev mode) whose module holds `REFUNDS = skill(...)`."""
    base = root / "src" / pkg
    write_module(base / "__init__.py", "")
    write_module(base / "agent.py", 'from flue_runtime import skill\n\nREFUNDS = skill("./skills/refunds/SKILL.md")\n')
    folder = write_skill(base / "skills" / "refunds", description=DESCRIPTION, files={"policy.md": "30 days.\n"})
    imports.add(root / "src")
    return importlib.import_module(f"{pkg}.agent"), folder


def harness_over(module: ModuleType, model: ScriptedModel) -> Harness:
    @agent
    def support() -> str:
        use_model(model)
        use_skill(module.REFUNDS)
        return "Answer support questions."

    return Harness(support, sandbox=MemorySandbox())


def set_description(folder: Path, description: str) -> None:
    skill_md = folder / "SKILL.md"
    skill_md.write_text(skill_md.read_text(encoding="utf-8").replace(DESCRIPTION, description), encoding="utf-8")


def tool_text(model: ScriptedModel, request: int) -> str:
    content = model.requests[request].messages[-1]["content"]
    assert isinstance(content, str)
    return content


def test_added_and_removed_files_show_at_the_next_activation(
    tmp_path: Path, pkg_name: str, imports: ImportSandbox
) -> None:
    module, folder = dev_package(tmp_path, pkg_name, imports)
    activate = [ToolCall("activate_skill", {"name": "refunds"})]
    model = ScriptedModel(
        [
            activate,
            "one",
            activate,
            [ToolCall("read_skill_resource", {"path": "/.flue/skills/refunds/forms/claim.md"})],
            "two",
            activate,
            "three",
        ]
    )
    session = harness_over(module, model).session("s")
    session.prompt_sync("first")
    assert "- /.flue/skills/refunds/policy.md" in tool_text(model, 1)
    assert "claim.md" not in tool_text(model, 1)

    (folder / "forms").mkdir()
    (folder / "forms" / "claim.md").write_text("Claim form.\n")
    session.prompt_sync("second")
    assert "- /.flue/skills/refunds/forms/claim.md" in tool_text(model, 3)
    assert "Claim form." in tool_text(model, 4)  # readable at the next turn: the mounted tree holds it

    (folder / "policy.md").unlink()
    session.prompt_sync("third")
    assert "policy.md" not in tool_text(model, 6) and "forms/claim.md" in tool_text(model, 6)
    assert module.REFUNDS.current().resources == ("forms/claim.md",)
    assert module.REFUNDS.resources == ("policy.md",)  # the reference itself never changes


def test_a_description_change_is_announced_and_the_prompt_stays_byte_identical(
    tmp_path: Path, pkg_name: str, imports: ImportSandbox
) -> None:
    module, folder = dev_package(tmp_path, pkg_name, imports)
    model = ScriptedModel(["one", "two", "three"])
    session = harness_over(module, model).session("s")
    session.prompt_sync("first")
    set_description(folder, "Handle refunds and exchanges. Use when a customer wants money or goods back.")
    session.prompt_sync("second")
    session.prompt_sync("third")  # nothing changed since: nothing more announced
    assert len({r.system for r in model.requests}) == 1
    assert DESCRIPTION in model.requests[0].system
    assert len({repr(r.tools) for r in model.requests}) == 1
    updates = [m["content"] for m in model.requests[-1].messages if m.get("catalog_update")]
    assert updates == [
        "[The available skills changed.]\n"
        "Changed descriptions:\n"
        "- **refunds** — Handle refunds and exchanges. Use when a customer wants money or goods back.\n"
        "Available skills now: refunds"
    ]
    assert [m["content"] for m in session.messages[2:4]] == [updates[0], "second"]  # told before the next question


def test_a_new_secret_fails_the_next_render_and_the_session_resumes_once_it_is_gone(
    tmp_path: Path, pkg_name: str, imports: ImportSandbox
) -> None:
    module, folder = dev_package(tmp_path, pkg_name, imports)
    model = ScriptedModel(["one", "two"])
    session = harness_over(module, model).session("s")
    session.prompt_sync("first")
    before = session.messages
    (folder / ".env").write_text("TOKEN=1\n")
    with pytest.raises(SkillError) as info:
        session.prompt_sync("second")
    assert [d.code for d in info.value.diagnostics if d.is_error] == ["FLU302"]
    assert "skill('./skills/refunds/SKILL.md')" in str(info.value) and ".env" in str(info.value)
    assert session.messages == before  # nothing half-done was kept
    assert len(model.requests) == 1  # the model never saw the folder with the secret
    (folder / ".env").unlink()
    assert session.prompt_sync("second").text == "two"


@pytest.mark.parametrize(
    "name, codes",
    [("refund", ["FLU205"]), ("Refunds", ["FLU204", "FLU205"])],
    ids=["another-valid-name", "an-invalid-name"],
)
def test_a_name_that_no_longer_matches_the_folder_fails_the_next_render(
    name: str, codes: list[str], tmp_path: Path, pkg_name: str, imports: ImportSandbox
) -> None:
    module, folder = dev_package(tmp_path, pkg_name, imports)
    session = harness_over(module, ScriptedModel(["one", "two"])).session("s")
    session.prompt_sync("first")
    skill_md = folder / "SKILL.md"
    skill_md.write_text(skill_md.read_text(encoding="utf-8").replace("name: refunds", f"name: {name}"))
    with pytest.raises(SkillError) as info:
        session.prompt_sync("second")
    assert sorted(d.code for d in info.value.diagnostics if d.is_error) == codes


def test_activation_vets_the_folder_again(tmp_path: Path, pkg_name: str, imports: ImportSandbox) -> None:
    module, folder = dev_package(tmp_path, pkg_name, imports)
    skills = MountedSkills([module.REFUNDS])
    (folder / "notes.md").write_text("Notes.\n")
    assert "- /.flue/skills/refunds/notes.md" in skills.activate("refunds")
    (folder / "id_rsa").write_text("not really\n")
    with pytest.raises(ToolFailure, match="FLU302"):
        skills.activate("refunds")


def test_the_project_allow_list_is_read_at_every_use(tmp_path: Path, pkg_name: str, imports: ImportSandbox) -> None:
    module, folder = dev_package(tmp_path, pkg_name, imports)
    pyproject = tmp_path / "pyproject.toml"
    (folder / ".env.local").write_text("TOKEN=changeme\n")
    pyproject.write_text(f'[tool.flue]\nallow = ["src/{pkg_name}/skills/refunds/.env.local"]\n', encoding="utf-8")
    assert ".env.local" in module.REFUNDS.current().resources
    pyproject.write_text("[tool.flue]\n", encoding="utf-8")
    with pytest.raises(SkillError, match="FLU302"):
        module.REFUNDS.current()


def test_defined_skills_never_change(tmp_path: Path) -> None:
    defined = define_skill(name="vip", description="Extra care for VIP customers.", instructions="Offer a voucher.\n")
    assert defined.current() is defined


def test_a_secret_pasted_into_skill_md_is_never_returned_as_instructions(
    tmp_path: Path, pkg_name: str, imports: ImportSandbox
) -> None:
    """The reference resolved before the change, read again: the new SKILL.md is scanned as every other file is."""
    module, folder = dev_package(tmp_path, pkg_name, imports)
    reference = module.REFUNDS
    before = reference.instructions  # read once, as vetted
    token = planted.TOKENS["Slack bot token"](random.Random(1))
    skill_md = folder / "SKILL.md"
    skill_md.write_text(skill_md.read_text(encoding="utf-8") + f"\nUse the token {token} to post.\n", encoding="utf-8")
    with pytest.raises(SkillError) as info:
        instructions = reference.instructions
        assert instructions == before, "the pasted token was returned as instructions"
    assert [d.code for d in info.value.diagnostics if d.is_error] == ["FLU315"]
    assert token not in str(info.value)
