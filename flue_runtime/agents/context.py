"""`ToolContext`: what a tool may reach of the session that called it; `PromptResult`, what a prompt returns.

A tool asks for it with a parameter annotated `ToolContext` (any name). The harness fills
it in at each call; it never appears in the tool's JSON schema, so the model cannot see
or set it.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from flue_runtime.errors import AgentError
from flue_runtime.models.base import Message

__all__ = ["MAX_NESTED_PROMPTS", "PromptResult", "ToolContext", "set_value"]


#: How deep `ToolContext.prompt` may nest (a tool's prompt whose model calls a tool that prompts
#: again...): past it the call fails, so a model that keeps delegating cannot recurse without end.
MAX_NESTED_PROMPTS = 4
_nesting: ContextVar[int] = ContextVar("flue_prompt_nesting", default=0)


@dataclass(frozen=True)
class PromptResult:
    """The model's final answer to one prompt, and the messages the prompt added."""

    text: str
    messages: list[Message]
    session_id: str


class ToolContext:
    """The running session, as a tool sees it: its id, its state, and one-off prompts.

    `set_state` changes the state the running prompt works with: the agent is rendered
    with it before the next model turn (a skill it unlocks is announced there), and it is
    saved with the prompt's turn. `prompt` runs a one-off prompt with the agent as
    rendered now (same instructions, catalog with workspace skills, and tools) in a fresh
    conversation that is not saved.
    """

    def __init__(
        self, session_id: str, state: dict[str, Any], prompt: Callable[[str], Awaitable[PromptResult]]
    ) -> None:
        self.session_id = session_id
        self._state = state
        self._prompt = prompt

    @property
    def state(self) -> Mapping[str, Any]:
        """The session's `use_state` values as they are now (read-only)."""
        return MappingProxyType(self._state)

    def set_state(self, key: str, value: Any) -> None:
        """Change a persisted `use_state` value; the agent renders with it from the next model turn."""
        set_value(self._state, key, value)

    async def prompt(self, text: str) -> PromptResult:
        """`harness.prompt(text)` with the session's current state: a one-off conversation.

        Raises `AgentError` when prompts are already nested `MAX_NESTED_PROMPTS` deep."""
        depth = _nesting.get()
        if depth >= MAX_NESTED_PROMPTS:
            raise AgentError(
                f"ToolContext.prompt is nested {depth} deep, the limit: each one-off prompt ran a tool that "
                "prompted again; answer from what you have instead of delegating further"
            )
        token = _nesting.set(depth + 1)
        try:
            return await self._prompt(text)
        finally:
            _nesting.reset(token)

    def __repr__(self) -> str:
        return f"ToolContext(session_id={self.session_id!r})"


def set_value(state: dict[str, Any], key: str, value: Any) -> None:
    """Put `value` at `key`, refusing what the store could not keep (state is saved as JSON)."""
    if not isinstance(key, str):
        raise AgentError(f"a state key must be a string, not {type(key).__name__}")
    try:
        json.dumps(value)
    except (TypeError, ValueError) as exc:
        raise AgentError(f"state {key!r}: the value must be JSON data (it is saved as JSON): {exc}") from exc
    state[key] = value
