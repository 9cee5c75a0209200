"""Agents and hooks: an agent is a function that calls `use_*` hooks and returns its instructions.

The harness renders the agent (calls it) inside a render context before every model
turn; the hooks record what the agent mounts. Custom hooks are plain functions calling hooks.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar, cast

from flue_runtime.agents.tools import RESERVED, Tool, ToolFunction, tool_from_function
from flue_runtime.errors import AgentError
from flue_runtime.models.base import Model
from flue_runtime.mount.define import define_skill
from flue_runtime.mount.reference import SkillReference
from flue_runtime.mount.vfs import identity_of

__all__ = [
    "Render",
    "agent",
    "render",
    "use_instruction",
    "use_model",
    "use_sandbox",
    "use_skill",
    "use_state",
    "use_tool",
]


F = TypeVar("F", bound=Callable[..., Any])


@dataclass
class Render:
    """What one call of the agent function mounted."""

    state: dict[str, Any]
    instructions: str = ""
    model: Model | str | None = None
    sandbox: Any = None
    skills: list[SkillReference] = field(default_factory=list)
    #: `skills` by origin (`identity_of`: None for the application's own) and name: a render checks each name once
    #: per origin, not against every skill before it. Names shared across origins are resolved after the render
    #: (`mount.origins.per_origin`).
    skill_names: dict[tuple[str | None, str], SkillReference] = field(default_factory=dict)
    tools: list[Tool] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)


_current: contextvars.ContextVar[Render | None] = contextvars.ContextVar("flue_render", default=None)


def agent(function: F) -> F:
    """Mark `function` as an agent: the harness calls it to learn its instructions and mounts."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if _current.get() is None:
            raise AgentError(
                f"agent {function.__name__!r} was called directly; pass it to Harness(...) and prompt a session instead"
            )
        return function(*args, **kwargs)

    return cast(F, wrapper)


def render(agent_function: Callable[[], object], state: dict[str, Any]) -> Render:
    """Call the agent inside a fresh render context and return what it mounted."""
    result = Render(state=dict(state))
    token = _current.set(result)
    try:
        returned = agent_function()
    finally:
        _current.reset(token)
    if returned is None:
        returned = ""
    if not isinstance(returned, str):
        name = getattr(agent_function, "__name__", "agent")
        raise AgentError(f"agent {name!r} must return its instructions as a string, not {type(returned).__name__}")
    result.instructions = returned
    return result


def _render(hook: str) -> Render:
    current = _current.get()
    if current is None:
        raise AgentError(
            f"{hook}() was called outside an agent render; call hooks only inside a function "
            "decorated with @agent (or a custom hook it calls) while a Harness renders it"
        )
    return current


def use_model(model: Model | str) -> None:
    """The model this agent talks to: a model object or 'provider/model-id'."""
    _render("use_model").model = model


def use_sandbox(sandbox: Any) -> None:
    """The sandbox the file tools and workspace skills use (overrides Harness(sandbox=...))."""
    _render("use_sandbox").sandbox = sandbox


def use_instruction(text: str) -> None:
    """Extra instructions, placed after the agent's own in the system prompt."""
    if not isinstance(text, str):
        raise AgentError(f"use_instruction() takes a string, not {type(text).__name__}")
    _render("use_instruction").texts.append(text)


def use_state(key: str, default: Any = None) -> Any:
    """The session's persisted value for `key` (set with `session.set_state`), or `default`."""
    return _render("use_state").state.get(key, default)


def use_skill(skill: SkillReference | Mapping[str, Any], *, name: str | None = None) -> SkillReference:
    """Mount a skill: its catalog line goes into the prompt, its files under /.flue/skills/<name>/.

    `skill` is a `SkillReference` (from `skill()`, `define_skill()`, `load_skill()` or `skills_of()`), or a
    mapping with `define_skill`'s keys, held to the same rules. What is mounted is the skill as it is now
    (`SkillReference.current()`): a folder read from disk in dev mode is vetted again at every
    render, and one that no longer passes raises its `SkillError` here, as at import.

    `name`: mount it under this name instead of its own (`SkillReference.renamed`): checked by the skill
    name rule; the instructions and files are unchanged.

    Two skills of one origin under one name in a render raise (two of the application's own, or one server's
    skill twice). A name skills of different origins share resolves per origin (`mount.origins.per_origin`): the
    application's own skill keeps it, a remote one is mounted under its server's label (`refunds-2d00647f`),
    with a `SkillWarning`.
    """
    current = _render("use_skill")
    if isinstance(skill, Mapping):
        skill = _defined(skill)
    if not isinstance(skill, SkillReference):
        hint = (
            "; a skill source is vetted and mounted by flue_runtime.load_skill(source) first"
            if all(hasattr(skill, member) for member in ("listing", "read", "describe"))
            else ""
        )
        raise AgentError(
            "use_skill() takes a SkillReference (from skill(), define_skill(), load_skill()) or a mapping of "
            f"define_skill's arguments, not {type(skill).__name__}{hint}"
        )
    skill = skill.current()
    if name is not None:
        skill = skill.renamed(name)
    key = (identity_of(skill), skill.name)
    mounted = current.skill_names.get(key)
    if mounted is not None:
        same = "the same skill" if mounted == skill else f"another skill with that name ({mounted.origin})"
        raise AgentError(
            f"skill {skill.name!r} is mounted twice in one render: {same} was mounted before. "
            "Mount it once: call use_skill for it in a single place (a shared custom hook called once), "
            "or mount one of the two under another name: use_skill(ref, name=...)"
        )
    current.skills.append(skill)
    current.skill_names[key] = skill
    return skill


_DEFINE_KEYS = tuple(inspect.signature(define_skill).parameters)


def _defined(definition: Mapping[Any, Any]) -> SkillReference:
    """`define_skill(**definition)`, with unknown keys named (its own errors say what else is wrong)."""
    unknown = [key for key in definition if key not in _DEFINE_KEYS]
    if unknown:
        raise AgentError(
            f"use_skill() got a mapping with unknown key{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(repr(k) for k in unknown)}; its keys are define_skill's: {', '.join(_DEFINE_KEYS)}"
        )
    missing = [key for key in ("name", "description", "instructions") if key not in definition]
    if missing:
        raise AgentError(
            f"use_skill() got a mapping without {', '.join(repr(k) for k in missing)}; define_skill needs them"
        )
    return define_skill(**definition)


def use_tool(
    tool: ToolFunction | Tool, *, name: str | None = None, description: str | None = None, runs_code: bool = False
) -> Tool:
    """Offer a typed function (sync or async) to the model as a tool.

    `runs_code=True` says the tool runs code (a shell, an interpreter): while a skill from elsewhere (a remote
    MCP server's, any `load_skill` source's) is active in the conversation, each call is asked of the harness's
    script approval policy (`Harness(approve_scripts=...)`), naming that skill and its server, as its scripts are;
    the default policy refuses it then.
    """
    current = _render("use_tool")
    if not isinstance(runs_code, bool):
        raise AgentError(f"use_tool(runs_code=...) takes True or False, not {runs_code!r}")
    made = tool_from_function(tool, name, description)
    if runs_code:
        made = replace(made, runs_code=True)
    if made.name in RESERVED:
        raise AgentError(
            f"tool name {made.name!r} is reserved by the harness ({', '.join(sorted(RESERVED))}); rename the tool"
        )
    if any(t.name == made.name for t in current.tools):
        raise AgentError(f"tool {made.name!r} is offered twice in one render; offer it once")
    current.tools.append(made)
    return made
