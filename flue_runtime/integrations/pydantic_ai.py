"""pydantic-ai: the skill tools as a toolset, with the catalog as its instructions (`pip install 'flue-skills[pydantic-ai]'`).

    agent = Agent(model, toolsets=[skills_toolset([REFUNDS, TRIAGE])])

The model sees the harness's catalog, tool definitions and result texts; a failed call
(an unknown file, a traversal) comes back as pydantic-ai's failed tool result with the
harness's text, without spending the tool's retries.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

try:
    import pydantic_ai  # noqa: F401  (to say which extra is missing)
except ModuleNotFoundError as exc:
    raise ImportError(
        "flue_runtime.integrations.pydantic_ai needs pydantic-ai: pip install 'flue-skills[pydantic-ai]'"
    ) from exc

from pydantic_ai import Tool
from pydantic_ai.exceptions import ToolFailed
from pydantic_ai.toolsets import FunctionToolset

from flue_runtime.integrations.skillset import Skillset
from flue_runtime.mount.reference import SkillReference

__all__ = ["skills_toolset"]


def skills_toolset(skills: Iterable[SkillReference]) -> FunctionToolset[Any]:
    """`activate_skill` (and `read_skill_resource` when a skill has support files), instructed by the catalog."""
    skillset = Skillset(skills)
    tools = [
        Tool.from_schema(
            functools.partial(_call, skillset, tool.name),
            name=tool.name,
            description=tool.description,
            json_schema=tool.parameters,
        )
        for tool in skillset.tools
    ]
    return FunctionToolset(tools, instructions=skillset.catalog or None)


def _call(skillset: Skillset, tool: str, /, **arguments: Any) -> str:
    result = skillset.call(tool, arguments)
    if result.is_error:
        raise ToolFailed(result.text)
    return result.text
