"""A model that answers from a script: for tests, examples and offline runs."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence

from flue_runtime.errors import ModelError
from flue_runtime.models.base import ModelRequest, ModelResponse, ToolCall

__all__ = ["ScriptedModel", "ScriptedReply"]


ScriptedReply = str | Sequence[ToolCall] | ModelResponse | Callable[[ModelRequest], ModelResponse]


class ScriptedModel:
    """Plays `turns` in order, one per request, and records every request it was sent.

    A turn is a final answer (`str`), a list of `ToolCall`s, a `ModelResponse`, or a
    function of the request returning a `ModelResponse`.
    """

    def __init__(self, turns: Sequence[ScriptedReply]) -> None:
        self.turns = list(turns)
        self.requests: list[ModelRequest] = []

    async def complete(self, request: ModelRequest) -> ModelResponse:
        snapshot = ModelRequest(request.system, copy.deepcopy(request.messages), copy.deepcopy(request.tools))
        self.requests.append(snapshot)
        index = len(self.requests) - 1
        if index >= len(self.turns):
            raise ModelError(
                f"ScriptedModel has {len(self.turns)} turn(s) but was sent request {index + 1}; add a turn to the script"
            )
        turn = self.turns[index]
        if isinstance(turn, str):
            return ModelResponse(text=turn)
        if isinstance(turn, ModelResponse):
            return turn
        if callable(turn):
            return turn(snapshot)
        return ModelResponse(tool_calls=tuple(turn))
