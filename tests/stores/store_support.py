"""Agents, models and checks shared by the store tests and the worker processes they start.

The model answers after a pause, as a provider does, so sessions' turns, tool calls and writes
interleave on the event loop. Worker processes import this module (the tests folder is put on
their path) and open the store by the location a user would give `Harness(store=...)`.
"""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from flue_runtime import Harness, MemorySandbox, agent, define_skill, use_model, use_skill, use_state
from flue_runtime.agents.stores.contract import Store
from flue_runtime.errors import SessionConflictError
from flue_runtime.models import ModelRequest, ModelResponse, ScriptedModel, ToolCall

HERE = Path(__file__).resolve().parent
SESSIONS = 50
TURNS = 3

REFUNDS = define_skill(
    name="refunds",
    description="Handle refunds.",
    instructions="# Refunds\nRead policy.md first.\n",
    files={"policy.md": "REFUNDS-POLICY: 30 days.\n", "forms/claim.md": "REFUNDS-CLAIM form\n"},
)
VIP = define_skill(
    name="vip",
    description="VIP care.",
    instructions="# VIP\nBe generous.\n",
    files={"perks.md": "VIP-PERKS: lounge.\n"},
)


class PacedModel:
    """A ScriptedModel that takes a moment to answer, like a real provider: turns interleave."""

    def __init__(self, turns: list[Any], seed: int) -> None:
        self.script = ScriptedModel(turns)
        self.random = random.Random(seed)

    @property
    def requests(self) -> list[ModelRequest]:
        return self.script.requests

    async def complete(self, request: ModelRequest) -> ModelResponse:
        await asyncio.sleep(self.random.uniform(0, 0.01))
        return await self.script.complete(request)


class EchoModel:
    """Answers every prompt with "ack: <the prompt>" after a pause: any number of turns, retries included."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        await asyncio.sleep(self.random.uniform(0, 0.01))
        return ModelResponse(f"ack: {request.messages[-1]['content']}")


class GatedModel:
    """Answers "ack: <prompt>", but only once `gate` is open: a turn that is still running."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.asked = asyncio.Event()

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.asked.set()
        await self.gate.wait()
        return ModelResponse(f"ack: {request.messages[-1]['content']}")


def echo_harness(store: Any, model: Any) -> Harness:
    @agent
    def support() -> str:
        use_model(model)
        return "Answer support questions."

    return Harness(support, store=store)


def expected_skill(index: int) -> tuple[str, str, str]:
    """The skill session `index` mounts and reads: (name, file, the file's marker)."""
    return ("vip", "perks.md", "VIP-PERKS") if index % 2 else ("refunds", "policy.md", "REFUNDS-POLICY")


def script(index: int, count: int = TURNS) -> list[Any]:
    skill, file, _ = expected_skill(index)
    turns: list[Any] = []
    for turn in range(count):
        turns.append(
            [
                ToolCall("activate_skill", {"name": skill}),
                ToolCall("read_skill_resource", {"path": f"/.flue/skills/{skill}/{file}"}),
            ]
        )
        turns.append(f"answer {index}.{turn}")
    return turns


def make_harness(store: Store | str, models: dict[int, Any], default: Any = None) -> Harness:
    """Session `s<n>` talks to `models[n]` (n in its state); a session without n to `default`."""

    @agent
    def support() -> str:
        n = use_state("n")  # set before the first prompt; the first render (set_state's) has no state yet
        use_model(models[n] if n in models else default or ScriptedModel([]))
        use_skill(REFUNDS)
        if use_state("vip", False):
            use_skill(VIP)
        return "Answer support questions."

    return Harness(support, store=store, sandbox=MemorySandbox())


async def run_sessions(harness: Harness, ids: list[int], turn: int) -> list[str]:
    """One prompt in every session at once; the answers."""
    results = await asyncio.gather(*(harness.session(f"s{i}").prompt(f"question {i}.{turn}") for i in ids))
    return [r.text for r in results]


