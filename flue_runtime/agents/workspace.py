"""Workspace skills: the skills a project keeps in `<sandbox>/.agents/skills/<name>/SKILL.md`.

Found at session start; a malformed one is skipped with a warning naming the problem;
the instructions are re-read from the sandbox at every activation, so edits show up.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

from flue_runtime.agents.sandbox import Sandbox
from flue_runtime.errors import SandboxError, WorkspaceSkillWarning
from flue_runtime.format.validate import SKILL_FILE, check_skill_md
from flue_runtime.format.vetting import PackedFile
from flue_runtime.mount.reference import SkillReference

WORKSPACE_DIR = ".agents/skills"


@dataclass(frozen=True)
class WorkspaceSource:
    """A skill folder inside a sandbox, read live."""

    sandbox: Sandbox
    folder: str
    listing: tuple[PackedFile, ...]

    live = True

    def files(self) -> tuple[PackedFile, ...]:
        return self.listing

    def read(self, path: str) -> bytes:
        return self.sandbox.read_bytes(f"{self.folder}/{path}")

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


def discover_workspace_skills(sandbox: Sandbox) -> list[tuple[SkillReference, str]]:
    """Valid skills under `.agents/skills/` with their folders, sorted by name; warnings for the rest."""
    if not sandbox.is_dir(WORKSPACE_DIR):
        return []
    found: list[tuple[SkillReference, str]] = []
    for entry in sandbox.list(WORKSPACE_DIR):
        folder = f"{WORKSPACE_DIR}/{entry.name}"
        if entry.is_link:
            warnings.warn(
                f"workspace skill {folder} skipped: FLU301 a symbolic link is never followed",
                WorkspaceSkillWarning,
                stacklevel=2,
            )
            continue
        if not entry.is_dir:
            continue
        try:
            vetted = sandbox.vet(folder)
        except (SandboxError, OSError) as exc:
            warnings.warn(f"workspace skill {folder} skipped: {exc}", WorkspaceSkillWarning, stacklevel=2)
            continue
        if vetted.metadata is None or not vetted.ok:
            problems = "; ".join(d.format().splitlines()[0] for d in vetted.diagnostics if d.is_error)
            warnings.warn(f"workspace skill {folder} skipped: {problems}", WorkspaceSkillWarning, stacklevel=2)
            continue
        found.append((SkillReference(vetted.metadata, WorkspaceSource(sandbox, folder, vetted.files)), folder))
    return found
