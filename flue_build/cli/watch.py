"""The harness watched for `flue-skills run`: tool calls and their results printed as they pass.

Seen where a provider sees them, through the model interface: each call when the model
asks for it, its result when the next request carries it back, so nothing in the harness
needs to know it is watched. Every line goes through `format.diagnostics.printable`: a tool's result, a model's
text or a skill's instructions never reach the terminal with a control character or escape sequence in them. An activation the application made (`--skill`) is shown with the
first request that carries it, its call marked `(--skill)`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TextIO

from flue_runtime.agents.approval import ApprovalPolicy
from flue_runtime.agents.harness import AgentFunction, Harness
from flue_runtime.format.diagnostics import cut, printable_lines
from flue_runtime.models.base import Message, Model, ModelRequest, ModelResponse

__all__ = ["Trace", "Watched", "WatchedHarness"]


#: How much of a tool's arguments and of its result a line shows.
SHOWN = 100


class WatchedHarness(Harness):
    """The harness with every model it talks to watched by a `Trace`, and `model` (when given) chosen over the agent's."""

    def __init__(
        self,
        agent: AgentFunction,
        *,
        store: str | None,
        model: str | None,
        trace: Trace,
        disabled_skills: Iterable[str] = (),
        approve_scripts: ApprovalPolicy | None = None,
    ) -> None:
        super().__init__(
            agent, store=store, model=model, disabled_skills=disabled_skills, approve_scripts=approve_scripts
        )
        self._override = model
        self._trace = trace

    def resolved_model(self, chosen: Model | str) -> Model:
        return Watched(super().resolved_model(self._override or chosen), self._trace)


class Watched:
    """A model whose requests and answers pass a `Trace` on their way."""

    def __init__(self, model: Model, trace: Trace) -> None:
        self.model = model
        self.trace = trace

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.trace.results(request)
        response = await self.model.complete(request)
        self.trace.calls(response)
        return response


class Trace:
    """Prints tool calls when the model makes them, and their results when they go back to it."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.waiting = False  # calls were shown; their results are still to come
        self.explicit: set[str] = set()  # the ids of the explicit activations shown

    def calls(self, response: ModelResponse) -> None:
        if not response.tool_calls:
            return
        if response.text.strip():
            self._line(response.text.strip())
        for call in response.tool_calls:
            self._line(f"  -> {call.name} {_short(json.dumps(call.arguments, ensure_ascii=False))}")
        self.waiting = True

    def results(self, request: ModelRequest) -> None:
        """The results of the calls shown last: the tool messages after the request's last assistant message.

        A request without them (a one-off prompt a tool started) leaves them to come later.
        """
        self._explicit(request)
        if not self.waiting:
            return
        last = max((i for i, m in enumerate(request.messages) if m["role"] == "assistant"), default=-1)
        results = [m for m in request.messages[last + 1 :] if m["role"] == "tool"]
        for message in results:
            self._result(message)
        self.waiting = self.waiting and not results

    def _explicit(self, request: ModelRequest) -> None:
        """The explicit activations after the prompt's text (those of earlier prompts were shown, or resumed)."""
        prompt = max((i for i, m in enumerate(request.messages) if m["role"] == "user"), default=-1)
        for message in request.messages[prompt + 1 :]:
            if not message.get("explicit"):
                continue
            for call in message.get("tool_calls") or ():
                if call["id"] not in self.explicit:
                    self._line(
                        f"  -> {call['name']} {_short(json.dumps(call['arguments'], ensure_ascii=False))} (--skill)"
                    )
            if message["role"] == "tool" and message["tool_call_id"] not in self.explicit:
                self.explicit.add(message["tool_call_id"])
                self._result(message)

    def _result(self, message: Message) -> None:
        outcome = "failed" if message.get("is_error") else "returned"
        content = str(message["content"])
        size = f" ({len(content):,} characters)" if len(content) > SHOWN else ""
        self._line(f"  <- {message['name']} {outcome}: {_short(content)}{size}")

    def _line(self, text: str) -> None:
        """A line of the trace: what the model, a skill or a tool wrote, escaped (`printable`), never raw."""
        print(printable_lines(text), file=self.out, flush=True)


def _short(text: str) -> str:
    """`text` on one line, cut to `SHOWN` characters."""
    return cut(" ".join(text.split()), SHOWN)