async def prompt_until_saved(harness: Harness, session_id: str, text: str, attempts: int = 100) -> int:
    """What README tells a worker to do on `SessionConflictError`: prompt again (on fresh state).
    Returns how many conflicts it took."""
    for conflicts in range(attempts):
        try:
            await harness.session(session_id).prompt(text)
            return conflicts
        except SessionConflictError:
            await asyncio.sleep(random.uniform(0, 0.01))
    raise AssertionError(f"{session_id}: {text!r} still conflicted after {attempts} attempts")


def start_sessions(harness: Harness, ids: list[int]) -> None:
    for i in ids:
        session = harness.session(f"s{i}")
        session.set_state("n", i)
        session.set_state("vip", i % 2 == 1)


READ_BACK = """
import json, sys
from flue_runtime.agents.stores import open_store
store = open_store(sys.argv[1])
print(json.dumps({i: store.load(i).__dict__ for i in store.session_ids()}))
"""


def read_back(location: str) -> dict[str, dict[str, Any]]:
    """Every session as a new process finds it in the store."""
    proc = subprocess.run([sys.executable, "-c", READ_BACK, location], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    found: dict[str, dict[str, Any]] = json.loads(proc.stdout)
    return found


def assert_conversation(index: int, record: dict[str, Any], turns: int) -> None:
    """Exactly this session's turns, in order, each with its own skill's text and nothing else's.

    The state was set before the first question: a VIP session's system prompt lists `vip` from the
    start (the conversation starts at the first prompt), so nothing is announced."""
    skill, _, marker = expected_skill(index)
    other = "REFUNDS-POLICY" if marker == "VIP-PERKS" else "VIP-PERKS"
    messages = list(record["messages"])
    if turns:
        assert ("- **vip** — VIP care." in record["system_prompt"]) == (index % 2 == 1)
    assert not any(m.get("catalog_update") for m in messages)
    roles = [m["role"] for m in messages]
    assert roles == ["user", "assistant", "tool", "tool", "assistant"] * turns, roles
    for turn in range(turns):
        user, call, activation, resource, answer = messages[turn * 5 : turn * 5 + 5]
        assert user["content"] == f"question {index}.{turn}"
        assert [c["name"] for c in call["tool_calls"]] == ["activate_skill", "read_skill_resource"]
        assert f'<skill name="{skill}">' in activation["content"] and not activation["is_error"]
        assert marker in resource["content"] and other not in resource["content"]
        assert answer["content"] == f"answer {index}.{turn}"
    assert record["state"] == {"n": index, "vip": index % 2 == 1}
    assert record["announced"] == (
        [["refunds", "Handle refunds."], ["vip", "VIP care."]] if index % 2 else [["refunds", "Handle refunds."]]
    )


def assert_whole_turns(messages: list[dict[str, Any]]) -> list[str]:
    """An echo session's prompts, in the order they landed; every one answered right after it."""
    assert len(messages) % 2 == 0, messages
    prompts = []
    for user, answer in zip(messages[::2], messages[1::2]):
        assert user["role"] == "user" and answer == {"role": "assistant", "content": f"ack: {user['content']}"}
        prompts.append(user["content"])
    return prompts


WORKER = """
import asyncio, sys
sys.path.insert(0, {here!r})
from store_support import EchoModel, PacedModel, make_harness, prompt_until_saved, run_sessions, script, start_sessions
location, name, first, count, turns = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
ids = list(range(first, first + count))
models = {{i: PacedModel(script(i, turns), seed=i) for i in ids}}
harness = make_harness(location, models, default=EchoModel(seed=first))
start_sessions(harness, ids)

async def round(turn):
    # Its own sessions, and one prompt in the session every worker shares.
    shared = prompt_until_saved(harness, "shared", f"{{name}}.{{turn}}")
    answers, conflicts = await asyncio.gather(run_sessions(harness, ids, turn), shared)
    assert answers == [f"answer {{i}}.{{turn}}" for i in ids], answers
    return conflicts

for turn in range(turns):
    conflicts = asyncio.run(round(turn))
    print("turn", turn, conflicts, flush=True)
"""


def worker(location: str, name: str, first: int, count: int, turns: int) -> subprocess.Popen[str]:
    """A worker process: sessions s<first>..s<first+count-1> and the shared session, `turns` rounds."""
    source = WORKER.format(here=str(HERE))
    return subprocess.Popen(
        [sys.executable, "-c", source, location, name, str(first), str(count), str(turns)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
