"""The file tools over a sandbox: read, write and ls, with the skills' virtual tree mounted read-only at /.flue.

`read` and `ls` serve paths under /.flue (`/.flue/skills/<name>/`, a remote skill's
`/.flue/remote/<server identity>/<name>/`) from the mounted skills' own file lists (the virtual
tree) and everything else from the sandbox; nothing under /.flue can be written, nor
anything inside the folder of a skill the application mounted from disk (dev mode), however
the path reaches it. Results are pages: `read` streams the file, `ls` lists a bounded number
of entries.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from flue_runtime.agents.provenance import served
from flue_runtime.agents.reading import entries_page, page_stream
from flue_runtime.agents.sandbox import Sandbox, sandbox_path
from flue_runtime.agents.tools import Tool, defined_tool
from flue_runtime.errors import FlueError, SandboxError, ToolFailure
from flue_runtime.mount.origins import origin_line
from flue_runtime.mount.reference import SkillReference
from flue_runtime.mount.vfs import SkillTree

__all__ = ["LS", "READ", "SPECS", "SandboxFiles", "WRITE"]


_PATH = {"type": "string", "description": "a path inside the sandbox, or under /.flue/ for skill files"}

READ: dict[str, Any] = {
    "name": "read",
    "description": (
        "Read a file from the sandbox, or a skill file under /.flue/ (as activate_skill lists it). Text comes with line "
        "numbers, at most 2,000 lines or 50 KB per call (the result says how to read on); binary files come "
        "as base64."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "path": _PATH,
            "offset": {"type": "integer", "minimum": 0, "description": "first line (text, 1-based) or byte (binary)"},
            "limit": {"type": "integer", "minimum": 1, "description": "at most this many lines or bytes"},
            "column": {
                "type": "integer",
                "minimum": 1,
                "description": "first character of the line at offset (1-based), to read on in a line longer than a page",
            },
        },
        "required": ["path"],
        "additionalProperties": False,
    },
}
WRITE: dict[str, Any] = {
    "name": "write",
    "description": "Write a UTF-8 text file in the sandbox (folders are created). /.flue is read-only.",
    "parameters": {
        "type": "object",
        "properties": {"path": _PATH, "content": {"type": "string"}},
        "required": ["path", "content"],
        "additionalProperties": False,
    },
}
LS: dict[str, Any] = {
    "name": "ls",
    "description": (
        "List a folder of the sandbox (default: its root), or of /.flue (skill files), at most 1,000 entries per call "
        "(the result says how to list on)."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "path": _PATH,
            "offset": {"type": "integer", "minimum": 0, "description": "first entry (1-based)"},
            "limit": {"type": "integer", "minimum": 1, "description": "at most this many entries"},
        },
        "additionalProperties": False,
    },
}
SPECS = {spec["name"]: spec for spec in (READ, WRITE, LS)}


class SandboxFiles:
    """`read`, `write` and `ls` over `sandbox` (None: no sandbox now, every call says so) and `tree`;
    `write` keeps out of the folders `keep_out`. `skill_paths` gives the skill files a sandbox path may
    have meant (`MountedSkills.skill_paths`): a `read` that finds no such sandbox file names them.
    `approve(skill, path)` is awaited before a skill file is read (`MountedSkills.approve_read`: a read across
    origins asks the read policy) and raises `ToolFailure` when it may not be."""

    def __init__(
        self,
        sandbox: Sandbox | None,
        tree: SkillTree,
        *,
        keep_out: Sequence[Path] = (),
        skill_paths: Callable[[str], list[str]] | None = None,
        approve: Callable[[SkillReference, str], Awaitable[None]] | None = None,
    ) -> None:
        self.sandbox = sandbox
        self.tree = tree
        self.keep_out = tuple(keep_out)
        self.skill_paths = skill_paths
        self.approve = approve

    def tool(self, name: str) -> Tool:
        spec = SPECS[name]
        functions: dict[str, Callable[..., Any]] = {"read": self.read, "write": self.write, "ls": self.ls}
        if self.approve is not None:
            functions["read"] = self._asking
        function = functions[name]
        return defined_tool(spec, function)

    async def _asking(
        self, path: str, offset: int | None = None, limit: int | None = None, column: int | None = None
    ) -> str:
        """`read`, a skill file read only once `approve` let it be."""
        if self.approve is not None and self.tree.is_skill_path(path):
            try:
                skill, inner = self.tree.file(path)
            except (FlueError, ValueError) as exc:
                raise ToolFailure(str(exc)) from exc
            await self.approve(skill, inner)
        return self.read(path, offset, limit, column)

    def _require(self) -> Sandbox:
        if self.sandbox is None:
            raise ToolFailure("the agent has no sandbox now; the file tools cannot be used")
        return self.sandbox

    def read(self, path: str, offset: int | None = None, limit: int | None = None, column: int | None = None) -> str:
        try:
            if not self.tree.is_skill_path(path):
                handle, size = self._open(path)
                with handle:
                    return page_stream(handle, size, path, "read", offset, limit, column)
            skill, inner = self.tree.file(path)
            handle, size = skill.open(inner)
            header = origin_line(skill, f"File {inner}") or ""  # (a remote skill's file says where it came from)
            with handle:
                text = page_stream(handle, size, path, "read", offset, limit, column, header=header)
            served("read", skill, inner)  # (a skill file, as read_skill_resource would have served it)
            return text
        except (FlueError, OSError, ValueError) as exc:
            raise ToolFailure(str(exc)) from exc

    def _open(self, path: str) -> tuple[BinaryIO, int]:
        """A sandbox file; where there is none but a skill has that path, the error names the skill's file: a model
        that read a skill's instructions writes its files' paths as they do, relative to the skill's folder."""
        try:
            return self._require().open_read(path)
        except SandboxError as exc:
            meant = self.skill_paths(path) if self.skill_paths is not None else []
            if not meant:
                raise
            raise SandboxError(f"{exc}; a skill has that file: read {' or '.join(meant)}") from None

    def write(self, path: str, content: str) -> str:
        try:
            if self.tree.is_skill_path(path) or self.tree.is_skill_path(path.casefold()):
                # also `/.FLUE/Remote/...`: on a case-insensitive disk that is the same folder
                self.tree.write(path, content.encode("utf-8"))
            self._require().write_bytes(path, content.encode("utf-8"), keep_out=self.keep_out)
        except (FlueError, OSError, ValueError) as exc:
            raise ToolFailure(str(exc)) from exc
        return f"wrote {len(content.encode('utf-8'))} bytes to {sandbox_path(path)}"

    def ls(self, path: str = "/", offset: int | None = None, limit: int | None = None) -> str:
        mounted = self.tree.mounted
        try:
            if self.tree.is_skill_path(path) or (mounted and self.tree.is_skill_path(path.rstrip("/") + "/")):
                entries = [(e.name, e.is_dir, e.size) for e in self.tree.list(path)]
                skill, inner = self.tree.owner(path)  # (a remote skill's folder says where it came from)
                header = origin_line(skill, f"Folder {inner or '.'}") if skill is not None else None
                return entries_page(entries, path, "ls", offset, limit, header=header or "")
            entries = [(e.name, e.is_dir, e.size) for e in self._require().list(path)]
            if mounted and sandbox_path(path) == "" and not any(name == ".flue" for name, _, _ in entries):
                entries.insert(0, (".flue", True, 0))
            return entries_page(entries, path, "ls", offset, limit)
        except (FlueError, OSError, ValueError) as exc:
            raise ToolFailure(str(exc)) from exc
