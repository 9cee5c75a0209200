"""The OpenAI Agents SDK: the skill tools as `FunctionTool`s, and the catalog for the agent's instructions
(`pip install 'flue-skills[openai-agents]'`).

    agent = Agent(name="support", instructions=f"Answer support questions.\\n\\n{catalog(SKILLS)}",
                  tools=skill_tools(SKILLS))

The model sees the harness's catalog, tool definitions and result texts (a failed call's
text starts with `Error:`, as in the harness).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from typing import Any

try:
    import agents  # noqa: F401  (to say which extra is missing)
except ModuleNotFoundError as exc:
    raise ImportError(
        "flue_runtime.integrations.openai_agents needs the OpenAI Agents SDK: pip install 'flue-skills[openai-agents]'"
    ) from exc

from agents import FunctionTool
from agents.tool_context import ToolContext

from flue_runtime.integrations.skillset import Skillset
from flue_runtime.mount.reference import SkillReference

__all__ = ["catalog", "skill_tools"]


def skill_tools(skills: Iterable[SkillReference]) -> list[FunctionTool]:
    """`activate_skill` (and `read_skill_resource` when a skill has support files) as function tools."""
    skillset = Skillset(skills)
    return [
        FunctionTool(
            name=tool.name,
            description=tool.description,
            params_json_schema=tool.parameters,
            on_invoke_tool=functools.partial(_invoke, skillset, tool.name),
            # Strict mode would make optional parameters (offset, limit) required.
            strict_json_schema=False,
        )
        for tool in skillset.tools
    ]


def catalog(skills: Iterable[SkillReference]) -> str:
    """The `## Available Skills` section, to append to the agent's instructions."""
    return Skillset(skills).catalog


async def _invoke(skillset: Skillset, name: str, context: ToolContext[Any], arguments: str) -> str:
    try:
        parsed: object = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        parsed = arguments  # the harness's argument check says what is wrong with it
    return skillset.call(name, parsed).text
