"""LangChain: the skill tools as `StructuredTool`s, and the catalog for the system prompt
(`pip install 'flue-skills[langchain]'`).

    agent = create_agent(model, tools=skill_tools(SKILLS), system_prompt=catalog(SKILLS))

The model sees the harness's catalog, tool definitions and result texts; a failed call
comes back as a `ToolMessage` with `status="error"` and the harness's text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

try:
    import langchain_core  # noqa: F401  (to say which extra is missing)
except ModuleNotFoundError as exc:
    raise ImportError(
        "flue_runtime.integrations.langchain needs langchain-core: pip install 'flue-skills[langchain]'"
    ) from exc

from langchain_core.tools import StructuredTool, ToolException

from flue_runtime.integrations.skillset import Skillset
from flue_runtime.mount.reference import SkillReference

__all__ = ["catalog", "skill_tools"]


def skill_tools(skills: Iterable[SkillReference]) -> list[StructuredTool]:
    """`activate_skill` (and `read_skill_resource` when a skill has support files) as LangChain tools."""
    skillset = Skillset(skills)
    return [
        StructuredTool(
            name=tool.name,
            description=tool.description,
            args_schema=tool.parameters,
            func=_caller(skillset, tool.name),
            handle_tool_error=_error_text,
        )
        for tool in skillset.tools
    ]


def catalog(skills: Iterable[SkillReference]) -> str:
    """The `## Available Skills` section, for the agent's system prompt."""
    return Skillset(skills).catalog


def _caller(skillset: Skillset, tool: str) -> Callable[..., str]:
    """A plain function (LangGraph reads its type hints) calling skill tool `tool`."""

    def call(**arguments: Any) -> str:
        result = skillset.call(tool, arguments)
        if result.is_error:
            raise ToolException(result.text)
        return result.text

    return call


def _error_text(error: ToolException) -> str:
    return str(error)
