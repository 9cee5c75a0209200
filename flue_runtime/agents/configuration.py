"""One rendering of the agent with everything a model turn needs: its skills, prompt texts and tools.

The harness makes one before every model turn (and `ToolContext.prompt` runs with the
latest). Workspace skills come after the declared ones; one named like a declared skill
is left out, and why is kept in `skipped` for the harness to warn once per prompt (a
configuration is made at every model turn). A disabled skill (`Harness(disabled_skills=...)`,
`Session.disable_skills`) is left out of everything: the catalog, activation, reads, scripts. The harness's own tools have constant
definitions, in a fixed order, ahead of the agent's tools; which of them a session offers
only grows.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass

from flue_runtime.agents.approval import Consent, ReadConsent
from flue_runtime.agents.catalog import CatalogItem
from flue_runtime.agents.hooks import Render
from flue_runtime.agents.prompt import instructions_text, system_prompt
from flue_runtime.agents.sandbox import Sandbox
from flue_runtime.agents.sandbox_tools import SandboxFiles
from flue_runtime.agents.scripts import Scripts, exec_root, guarded
from flue_runtime.agents.skill_tools import Mounted, MountedSkills
from flue_runtime.agents.tools import Tool
from flue_runtime.agents.workspace import without_clashes
from flue_runtime.mount.origins import per_origin
from flue_runtime.mount.reference import SkillReference
from flue_runtime.mount.vfs import identity_of

__all__ = ["Configuration", "HARNESS_TOOLS"]


#: The harness's tools, in the order they are offered.
HARNESS_TOOLS = ("activate_skill", "read_skill_resource", "find_skills", "run_skill_script", "read", "write", "ls")


@dataclass(frozen=True)
class Configuration:
    """What one render of the agent mounted, with the skills the workspace adds."""

    render: Render
    sandbox: Sandbox | None
    skills: MountedSkills
    #: Why each workspace skill named like a declared one was left out: the caller warns.
    skipped: tuple[str, ...] = ()
    #: What was mounted under a label because skills of different origins share its name: the caller warns.
    labelled: str | None = None

    @classmethod
    def of(
        cls,
        rendered: Render,
        sandbox: Sandbox | None,
        workspace: Sequence[tuple[SkillReference, str]],
        budget: int | None,
        activated: Callable[[], Iterable[str]] | None = None,
        disabled: Collection[str] = (),
    ) -> Configuration:
        """`activated`: the skills the model activated in the conversation (see `MountedSkills`); `disabled`: the
        names left out (a workspace skill named like a disabled declared one is still a clash, and left out too).

        A workspace skill named like one the application declared is left out (the declared one wins); a name
        shared with a remote skill resolves per origin (`per_origin`), labels given before any is disabled."""
        declared = {skill.name: skill for skill in rendered.skills if identity_of(skill) is None}
        found, skipped = without_clashes(workspace, declared)
        named, labelled = per_origin([*rendered.skills, *(skill for skill, _ in found)])
        folders = [None] * len(rendered.skills) + [folder for _, folder in found]
        mounted = [Mounted(skill, folder) for skill, folder in zip(named, folders)]
        if disabled:
            mounted = [m for m in mounted if m.skill.name not in disabled]
        skills = MountedSkills(mounted, budget=budget, activated=activated)
        return cls(rendered, sandbox, skills, tuple(skipped), labelled)

    @property
    def instructions(self) -> str:
        return instructions_text(self.render.instructions, self.render.texts)

    @property
    def entries(self) -> list[CatalogItem]:
        return self.skills.entries

    def system_prompt(self) -> str:
        """The system prompt a session starting now gets."""
        return system_prompt(self.instructions, self.skills.catalog())

    def needed(self) -> list[str]:
        """The harness tools this configuration needs."""
        return list(self._needed)

    @functools.cached_property
    def _needed(self) -> tuple[str, ...]:
        # Worked out once per configuration (one per model turn), which asks it more than once.
        names = self.skills.tool_names()
        if self.skills.has_scripts and exec_root(self.sandbox) is not None:
            names.append("run_skill_script")
        if self.sandbox is not None:
            names += ["read", "write", "ls"]
        return tuple(names)

    def tools(
        self, offered: Iterable[str] = (), consent: Consent | None = None, reads: ReadConsent | None = None
    ) -> list[Tool]:
        """The harness tools `offered` before plus those needed now, in their fixed order, then the agent's;
        `consent`: what `run_skill_script` asks before a run (see `Scripts`), and an agent's tool that runs code
        while a skill from elsewhere is active (`guarded`); `reads`: what a read of a skill file across origins
        asks (`MountedSkills.approve_read`)."""
        names = {*offered, *self.needed()}
        approve = None if reads is None else functools.partial(self.skills.approve_read, reads)
        files = SandboxFiles(
            self.sandbox,
            self.skills.tree,
            keep_out=self.skills.folders,
            skill_paths=self.skills.skill_paths,
            approve=approve,
        )
        tools = []
        for name in HARNESS_TOOLS:
            if name not in names:
                continue
            if name == "run_skill_script":
                tools.append(Scripts(self.skills, self.sandbox, consent).tool())
            elif name in ("read", "write", "ls"):
                tools.append(files.tool(name))
            else:
                tools.append(self.skills.tool(name, reads))
        return tools + [guarded(tool, self.skills, consent) for tool in self.render.tools]
