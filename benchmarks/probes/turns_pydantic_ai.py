"""Child process of the turn-overhead benchmark: the same agent in pydantic-ai, around a model that answers instantly.

    python turns_pydantic_ai.py [--sessions N] [--concurrent N] [--history N] [--skills N]

The peer of `turns.py`'s in-memory harness (issue 24 keeps flue's turn overhead at most a third of
pydantic-ai's): a pydantic-ai `Agent` with the same instructions, the same `--skills` skills
(`define_skill`, each with a support file) through `skills_toolset` (the catalog as its
instructions, `activate_skill` and `read_skill_resource`), the same tool of its own, a
`FunctionModel` that activates a skill and then answers, as `turns.py`'s model does. One
conversation is built up to `--history` messages by the agent itself; each of `--sessions`
conversations (a copy of that history, kept in memory as pydantic-ai leaves it to the caller)
gets one prompt, one after another, then `--concurrent` others at once. A turn's overhead: a
prompt's wall time less the time inside the model, over its model calls. Prints what `turns.py`
prints. pydantic-ai keeps no sessions and renders nothing per turn, so it does less than the harness:
no store, no workspace discovery, no announcements.
"""

import argparse
import asyncio
import contextvars
import copy
import json
import sys
import time

from policy_skills import policy_skills
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from flue_runtime.integrations.pydantic_ai import skills_toolset

SESSION: contextvars.ContextVar[str] = contextvars.ContextVar("session")


class InstantModel:
    """Answers at once: a skill activation first, then a final answer. Records when it was called."""

    def __init__(self, skills: list[str]) -> None:
        self.skills = skills
        self.calls: dict[str, list[tuple[float, float]]] = {}
        self.count = 0

    async def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        entered = time.perf_counter()
        self.count += 1
        last = messages[-1].parts[-1]
        if isinstance(last, ToolReturnPart):
            response = ModelResponse(
                parts=[TextPart("Refund issued to the card on file; it shows within five working days.")]
            )
        else:
            name = self.skills[self.count % len(self.skills)]
            response = ModelResponse(parts=[ToolCallPart("activate_skill", {"name": name})])
        self.calls.setdefault(SESSION.get(), []).append((entered, time.perf_counter()))
        return response


def make_agent(skills: int) -> tuple[Agent[None, str], InstantModel]:
    declared = policy_skills(skills)
    model = InstantModel([skill.name for skill in declared])
    support: Agent[None, str] = Agent(
        FunctionModel(model),
        instructions="Answer customer support questions.",
        toolsets=[skills_toolset(declared)],
    )

    @support.tool_plain
    def lookup_order(order_id: str) -> dict[str, str]:
        """Look up an order by its id."""
        return {"order_id": order_id, "status": "delivered"}

    return support, model


async def prompt(
    support: Agent[None, str], session_id: str, history: list[ModelMessage]
) -> tuple[str, float, float, int]:
    SESSION.set(session_id)
    start = time.perf_counter()
    result = await support.run("The replacement is damaged too. Same order, 4417-2209.", message_history=history)
    end = time.perf_counter()
    return session_id, start, end, len(result.all_messages())


def turns(model: InstantModel, runs: list[tuple[str, float, float, int]]) -> list[float]:
    found = []
    for session_id, start, end, _ in runs:
        calls = model.calls[session_id]
        in_model = sum(returned - entered for entered, returned in calls)
        found.append((end - start - in_model) / len(calls) * 1e3)
    return found


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--concurrent", type=int, default=50)
    parser.add_argument("--history", type=int, default=200)
    parser.add_argument("--skills", type=int, default=20)
    args = parser.parse_args()
    support, model = make_agent(args.skills)
    SESSION.set("seed")
    history: list[ModelMessage] = []
    while len(history) < args.history:  # a prompt adds four messages: request, tool call, its return, answer
        history = (
            await support.run(
                "My parcel arrived damaged, order 4417-2209. I would like my money back, please.",
                message_history=history,
            )
        ).all_messages()
    del history[args.history :]
    await prompt(support, "s0", copy.deepcopy(history))  # imports and first-use caches: not a turn's cost
    ids = [f"s{n}" for n in range(1, args.sessions)]
    sequential = [await prompt(support, session_id, copy.deepcopy(history)) for session_id in ids]
    crowd = [f"c{n}" for n in range(args.concurrent)]
    copies = [copy.deepcopy(history) for _ in crowd]
    start = time.perf_counter()
    crowded = await asyncio.gather(*(prompt(support, c, h) for c, h in zip(crowd, copies)))
    crowd_seconds = time.perf_counter() - start
    assert all(count == args.history + 4 for *_, count in sequential), "a prompt added four messages"
    out = {
        "history": args.history,
        "sequential": turns(model, sequential),
        "concurrent": turns(model, list(crowded)),
        "concurrent_seconds": crowd_seconds,
        "concurrent_turns": sum(len(model.calls[c]) for c in crowd),
    }
    json.dump(out, sys.stdout)


asyncio.run(main())
