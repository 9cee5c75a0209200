"""Workspace skills: the skills a project keeps in `<sandbox>/.agents/skills/<name>/SKILL.md`.

Discovered at every prompt, each folder vetted by the packing rules: a malformed one
(or one holding a secret or a link) is skipped with a warning naming the problem. At
activation the folder is vetted again and its file list read anew, and the instructions
are re-read at every activation, so edits show up in a running session.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Mapping, Sequence
from types import FrameType
from typing import BinaryIO

from flue_runtime.agents.sandbox import Sandbox
from flue_runtime.errors import SandboxError, SkillWarning
from flue_runtime.format.diagnostics import printable
from flue_runtime.format.records import SKILL_FILE, PackedFile
from flue_runtime.format.skill_folder import VettedSkill
from flue_runtime.format.validate import check_skill_md
from flue_runtime.mount.reference import Kind, MountedSource, SkillReference

__all__ = [
    "WORKSPACE_DIR",
    "Workspace",
    "WorkspaceSource",
    "discover_workspace_skills",
    "find_workspace_skills",
    "warn",
    "without_clashes",
]


WORKSPACE_DIR = ".agents/skills"


class WorkspaceSource(MountedSource):
    """A skill folder inside a sandbox, read live."""

    live = True
    kind: Kind = "workspace"

    def __init__(self, sandbox: Sandbox, folder: str, listing: tuple[PackedFile, ...]) -> None:
        self.sandbox = sandbox
        self.folder = folder
        #: The file list as last vetted (`relist`).
        self.files_now = listing

    def relist(self) -> None:
        """Vet the folder again and take its file list as it is now (`SandboxError` if it is refused now)."""
        vetted = self.sandbox.vet(self.folder)
        if vetted.metadata is None or not vetted.ok:
            problems = _problems(vetted)
            warn(f"workspace skill {self.folder} refused: {problems}")
            raise SandboxError(f"workspace skill {self.folder} cannot be used now: {problems}")
        self.files_now = vetted.files

    @property
    def name(self) -> str:
        return self.folder.rpartition("/")[2]

    def files(self) -> tuple[PackedFile, ...]:
        return self.files_now

    def read(self, path: str) -> bytes:
        return self.sandbox.read_bytes(f"{self.folder}/{path}")

    def open(self, path: str) -> tuple[BinaryIO, int]:
        """A file as a stream: a page of it read from the sandbox costs the page, not the file."""
        return self.sandbox.open_read(f"{self.folder}/{path}")

    def is_executable(self, path: str) -> bool:
        return self.sandbox.is_executable(f"{self.folder}/{path}")

    def instructions(self) -> str:
        checked = check_skill_md(self.read(SKILL_FILE), f"{self.folder}/{SKILL_FILE}", self.folder.rpartition("/")[2])
        if checked.metadata is None:
            first = next((d for d in checked.diagnostics if d.is_error), None)
            raise SandboxError(
                f"workspace skill {self.folder} is no longer valid: {first.format() if first else 'unreadable'}"
            )
        return checked.body

    def describe(self) -> str:
        return f"workspace skill {self.folder}"


def _problems(vetted: VettedSkill) -> str:
    return "; ".join(d.format().splitlines()[0] for d in vetted.diagnostics if d.is_error) or "no valid SKILL.md"


Workspace = list[tuple[SkillReference, str]]


def find_workspace_skills(sandbox: Sandbox) -> tuple[Workspace, list[str]]:
    """Valid skills under `.agents/skills/` with their folders, sorted by name; and why each other folder was skipped.

    Nothing is warned here: the harness runs this in a worker thread and warns (`warn`) in the
    prompt's own thread, so a warning points at the agent's code, not at the thread pool.
    """
    if not sandbox.is_dir(WORKSPACE_DIR):
        return [], []
    found: Workspace = []
    skipped: list[str] = []
    for entry in sandbox.list(WORKSPACE_DIR):
        folder = f"{WORKSPACE_DIR}/{entry.name}"
        shown = printable(folder)  # a name the model may have written: never a control character in a warning
        if entry.is_link:
            skipped.append(f"workspace skill {shown} skipped: FLU301 a symbolic link is never followed")
            continue
        if not entry.is_dir:
            continue
        try:
            vetted = sandbox.vet(folder)
        except (SandboxError, OSError) as exc:
            skipped.append(f"workspace skill {shown} skipped: {exc}")
            continue
        if vetted.metadata is None or not vetted.ok:
            skipped.append(f"workspace skill {shown} skipped: {_problems(vetted)}")
            continue
        found.append((SkillReference(vetted.metadata, WorkspaceSource(sandbox, folder, vetted.files)), folder))
    return found, skipped


def discover_workspace_skills(sandbox: Sandbox) -> Workspace:
    """Valid skills under `.agents/skills/` with their folders, sorted by name; a warning for each other folder."""
    found, skipped = find_workspace_skills(sandbox)
    for message in skipped:
        warn(message)
    return found


#: Where flue_runtime's frames are: a warning points past them, at the agent's code that prompted.
_FLUE = os.path.dirname(os.path.dirname(__file__)) + os.sep


def warn(message: str, category: type[Warning] = SkillWarning) -> None:
    """A warning (a `SkillWarning` unless told) pointing at the first caller outside flue_runtime and
    asyncio (the line that prompted, or the tool that did); what `warnings.warn(skip_file_prefixes=...)` does on
    3.12."""
    internal = [_FLUE]
    loop = sys.modules.get("asyncio")  # (not imported here: the catalog's import path stays light)
    if loop is not None and loop.__file__:
        internal.append(os.path.dirname(loop.__file__) + os.sep)
    level = 2  # stacklevel 1 is this function's own line
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(tuple(internal)):
        level, frame = level + 1, frame.f_back
    warnings.warn(message, category, stacklevel=level)


def without_clashes(
    workspace: Sequence[tuple[SkillReference, str]], declared: Mapping[str, SkillReference]
) -> tuple[list[tuple[SkillReference, str]], list[str]]:
    """`workspace` less the skills named like a declared one; and, for each of those, a warning naming both.

    The declared skill wins: nothing written into the workspace (by a user, or by the model
    through the sandbox) can take a declared skill's place or stop the agent from starting.
    The caller warns (`warn`): the harness once per prompt, though it renders at every model turn.
    """
    kept = []
    skipped = []
    for skill, folder in workspace:
        clash = declared.get(skill.name)
        if clash is None:
            kept.append((skill, folder))
            continue
        skipped.append(
            f"workspace skill {folder} skipped: its name {skill.name!r} is taken by the declared skill from "
            f"{clash.origin}, which wins; rename the workspace skill (folder and name) to offer both"
        )
    return kept, skipped
