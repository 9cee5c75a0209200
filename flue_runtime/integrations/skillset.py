"""A fixed set of skills as the harness offers them to a model, for hosts other than the harness.

MCP and every framework adapter go through `Skillset`: the catalog text, the skill tools'
definitions and their results all come from the harness's own functions
(`flue_runtime.agents.skill_tools.MountedSkills`), so a model sees the same
texts whichever host runs it. This module is the one seam between the integrations and
the agent layer.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass

from flue_runtime.agents.skill_tools import MountedSkills
from flue_runtime.agents.tools import Tool
from flue_runtime.errors import AgentError, SkillWarning, ToolFailure
from flue_runtime.mount.origins import per_origin
from flue_runtime.mount.reference import SkillReference
from flue_runtime.mount.vfs import identity_of

__all__ = ["Skillset", "ToolResult"]


@dataclass(frozen=True)
class ToolResult:
    """What a tool call gives the model: the text, and whether it reports a failure."""

    text: str
    is_error: bool = False


class Skillset:
    """Skills mounted once, outside any render: the catalog, the skill tools and their results.

    Two skills of one origin under one name are refused; a name skills of different origins share resolves per
    origin, as in the harness (`mount.origins.per_origin`, with a `SkillWarning`): `skills` holds them as named."""

    def __init__(self, skills: Iterable[SkillReference]) -> None:
        given = tuple(skills)
        seen: dict[tuple[str | None, str], SkillReference] = {}
        for skill in given:
            if not isinstance(skill, SkillReference):
                raise AgentError(
                    f"skills must be SkillReference objects (from skill(), define_skill()), not {type(skill).__name__}"
                )
            key = (identity_of(skill), skill.name)
            if key in seen:
                raise AgentError(
                    f"two skills are named {skill.name!r}: {seen[key].origin} and {skill.origin}; "
                    "pass each name once (a host addresses a skill by its name)"
                )
            seen[key] = skill
        named, labelled = per_origin(given)
        if labelled is not None:
            warnings.warn(labelled, SkillWarning, stacklevel=2)
        self.skills: tuple[SkillReference, ...] = tuple(named)
        self._mounted = MountedSkills(self.skills)  # the harness's catalog budget: find_skills past it
        self.tools: tuple[Tool, ...] = tuple(self._mounted.tool(name) for name in self._mounted.tool_names())
        self._by_name = {tool.name: tool for tool in self.tools}

    @property
    def catalog(self) -> str:
        """The `## Available Skills` section the harness puts in its system prompt ('' without skills)."""
        return self._mounted.catalog()

    def call(self, name: str, arguments: object) -> ToolResult:
        """Call skill tool `name` (one of `tools`) as the harness does: arguments checked, a failure told as an error result."""
        tool = self._by_name[name]
        try:
            text = tool.function(**tool.check_arguments(arguments))  # the skill tools are sync and return text
        except ToolFailure as exc:
            return ToolResult(f"Error: {exc}", True)
        return ToolResult(str(text))
