"""The tools a model uses on skills and on the sandbox: activate_skill, read_skill_resource, read, write, ls.

Each is built for one render from the skills mounted in it, so the tool list and the
catalog never disagree. Skill files are served only through the mounted skills'
own file lists (the virtual tree at /.flue/skills); nothing there can be written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from flue_runtime.agents.reading import MAX_BYTES, page
from flue_runtime.agents.sandbox import Sandbox, sandbox_path
from flue_runtime.agents.tools import Tool
from flue_runtime.errors import FlueError, PageError, SandboxError, ToolFailure
from flue_runtime.format.records import SKILL_FILE
from flue_runtime.mount.reference import SkillReference
from flue_runtime.mount.vfs import SKILLS_ROOT, SkillTree


@dataclass(frozen=True)
class Mounted:
    """A skill in the catalog, and whether it came from the workspace."""

    skill: SkillReference
    workspace_folder: str | None = None


def _long(skill: SkillReference) -> bool:
    """Instructions too long for one activation result (known from SKILL.md's size, without reading it)."""
    return any(f.path == SKILL_FILE and f.size > MAX_BYTES for f in skill.files)


def _activation(mounted: Mounted) -> str:
    skill = mounted.skill
    instructions = skill.instructions.strip("\n")
    parts = [f'<skill name="{skill.name}">', _first_page(skill, instructions), "</skill>", ""]
    if mounted.workspace_folder is not None:
        parts.append(f"Base folder: {mounted.workspace_folder} (paths in these instructions are relative to it)")
    if skill.resources:
        parts.append("Support files (read them with read_skill_resource when the instructions call for them):")
        parts.extend(f"- {SKILLS_ROOT}/{skill.name}/{path}" for path in sorted(skill.resources))
    else:
        parts.append("This skill has no support files.")
    return "\n".join(parts)


def _first_page(skill: SkillReference, instructions: str) -> str:
    """The instructions, or as many whole lines as fit in MAX_BYTES and where the rest is."""
    if len(instructions.encode("utf-8")) <= MAX_BYTES:
        return instructions
    lines = instructions.splitlines()
    kept: list[str] = []
    size = 0
    for line in lines:
        size += len(line.encode("utf-8")) + 1
        if kept and size > MAX_BYTES:
            break
        kept.append(line)
    skipped = len(lines) - len(kept)
    # The body is the end of SKILL.md: its line numbers there follow from the file's own count.
    first = len(skill.read_text(SKILL_FILE).splitlines()) - skipped + 1
    kept.append(
        f"[the instructions are longer than {MAX_BYTES // 1024} KB: {skipped} more lines; read them with "
        f"read_skill_resource path={SKILLS_ROOT}/{skill.name}/{SKILL_FILE} offset={first}]"
    )
    return "\n".join(kept)


def skill_tools(mounted: Sequence[Mounted]) -> list[Tool]:
    """`activate_skill` when any skill is mounted, `read_skill_resource` when any has support files
    (or instructions too long for one activation result)."""
    if not mounted:
        return []
    by_name = {m.skill.name: m for m in mounted}
    tree = SkillTree([m.skill for m in mounted])

    def activate_skill(name: str) -> str:
        found = by_name.get(name)
        if found is None:
            return f"There is no skill named {name!r}. Available skills: {', '.join(by_name)}."
        return _activation(found)

    tools = [
        Tool(
            "activate_skill",
            "Load a skill's full instructions (and the list of its support files) by its name from the "
            "Available Skills list. Call it before starting work that matches the skill's description.",
            {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "The skill's name, e.g. " + repr(mounted[0].skill.name)}
                },
                "required": ["name"],
                "additionalProperties": False,
            },
            activate_skill,
        )
    ]
    if any(m.skill.resources or _long(m.skill) for m in mounted):

        def read_skill_resource(path: str, offset: int | None = None, limit: int | None = None) -> str:
            try:
                data = tree.read(path)
            except (FlueError, ValueError) as exc:
                raise ToolFailure(str(exc)) from exc
            try:
                return page(data, path, "read_skill_resource", offset, limit)
            except PageError as exc:
                raise ToolFailure(str(exc)) from exc

        tools.append(
            Tool(
                "read_skill_resource",
                f"Read a support file of an activated skill by its path under {SKILLS_ROOT}/<skill>/. Text comes "
                "with line numbers, at most 2,000 lines or 50 KB per call (use offset to read on); binary files "
                "come as base64.",
                {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string", "description": f"e.g. {SKILLS_ROOT}/<skill>/reference.md"},
                        "offset": {
                            "type": "integer",
                            "minimum": 0,
                            "description": "first line (text, 1-based) or byte (binary)",
                        },
                        "limit": {
                            "type": "integer",
                            "minimum": 1,
                            "description": "at most this many lines (text) or bytes (binary)",
                        },
                    },
                    "required": ["path"],
                    "additionalProperties": False,
                },
                read_skill_resource,
            )
        )
    return tools


