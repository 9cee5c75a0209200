"""The harness: renders an agent, keeps sessions, and runs the loop of model turns and tool calls.

At session start the system prompt is fixed (instructions, `use_instruction` texts, the
skill catalog) and stays byte-identical for the whole conversation; later changes to
the mounted skills are announced in an appended message instead.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import json
import os
import uuid
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from flue_runtime.agents.hooks import Render, render
from flue_runtime.agents.prompt import Entry, announcement, system_prompt
from flue_runtime.agents.sandbox import Sandbox
from flue_runtime.agents.skill_tools import Mounted, sandbox_tools, skill_tools
from flue_runtime.agents.stores import MemoryStore, SessionRecord, Store, open_store
from flue_runtime.agents.tools import Tool
from flue_runtime.agents.workspace import discover_workspace_skills
from flue_runtime.errors import FlueError, HookError, LoopError, SessionConflictError, ToolArgumentError, ToolFailure
from flue_runtime.models import Model, ModelRequest, ToolCall, resolve_model
from flue_runtime.models.base import Message, ToolSpec

AgentFunction = Callable[[], object]
T = TypeVar("T")
#: How often `set_state` writes again after losing a race with other workers' saves.
_STATE_ATTEMPTS = 10


@dataclass(frozen=True)
class PromptResult:
    """The model's final answer to one prompt, and the messages the prompt added."""

    text: str
    messages: list[Message]
    session_id: str


class Harness:
    """Runs `agent` in sessions. `sandbox` and `model` are defaults the agent's hooks may override."""

    def __init__(
        self,
        agent: AgentFunction,
        *,
        sandbox: Sandbox | None = None,
        store: Store | str | os.PathLike[str] | None = None,
        model: Model | str | None = None,
        max_steps: int = 50,
    ) -> None:
        if not callable(agent):
            raise HookError(f"Harness() takes an agent function, not {type(agent).__name__}")
        self.agent = agent
        self.sandbox = sandbox
        self.store = open_store(store)
        self.model = model
        self.max_steps = max_steps
        self._models: dict[str, Model] = {}

    def resolved_model(self, chosen: Model | str) -> Model:
        """A model object; one per 'provider/model' name, so its client and connection pool are reused."""
        if not isinstance(chosen, str):
            return chosen
        model = self._models.get(chosen)
        if model is None:
            model = self._models[chosen] = resolve_model(chosen)
        return model

    def session(self, session_id: str) -> Session:
        """The session `session_id`: resumed from the store when it exists there."""
        return Session(self, session_id, self.store)

    async def prompt(self, text: str) -> PromptResult:
        """A one-off prompt in a fresh, unsaved session with the same rendered config."""
        return await Session(self, f"prompt-{uuid.uuid4().hex}", MemoryStore()).prompt(text)

    def prompt_sync(self, text: str) -> PromptResult:
        return _run(self.prompt(text))


