"""Child process of the turn-overhead benchmark: what the harness costs around a model that answers instantly.

    python turns.py STORE WORKSPACE [--sessions N] [--concurrent N] [--history N] [--skills N] [--dev SRC]

STORE is `memory`, a SQLite file path, or a `postgresql://` URL (an empty database).
WORKSPACE is a folder whose `.agents/skills/` holds workspace skills (the agent's sandbox).

The agent declares `--skills` skills (each with a support file), a tool of its own and a
state value, and works in a `LocalSandbox` over WORKSPACE: every harness tool is offered.
The skills are `define_skill`s, or with `--dev SRC` the `skill()` references of the package
`benchdev` in the source tree SRC (`generate.py dev`): read from disk in dev mode, so every
render and activation vets each folder again (through the verdicts kept while it is unchanged).
One session is built up to `--history` messages (prompts of four messages each: the
question, a tool call, its result, the answer); its record is then stored under
`--sessions` session ids. Each of those sessions gets one prompt (sequentially), and
after them `--concurrent` other sessions get one prompt each, all at once. A prompt is two
model turns: the model activates a skill, then answers.

A turn's overhead is a prompt's wall time, less the time spent inside the model (nil),
divided by its model turns (two): one value per prompt, so the first turn's load and the
last turn's save are shared. The model records the calls of the session whose prompt is
running (a context variable), so concurrent prompts are told apart. Prints one JSON object:
each prompt's overhead per turn (ms), sequential and concurrent, and the concurrent batch's wall time.
"""

import argparse
import asyncio
import contextvars
import importlib
import json
import sys
import time
from pathlib import Path

from policy_skills import policy_skills

from flue_runtime import (
    Harness,
    LocalSandbox,
    SkillReference,
    agent,
    use_instruction,
    use_model,
    use_skill,
    use_state,
    use_tool,
)
from flue_runtime.agents.stores.contract import SessionRecord
from flue_runtime.models import ModelRequest, ModelResponse, ToolCall

#: The session whose prompt is running in this task: the model files its timestamps under it.
SESSION: contextvars.ContextVar[str] = contextvars.ContextVar("session")


class InstantModel:
    """Answers at once: a skill activation first, then a final answer. Records when it was called."""

    def __init__(self, skills: list[str]) -> None:
        self.skills = skills
        self.calls: dict[str, list[tuple[float, float]]] = {}  # session -> (entered, returned) per call
        self.count = 0

    async def complete(self, request: ModelRequest) -> ModelResponse:
        entered = time.perf_counter()
        self.count += 1
        last = request.messages[-1]
        if last["role"] == "user":
            response = ModelResponse(
                tool_calls=(ToolCall("activate_skill", {"name": self.skills[self.count % len(self.skills)]}),)
            )
        else:
            response = ModelResponse(text="Refund issued to the card on file; it shows within five working days.")
        self.calls.setdefault(SESSION.get(), []).append((entered, time.perf_counter()))
        return response


def make_harness(store: str | None, workspace: Path, skills: int, dev: Path | None) -> tuple[Harness, InstantModel]:
    declared = dev_skills(dev) if dev is not None else policy_skills(skills)
    model = InstantModel([skill.name for skill in declared])

    def lookup_order(order_id: str) -> dict[str, str]:
        """Look up an order by its id."""
        return {"order_id": order_id, "status": "delivered"}

    @agent
    def support() -> str:
        use_model(model)
        for skill in declared:
            use_skill(skill)
        use_tool(lookup_order)
        if use_state("vip", False):
            use_instruction("The customer is a VIP: offer express handling.")
        return "Answer customer support questions."

    return Harness(support, sandbox=LocalSandbox(workspace), store=store), model


def dev_skills(src: Path) -> list[SkillReference]:
    """The package's `skill()` references, resolved from the source tree (no bundle: dev mode)."""
    sys.path.insert(0, str(src))
    references: list[SkillReference] = importlib.import_module("benchdev.agent").SKILLS
    assert all(ref.origin.endswith("(from disk)") for ref in references)
    return references


async def seed_record(workspace: Path, skills: int, history: int, dev: Path | None) -> SessionRecord:
    """A session of `history` messages, built by the harness itself (in memory)."""
    harness, _ = make_harness(None, workspace, skills, dev)
    session = harness.session("seed")
    SESSION.set("seed")
    while len(session.messages) < history:
        await session.prompt("My parcel arrived damaged, order 4417-2209. I would like my money back, please.")
    record = harness.store.load("seed")
    assert record is not None
    del record.messages[history:]
    return record


async def prompt(harness: Harness, session_id: str) -> tuple[str, float, float]:
    SESSION.set(session_id)
    start = time.perf_counter()
    await harness.session(session_id).prompt("The replacement is damaged too. Same order, 4417-2209.")
    return session_id, start, time.perf_counter()


def turns(model: InstantModel, runs: list[tuple[str, float, float]]) -> list[float]:
    """Each prompt's overhead per model turn, in ms: its wall time less the model's, over its model calls."""
    found = []
    for session_id, start, end in runs:
        calls = model.calls[session_id]
        in_model = sum(returned - entered for entered, returned in calls)
        found.append((end - start - in_model) / len(calls) * 1e3)
    return found


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("store")
    parser.add_argument("workspace", type=Path)
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--concurrent", type=int, default=50)
    parser.add_argument("--history", type=int, default=200)
    parser.add_argument("--skills", type=int, default=20)
    parser.add_argument("--dev", type=Path)
    args = parser.parse_args()
    record = await seed_record(args.workspace, args.skills, args.history, args.dev)
    store = None if args.store == "memory" else args.store
    harness, model = make_harness(store, args.workspace, args.skills, args.dev)
    ids = [f"s{n}" for n in range(args.sessions)]
    crowd = [f"c{n}" for n in range(args.concurrent)]
    for session_id in [*ids, *crowd]:
        copy = record.copy()
        copy.version = 0
        harness.store.save(session_id, copy)
    await prompt(harness, "s0")  # imports and first-use caches: not a turn's cost
    sequential = [await prompt(harness, session_id) for session_id in ids[1:]]
    start = time.perf_counter()
    crowded = await asyncio.gather(*(prompt(harness, session_id) for session_id in crowd))
    crowd_seconds = time.perf_counter() - start
    stored = harness.store.load(ids[-1])
    assert stored is not None and len(stored.messages) == args.history + 4, "a prompt added four messages"
    out = {
        "history": args.history,
        "sequential": turns(model, sequential),
        "concurrent": turns(model, list(crowded)),
        "concurrent_seconds": crowd_seconds,
        "concurrent_turns": sum(len(model.calls[session_id]) for session_id in crowd),
    }
    close = getattr(harness.store, "close", None)
    if close is not None:
        close()
    json.dump(out, sys.stdout)


asyncio.run(main())