def sandbox_tools(sandbox: Sandbox, mounted: Sequence[Mounted]) -> list[Tool]:
    """`read`, `write` and `ls` over the sandbox, with /.flue/skills mounted read-only."""
    tree = SkillTree([m.skill for m in mounted])

    def read(path: str, offset: int | None = None, limit: int | None = None) -> str:
        try:
            data = tree.read(path) if tree.is_skill_path(path) else sandbox.read_bytes(path)
            return page(data, path, "read", offset, limit)
        except (FlueError, PageError, OSError, ValueError) as exc:
            raise ToolFailure(str(exc)) from exc

    def write(path: str, content: str) -> str:
        try:
            if tree.is_skill_path(path) or tree.is_skill_path(path.casefold()):
                # also `/.FLUE/Skills/...`: on a case-insensitive disk that is the same folder
                tree.write(path, content.encode("utf-8"))
            sandbox.write_bytes(path, content.encode("utf-8"))
        except (FlueError, OSError, ValueError) as exc:
            raise ToolFailure(str(exc)) from exc
        return f"wrote {len(content.encode('utf-8'))} bytes to {sandbox_path(path)}"

    def ls(path: str = "/") -> str:
        try:
            if tree.is_skill_path(path) or (mounted and tree.is_skill_path(path.rstrip("/") + "/")):
                entries = [(e.name, e.is_dir, e.size) for e in tree.list(path)]
            else:
                entries = [(e.name, e.is_dir, e.size) for e in sandbox.list(path)]
                if mounted and sandbox_path(path) == "" and not any(name == ".flue" for name, _, _ in entries):
                    entries.insert(0, (".flue", True, 0))
        except (FlueError, OSError, ValueError) as exc:
            raise ToolFailure(str(exc)) from exc
        if not entries:
            return "(empty folder)"
        return "\n".join(f"{name}/" if is_dir else f"{name}  ({size} bytes)" for name, is_dir, size in entries)

    path_spec = {"type": "string", "description": "a path inside the sandbox, or under /.flue/skills/ for skill files"}
    return [
        Tool(
            "read",
            "Read a file from the sandbox, or a skill file under /.flue/skills/<skill>/. Text comes with line "
            "numbers, at most 2,000 lines or 50 KB per call (use offset to read on); binary files come as base64.",
            {
                "type": "object",
                "properties": {
                    "path": path_spec,
                    "offset": {
                        "type": "integer",
                        "minimum": 0,
                        "description": "first line (text, 1-based) or byte (binary)",
                    },
                    "limit": {"type": "integer", "minimum": 1, "description": "at most this many lines or bytes"},
                },
                "required": ["path"],
                "additionalProperties": False,
            },
            read,
        ),
        Tool(
            "write",
            "Write a UTF-8 text file in the sandbox (folders are created). /.flue/skills is read-only.",
            {
                "type": "object",
                "properties": {"path": path_spec, "content": {"type": "string"}},
                "required": ["path", "content"],
                "additionalProperties": False,
            },
            write,
        ),
        Tool(
            "ls",
            "List a folder of the sandbox (default: its root), or of /.flue/skills.",
            {"type": "object", "properties": {"path": path_spec}, "additionalProperties": False},
            ls,
        ),
    ]


__all__ = ["Mounted", "SandboxError", "ToolFailure", "sandbox_tools", "skill_tools"]
