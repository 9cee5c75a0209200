"""The harness: renders an agent, keeps sessions, and runs the loop of model turns and tool calls.

The agent is rendered before every model turn, with the session's state as it is then (a
tool may have changed it). The system prompt is fixed when the session starts and stays
byte-identical; later changes to the instructions or the skills are announced in an
appended message, and the harness's tools keep constant definitions whose set only grows,
so the prefix a provider caches stays valid. Workspace skills are discovered at every prompt.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import uuid
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any, TypeVar

from flue_runtime.agents.configuration import HARNESS_TOOLS, Configuration
from flue_runtime.agents.context import PromptResult, ToolContext, set_value
from flue_runtime.agents.hooks import render
from flue_runtime.agents.prompt import announcement, instructions_announcement
from flue_runtime.agents.sandbox import Sandbox
from flue_runtime.agents.skill_tools import CATALOG_BUDGET, activated_skills
from flue_runtime.agents.stores import MemoryStore, SessionRecord, Store, check_session_id, open_store
from flue_runtime.agents.tools import Tool
from flue_runtime.agents.workspace import Workspace, discover_workspace_skills, find_workspace_skills, warn
from flue_runtime.errors import FlueError, HookError, LoopError, SessionConflictError, ToolArgumentError, ToolFailure
from flue_runtime.models import Model, ModelRequest, ToolCall, resolve_model
from flue_runtime.models.base import Message, ToolSpec

__all__ = ["AgentFunction", "Harness", "Session"]


AgentFunction = Callable[[], object]
T = TypeVar("T")
#: How often `set_state` writes again after losing a race with other workers' saves.
_STATE_ATTEMPTS = 10


class Harness:
    """Runs `agent` in sessions. `sandbox` and `model` are defaults the agent's hooks may override.

    `catalog_budget` bounds the catalog's skill lines (bytes); past it, one line says how many
    more skills there are and `find_skills` searches them all. None lists every skill.
    """

    def __init__(
        self,
        agent: AgentFunction,
        *,
        sandbox: Sandbox | None = None,
        store: Store | str | os.PathLike[str] | None = None,
        model: Model | str | None = None,
        max_steps: int = 50,
        catalog_budget: int | None = CATALOG_BUDGET,
    ) -> None:
        if not callable(agent):
            raise HookError(f"Harness() takes an agent function, not {type(agent).__name__}")
        if catalog_budget is not None and (
            not isinstance(catalog_budget, int) or isinstance(catalog_budget, bool) or catalog_budget < 1
        ):
            raise HookError(f"catalog_budget must be a positive number of bytes or None, not {catalog_budget!r}")
        self.agent = agent
        self.sandbox = sandbox
        self.store = open_store(store)
        self.model = model
        self.max_steps = max_steps
        self.catalog_budget = catalog_budget
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

    async def prompt(self, text: str, *, state: Mapping[str, Any] | None = None) -> PromptResult:
        """A one-off prompt in a fresh, unsaved session, rendered with `state` (default: none)."""
        return await Session(self, f"prompt-{uuid.uuid4().hex}", MemoryStore(), state=state).prompt(text)

    def prompt_sync(self, text: str, *, state: Mapping[str, Any] | None = None) -> PromptResult:
        return _run(self.prompt(text, state=state))

    def configure(self, state: Mapping[str, Any], workspace: Callable[[Sandbox], Workspace]) -> Configuration:
        """Render the agent with `state`; `workspace` gives the workspace skills of the sandbox it uses."""
        rendered = render(self.agent, dict(state))
        sandbox: Sandbox | None = rendered.sandbox or self.sandbox
        config = Configuration.of(rendered, sandbox, workspace(sandbox) if sandbox else [], self.catalog_budget)
        for message in config.skipped:
            warn(message)
        return config


class Session:
    """One conversation with an agent."""

    def __init__(
        self, harness: Harness, session_id: str, store: Store, *, state: Mapping[str, Any] | None = None
    ) -> None:
        self.harness = harness
        self.id = check_session_id(session_id)
        self._store = store
        self._initial_state = dict(state or {})
        self._record: SessionRecord | None = None
        self._working: SessionRecord | None = None  # the record a running prompt works on
        self._config: Configuration | None = None

    # --- what the model sees -----------------------------------------------------------

    @property
    def system_prompt(self) -> str:
        return self._start().system_prompt

    @property
    def messages(self) -> list[Message]:
        return list(self._start().messages)

    @property
    def tools(self) -> list[ToolSpec]:
        record = self._start()
        if self._config is None:
            self._config = self.harness.configure(record.state, discover_workspace_skills)
        return [tool.spec() for tool in self._config.tools(record.tools)]

    @property
    def state(self) -> dict[str, Any]:
        return dict((self._working or self._start()).state)

    def set_state(self, key: str, value: Any) -> None:
        """Change a persisted `use_state` value.

        While a prompt runs (from a tool), the next model turn renders with it and it is saved
        with the prompt's turn. Between prompts it is written on the session as stored now
        (another worker may have added turns), and a save that lost a race is simply made again
        on fresh state: setting a key is harmless to repeat, unlike a turn; the next prompt
        renders with it.
        """
        if self._working is not None:
            set_value(self._working.state, key, value)
            return
        for attempt in range(_STATE_ATTEMPTS):
            self._record = None
            record = self._start()
            set_value(record.state, key, value)
            try:
                self._store.save(self.id, record)
                return
            except SessionConflictError:
                self._record = None
                if attempt == _STATE_ATTEMPTS - 1:
                    raise

    # --- the loop ---------------------------------------------------------------------

    async def prompt(self, text: str) -> PromptResult:
        if self._working is not None:
            raise FlueError(f"session {self.id!r} is already running a prompt; await it before the next one")
        # Every prompt starts from the session as stored: another worker may have added turns.
        loaded = await self._stored(self._store.load, self.id)
        self._record = loaded
        # A new session's record is filled in by its first model turn (`_begin`).
        working = (loaded or SessionRecord("", state=dict(self._initial_state))).copy()
        self._working = working
        try:
            return await self._loop(working, text)
        except SessionConflictError:
            self._record = None  # another worker's turn landed first: read it before anything else
            raise
        finally:
            self._working = None

    def prompt_sync(self, text: str) -> PromptResult:
        """`prompt` for code that is not async."""
        return _run(self.prompt(text))

    async def _loop(self, working: SessionRecord, text: str) -> PromptResult:
        start = len(working.messages)
        discovered: dict[int, Workspace] = {}  # workspace skills, found once per prompt and sandbox
        warned: set[str] = set()  # a workspace skill skipped for its name is told once per prompt, not per turn

        async def workspace(sandbox: Sandbox) -> Workspace:
            if id(sandbox) not in discovered:
                # Vetting reads files: a worker thread's job. Its warnings are issued here, in the prompt's thread.
                discovered[id(sandbox)], skipped = await asyncio.to_thread(find_workspace_skills, sandbox)
                for message in skipped:
                    warn(message)
            return discovered[id(sandbox)]

        for step in range(self.harness.max_steps):
            rendered = render(self.harness.agent, working.state)
            sandbox: Sandbox | None = rendered.sandbox or self.harness.sandbox
            found = await workspace(sandbox) if sandbox else []
            config = Configuration.of(
                rendered, sandbox, found, self.harness.catalog_budget, lambda: activated_skills(working.messages)
            )
            for message in config.skipped:
                if message not in warned:
                    warned.add(message)
                    warn(message)
            if not working.messages:  # the conversation starts now: the system prompt says it all
                _begin(working, config)
            tools = self._turn(working, config)
            if step == 0:
                working.messages.append({"role": "user", "content": text})
            request = ModelRequest(working.system_prompt, list(working.messages), [t.spec() for t in tools])
            response = await self._model(config).complete(request)
            calls = [call.with_id() for call in response.tool_calls]
            assistant: Message = {"role": "assistant", "content": response.text}
            if calls:
                assistant["tool_calls"] = [call.to_dict() for call in calls]
            working.messages.append(assistant)
            if not calls:
                await self._stored(self._store.save, self.id, working)
                self._record = working
                return PromptResult(response.text, working.messages[start:], self.id)
            working.messages.extend(await self._run_tools(calls, tools, working))
        raise LoopError(
            f"the model was still calling tools after {self.harness.max_steps} steps; raise Harness(max_steps=...)"
        )

    # --- internals ----------------------------------------------------------------------

    async def _stored(self, call: Callable[..., T], *args: Any) -> T:
        """A store call, from a worker thread: a session waiting for its database (another process holding
        SQLite's write lock, a slow server) must not stall every other session on the loop. Memory never
        waits, and a thread's hand-over cost more than the call."""
        if isinstance(self._store, MemoryStore):
            return call(*args)
        return await asyncio.to_thread(call, *args)

    def _start(self, loaded: SessionRecord | None = None, *, read: bool = False) -> SessionRecord:
        """The session's record, loaded from the store on first use (`read`: the caller already loaded `loaded`)."""
        if self._record is not None:
            return self._record
        record = loaded if read else self._store.load(self.id)
        state = record.state if record else self._initial_state
        config = self.harness.configure(state, discover_workspace_skills)
        if record is None:
            record = SessionRecord("", state=dict(state))
            _begin(record, config)
        self._config = config
        self._record = record
        return record

    def _turn(self, record: SessionRecord, config: Configuration) -> list[Tool]:
        """Announce what changed since the model was last told; the tools for the turn."""
        if record.instructions is None:  # a record saved before instructions were tracked
            record.instructions = config.instructions
        note = instructions_announcement(record.instructions, config.instructions)
        if note is not None:
            record.messages.append({"role": "user", "content": note, "instructions_update": True})
            record.instructions = config.instructions
        entries = config.entries
        note = announcement(record.announced, entries, config.skills.budget, config.skills.searchable)
        if note is not None:
            record.messages.append({"role": "user", "content": note, "catalog_update": True})
            record.announced = list(entries)
        offered = {*record.tools, *config.needed()}
        record.tools = [name for name in HARNESS_TOOLS if name in offered]
        self._config = config
        return config.tools(record.tools)

    def _model(self, config: Configuration) -> Model:
        chosen = config.render.model or self.harness.model
        if chosen is None:
            raise HookError(
                "no model: call use_model('provider/model') or use_model(ScriptedModel([...])) in the agent"
            )
        return self.harness.resolved_model(chosen)

    async def _run_tools(
        self, calls: Sequence[ToolCall], tools: Sequence[Tool], working: SessionRecord
    ) -> list[Message]:
        by_name = {tool.name: tool for tool in tools}
        context = ToolContext(self.id, working.state, lambda text: self.harness.prompt(text, state=working.state))
        results = await asyncio.gather(*(self._call(by_name.get(call.name), call, tools, context) for call in calls))
        return [
            {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": content, "is_error": failed}
            for call, (content, failed) in zip(calls, results)
        ]

    @staticmethod
    async def _call(tool: Tool | None, call: ToolCall, tools: Sequence[Tool], context: ToolContext) -> tuple[str, bool]:
        if tool is None:
            names = ", ".join(t.name for t in tools) or "none"
            return f"Error: there is no tool named {call.name!r}. Available tools: {names}.", True
        try:
            arguments = tool.check_arguments(call.arguments)
            if tool.context is not None:
                arguments[tool.context] = context
            result = tool.function(**arguments)
            if inspect.isawaitable(result):
                result = await result
        except (ToolArgumentError, ToolFailure) as exc:
            return f"Error: {exc}", True
        except Exception as exc:  # a user tool failed: the model is told, the loop goes on
            return f"Error: {call.name} raised {type(exc).__name__}: {exc}", True
        return _as_text(result), False


def _begin(record: SessionRecord, config: Configuration) -> None:
    """Fix what a conversation starts with: the system prompt, and so what the model knows."""
    record.system_prompt = config.system_prompt()
    record.announced = list(config.entries)
    record.instructions = config.instructions
    record.tools = [name for name in HARNESS_TOOLS if name in config.needed()]


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