class Session:
    """One conversation with an agent."""

    def __init__(self, harness: Harness, session_id: str, store: Store) -> None:
        self.harness = harness
        self.id = session_id
        self._store = store
        self._record: SessionRecord | None = None
        #: The record the running prompt builds (None between prompts).
        self._working: SessionRecord | None = None
        self._workspace: list[Mounted] | None = None
        self._render: Render | None = None
        self._mounted: list[Mounted] = []
        self._tools: list[Tool] = []

    # --- what the model sees -----------------------------------------------------------

    @property
    def system_prompt(self) -> str:
        return self._start().system_prompt

    @property
    def messages(self) -> list[Message]:
        return list(self._start().messages)

    @property
    def tools(self) -> list[ToolSpec]:
        self._start()
        return [tool.spec() for tool in self._tools]

    @property
    def state(self) -> dict[str, Any]:
        return dict(self._start().state)

    def set_state(self, key: str, value: Any) -> None:
        """Change a persisted `use_state` value; the next prompt renders with it.

        While a prompt runs (from a tool), the change is saved with the prompt's turn. Between
        prompts it is written on the session as stored now (another worker may have added turns),
        and a save that lost a race is simply made again on fresh state: setting a key is harmless
        to repeat, unlike a turn."""
        json.dumps(value)  # state is stored as JSON: refuse what cannot be
        if self._working is not None:
            self._working.state[key] = value
            return
        for attempt in range(_STATE_ATTEMPTS):
            self._record = None
            record = self._start()
            record.state[key] = value
            try:
                self._store.save(self.id, record)
                return
            except SessionConflictError:
                self._record = None
                if attempt == _STATE_ATTEMPTS - 1:
                    raise

    # --- the loop ---------------------------------------------------------------------

    async def prompt(self, text: str) -> PromptResult:
        # The store is called from a worker thread: a session waiting for the database (another
        # process holding SQLite's write lock) must not stall every other session on the loop.
        # Every prompt starts from the session as stored: another worker may have added turns.
        loaded = await asyncio.to_thread(self._store.load, self.id)
        self._record = loaded
        record = self._start(loaded, read=True)
        start = len(record.messages)
        working = dataclasses.replace(
            record, messages=list(record.messages), state=dict(record.state), announced=list(record.announced)
        )
        self._working = working
        try:
            return await self._turn(working, text, start)
        except SessionConflictError:
            self._record = None  # another worker's turn landed first: read it before anything else
            raise
        finally:
            self._working = None

    async def _turn(self, working: SessionRecord, text: str, start: int) -> PromptResult:
        self._refresh(working)
        working.messages.append({"role": "user", "content": text})
        model = self._model()
        for _ in range(self.harness.max_steps):
            request = ModelRequest(working.system_prompt, list(working.messages), [t.spec() for t in self._tools])
            response = await model.complete(request)
            calls = [call.with_id() for call in response.tool_calls]
            assistant: Message = {"role": "assistant", "content": response.text}
            if calls:
                assistant["tool_calls"] = [call.to_dict() for call in calls]
            working.messages.append(assistant)
            if not calls:
                await asyncio.to_thread(self._store.save, self.id, working)
                self._record = working
                return PromptResult(response.text, working.messages[start:], self.id)
            working.messages.extend(await self._run_tools(calls))
        raise LoopError(
            f"the model was still calling tools after {self.harness.max_steps} steps; raise Harness(max_steps=...)"
        )

    def prompt_sync(self, text: str) -> PromptResult:
        """`prompt` for code that is not async."""
        return _run(self.prompt(text))

    # --- internals ----------------------------------------------------------------------

    def _start(self, loaded: SessionRecord | None = None, *, read: bool = False) -> SessionRecord:
        """The session's record, loaded from the store on first use (`read`: the caller already loaded `loaded`)."""
        if self._record is not None:
            return self._record
        record = loaded if read else self._store.load(self.id)
        rendered = self._rerender(record.state if record else {})
        entries = _entries(self._mounted)
        if record is None:
            record = SessionRecord(
                system_prompt(rendered.instructions, rendered.texts, entries), announced=list(entries)
            )
        self._record = record
        return record

    def _sandbox(self, rendered: Render) -> Sandbox | None:
        sandbox: Sandbox | None = rendered.sandbox or self.harness.sandbox
        return sandbox

    def _rerender(self, state: dict[str, Any]) -> Render:
        rendered = render(self.harness.agent, state)
        sandbox = self._sandbox(rendered)
        if self._workspace is None:
            self._workspace = (
                [Mounted(skill, folder) for skill, folder in discover_workspace_skills(sandbox)] if sandbox else []
            )
        declared = {skill.name: skill for skill in rendered.skills}
        for mounted in self._workspace:
            clash = declared.get(mounted.skill.name)
            if clash is not None:
                raise HookError(
                    f"workspace skill {mounted.skill.name!r} ({mounted.workspace_folder}) has the same name as a "
                    f"declared skill ({clash.origin}); rename the workspace skill's folder and name, or stop declaring the other one"
                )
        self._mounted = [Mounted(skill) for skill in rendered.skills] + self._workspace
        self._tools = skill_tools(self._mounted)
        if sandbox is not None:
            self._tools += sandbox_tools(sandbox, self._mounted)
        self._tools += rendered.tools
        self._render = rendered
        return rendered

    def _refresh(self, record: SessionRecord) -> None:
        """Render with the current state; announce catalog changes in an appended message."""
        self._rerender(record.state)
        entries = _entries(self._mounted)
        note = announcement(record.announced, entries)
        if note is not None:
            record.messages.append({"role": "user", "content": note, "catalog_update": True})
            record.announced = list(entries)

    def _model(self) -> Model:
        chosen = (self._render.model if self._render else None) or self.harness.model
        if chosen is None:
            raise HookError(
                "no model: call use_model('provider/model') or use_model(ScriptedModel([...])) in the agent"
            )
        return self.harness.resolved_model(chosen)

    async def _run_tools(self, calls: Sequence[ToolCall]) -> list[Message]:
        by_name = {tool.name: tool for tool in self._tools}
        results = await asyncio.gather(*(self._call(by_name.get(call.name), call) for call in calls))
        return [
            {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": content, "is_error": failed}
            for call, (content, failed) in zip(calls, results)
        ]

    async def _call(self, tool: Tool | None, call: ToolCall) -> tuple[str, bool]:
        if tool is None:
            names = ", ".join(t.name for t in self._tools) or "none"
            return f"Error: there is no tool named {call.name!r}. Available tools: {names}.", True
        try:
            arguments = tool.check_arguments(call.arguments)
            result = tool.function(**arguments)
            if inspect.isawaitable(result):
                result = await result
        except (ToolArgumentError, ToolFailure) as exc:
            return f"Error: {exc}", True
        except Exception as exc:  # a user tool failed: the model is told, the loop goes on
            return f"Error: {call.name} raised {type(exc).__name__}: {exc}", True
        return _as_text(result), False


def _entries(mounted: Sequence[Mounted]) -> list[Entry]:
    return [(m.skill.name, m.skill.description) for m in mounted]


def _as_text(result: object) -> str:
    if isinstance(result, str):
        return result
    if result is None:
        return ""
    try:
        return json.dumps(result, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(result)


def _run(coroutine: Coroutine[Any, Any, T]) -> T:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass  # no loop running: the normal case for sync code
    else:
        coroutine.close()
        raise FlueError("prompt_sync() was called inside a running event loop; use `await session.prompt(...)` there")
    return asyncio.run(coroutine)
