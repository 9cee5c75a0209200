"""What a new session of an agent sends first, before the user's message: the system prompt and the tool
definitions, as the harness renders them. `flue-skills prompt` prints it and `flue-skills eval` sends it with each
query, so neither can drift from a real conversation. The session that rendered it is kept in memory, never
prompted or saved: `session.activation_messages(names)` gives what `prompt(..., activate=names)` would put after
the user's message."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from flue_runtime.agents.harness import AgentFunction, Harness, Session
from flue_runtime.models.base import ToolSpec

__all__ = ["FirstTurn", "first_turn"]


@dataclass(frozen=True)
class FirstTurn:
    system: str
    tools: list[ToolSpec]
    session: Session


def first_turn(agent: AgentFunction, state: dict[str, Any] | None = None, disabled: Sequence[str] = ()) -> FirstTurn:
    """`agent`'s first request in a new session with `state`, the `disabled` skills left out."""
    harness = Harness(agent, disabled_skills=disabled)
    session = Session(harness, "first-turn", harness.store, state=state)
    return FirstTurn(session.system_prompt, session.tools, session)
