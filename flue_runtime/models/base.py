"""What flows between the agent loop and a model."""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = ["Message", "Model", "ModelRequest", "ModelResponse", "ToolCall", "ToolSpec", "Usage"]


Message = dict[str, Any]
ToolSpec = dict[str, Any]

_ids = itertools.count(1)


@dataclass(frozen=True)
class ToolCall:
    """The model asks for one tool with JSON arguments; `id` pairs the call with its result."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str = ""

    def with_id(self) -> ToolCall:
        return self if self.id else ToolCall(self.name, self.arguments, f"call_{next(_ids)}")

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "arguments": copy.deepcopy(self.arguments)}


@dataclass(frozen=True)
class ModelRequest:
    """One request: what a real provider would have received."""

    system: str
    messages: list[Message]
    tools: list[ToolSpec]


@dataclass(frozen=True)
class Usage:
    """The tokens a provider says one request took: read (the prompt, cached parts included) and written."""

    input_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True)
class ModelResponse:
    """One answer: text, tool calls, or both. No tool calls means the turn is over.

    `usage`: the tokens the provider reports for the request (None when it reports none, as `ScriptedModel`)."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage | None = None


class Model(Protocol):
    """Anything that turns a request into a response."""

    async def complete(self, request: ModelRequest) -> ModelResponse: ...
