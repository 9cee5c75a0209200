"""The harness: renders an agent, keeps sessions, and runs the loop of model turns and tool calls.

The agent is rendered before every model turn, with the session's state as it is then (a
tool may have changed it). The system prompt is fixed when the session starts and stays
byte-identical; later changes to the instructions or the skills are announced in an
appended message, and the harness's tools keep constant definitions whose set only grows,
so the prefix a provider caches stays valid. Workspace skills are discovered at every prompt.

The application decides too: `prompt(text, activate=[...])` activates skills for the model (an
`activate_skill` call and its result after the prompt's text, each marked `"explicit": True`),
and skills are disabled by name for every session (`Harness(disabled_skills=...)`) or for one
(`Session.disable_skills`, saved with it), announced like any other catalog change.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import uuid
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from flue_runtime.agents.approval import (
    ApprovalPolicy,
    Consent,
    Decide,
    ReadConsent,
    ReadDecide,
    ReadPolicy,
    approval_policy,
    read_policy,
)
from flue_runtime.agents.catalog import CATALOG_BUDGET, names_text
from flue_runtime.agents.configuration import HARNESS_TOOLS, Configuration
from flue_runtime.agents.context import PromptResult, ToolContext, set_value
from flue_runtime.agents.hooks import render
from flue_runtime.agents.prompt import announcement, instructions_announcement
from flue_runtime.agents.provenance import Served, Turn, catalog_of, recording
from flue_runtime.agents.sandbox import Sandbox
from flue_runtime.agents.scripts import cannot_run, cannot_run_warning
from flue_runtime.agents.skill_tools import activated_skills
from flue_runtime.agents.stores import open_store
from flue_runtime.agents.stores.contract import MemoryStore, SessionRecord, Store, check_session_id
from flue_runtime.agents.telemetry import Telemetry, check_telemetry, skill_span
from flue_runtime.agents.tools import Tool
from flue_runtime.agents.workspace import Workspace, discover_workspace_skills, find_workspace_skills, warn
from flue_runtime.errors import (
    AgentError,
    FlueError,
    SessionConflictError,
    SkillNotFoundError,
    SkillWarning,
    ToolFailure,
)
from flue_runtime.models import resolve_model
from flue_runtime.models.base import Message, Model, ModelRequest, ToolCall, ToolSpec

__all__ = ["AgentFunction", "Harness", "Session"]


AgentFunction = Callable[[], object]
T = TypeVar("T")
#: How often `set_state` writes again after losing a race with other workers' saves.
_STATE_ATTEMPTS = 10


class Harness:
    """Runs `agent` in sessions. `sandbox` and `model` are defaults the agent's hooks may override.

    `catalog_budget` bounds the catalog's skill lines (bytes); past it, one line says how many
    more skills there are and `find_skills` searches them all. None lists every skill.
    `disabled_skills` names mounted skills left out of every session (a session's own
    `enable_skills` brings one back there): not in the catalog, not activated, not read.
    `approve_scripts`: the policy `run_skill_script` asks before every run (`flue_runtime.agents.approval`:
    `never`, `bundled_only`, `ask(callback)`, or a callback, taken as `ask`); None is `bundled_only`, the
    application's own skills run and skills from elsewhere never do. It is asked too before each call of an
    agent's tool that runs code (`use_tool(..., runs_code=True)`) while a skill from elsewhere is active.
    `approve_reads`: the policy asked at each read of a skill's file while the model acts on a remote skill of
    another origin (`local_only`, `ask_reads(callback)`, or a callback, taken as `ask_reads`); None is
    `local_only`, the application's own skills are read and another server's skill never is.
    `telemetry`: OpenTelemetry spans for activations, reads and script runs (`Telemetry`); None traces when
    `opentelemetry-api` is installed, to its global tracer provider; False never.
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
        disabled_skills: Iterable[str] = (),
        approve_scripts: ApprovalPolicy | Decide | None = None,
        telemetry: Telemetry | bool | None = None,
        approve_reads: ReadPolicy | ReadDecide | None = None,
    ) -> None:
        if not callable(agent):
            raise AgentError(f"Harness() takes an agent function, not {type(agent).__name__}")
        if catalog_budget is not None and (
            not isinstance(catalog_budget, int) or isinstance(catalog_budget, bool) or catalog_budget < 1
        ):
            raise AgentError(f"catalog_budget must be a positive number of bytes or None, not {catalog_budget!r}")
        self.agent = agent
        self.sandbox = sandbox
        self.store = open_store(store)
        self.model = model
        self.max_steps = max_steps
        self.catalog_budget = catalog_budget
        self.disabled_skills = _skill_names(disabled_skills, "disabled_skills")
        self.approve_scripts = approval_policy(approve_scripts)
        self.approve_reads = read_policy(approve_reads)
        check_telemetry(telemetry)
        self.telemetry = telemetry
        self._models: dict[str, Model] = {}
        self._told_cannot_run: set[str] = set()  # the skills whose scripts cannot run, warned about once

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

    async def prompt(
        self, text: str, *, state: Mapping[str, Any] | None = None, activate: Iterable[str] = ()
    ) -> PromptResult:
        """A one-off prompt in a fresh, unsaved session, rendered with `state` (default: none); `activate` as
        `Session.prompt` takes it."""
        return await self._one_off(text, state, activate=activate)

    def prompt_sync(
        self, text: str, *, state: Mapping[str, Any] | None = None, activate: Iterable[str] = ()
    ) -> PromptResult:
        return _run(self.prompt(text, state=state, activate=activate))

    async def _one_off(
        self,
        text: str,
        state: Mapping[str, Any] | None,
        switches: Mapping[str, bool] | None = None,
        *,
        activate: Iterable[str] = (),
    ) -> PromptResult:
        """`prompt`, with a session's own skill switches (a tool's `ToolContext.prompt` keeps its session's)."""
        session = Session(self, f"prompt-{uuid.uuid4().hex}", MemoryStore(), state=state, skill_switches=switches)
        return await session.prompt(text, activate=activate)

    def _disabled_for(self, switches: Mapping[str, bool]) -> frozenset[str]:
        """The skill names left out of a session whose own choices are `switches` (they win over `disabled_skills`)."""
        return frozenset(
            [name for name in self.disabled_skills if switches.get(name) is not True]
            + [name for name, on in switches.items() if not on]
        )

    def configure(
        self,
        state: Mapping[str, Any],
        workspace: Callable[[Sandbox], Workspace],
        disabled: frozenset[str] = frozenset(),
    ) -> Configuration:
        """Render the agent with `state`; `workspace` gives the workspace skills of the sandbox it uses; the skills
        named in `disabled` are left out."""
        rendered = render(self.agent, dict(state))
        sandbox: Sandbox | None = rendered.sandbox or self.sandbox
        found = workspace(sandbox) if sandbox else []
        config = Configuration.of(rendered, sandbox, found, self.catalog_budget, disabled=disabled)
        for message in config.skipped:
            warn(message)
        if config.labelled is not None:
            warn(config.labelled, SkillWarning)
        self.tell_cannot_run(config)
        return config

    def tell_cannot_run(self, config: Configuration) -> None:
        """Warn of the skills whose scripts cannot run in `config`, once per harness: not at every render."""
        unrunnable = [name for name in cannot_run(config.skills, config.sandbox) if name not in self._told_cannot_run]
        if unrunnable:
            self._told_cannot_run.update(unrunnable)
            warn(cannot_run_warning(unrunnable), SkillWarning)


class Session:
    """One conversation with an agent.

    `state` and `skill_switches` are what a session that is not stored yet starts with: its `use_state`
    values, and its own skill choices (`{name: False}` disables a skill, as `disable_skills` does).
    """

    def __init__(
        self,
        harness: Harness,
        session_id: str,
        store: Store,
        *,
        state: Mapping[str, Any] | None = None,
        skill_switches: Mapping[str, bool] | None = None,
    ) -> None:
        self.harness = harness
        self.id = check_session_id(session_id)
        self._store = store
        self._initial_state = dict(state or {})
        self._initial_switches = {name: bool(on) for name, on in (skill_switches or {}).items()}
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
            self._config = self._configure(record)
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

        def changed() -> SessionRecord:
            record = self._start()
            set_value(record.state, key, value)
            return record

        self._save_between_prompts(changed)

    # --- which skills the session offers ------------------------------------------------

    @property
    def disabled_skills(self) -> list[str]:
        """The skill names this session leaves out, sorted: the harness's `disabled_skills` it did not enable, and
        those it disabled itself."""
        return sorted(self.harness._disabled_for((self._working or self._start()).skill_switches))

    def disable_skills(self, *names: str) -> None:
        """Leave the skills `names` out of this session: the catalog, activation, reads and scripts.

        Saved with the session, like `set_state`: while a prompt runs, from the next model turn on (the model
        is told in an appended message, as of any catalog change; the system prompt does not change);
        between prompts, on the session as stored now. A session not stored yet starts without them (its
        system prompt never lists them). A name no skill has now is kept too: it applies once one is mounted.
        """
        self._switch(names, False)

    def enable_skills(self, *names: str) -> None:
        """Offer the skills `names` again in this session, those the harness's `disabled_skills` names
        included; saved and announced as `disable_skills` is."""
        self._switch(names, True)

    def _switch(self, names: tuple[str, ...], on: bool) -> None:
        chosen = _skill_names(names, "enable_skills" if on else "disable_skills")
        if not chosen:
            return

        def change(record: SessionRecord) -> None:
            record.skill_switches.update(dict.fromkeys(chosen, on))

        if self._working is not None:
            change(self._working)
            return
        self._save_between_prompts(lambda: self._start(change=change))

    def _save_between_prompts(self, changed: Callable[[], SessionRecord]) -> None:
        """Save the record `changed` makes from the session as stored now, made again after a conflicting save
        (another worker saved this session in between), at most `_STATE_ATTEMPTS` times."""
        for attempt in range(_STATE_ATTEMPTS):
            self._record = None
            record = changed()
            try:
                self._store.save(self.id, record)
                return
            except SessionConflictError:
                self._record = None
                if attempt == _STATE_ATTEMPTS - 1:
                    raise

    def provenance(self) -> list[Turn]:
        """Every saved model turn of this session: the catalog it rendered and each skill file served after
        it (activations, reads, script runs) with its digests; see `flue_runtime.agents.provenance`."""
        return self._store.turns(self.id)

    def activation_messages(self, activate: Iterable[str]) -> list[Message]:
        """The messages `prompt(text, activate=...)` would add after its text, with the agent rendered as the
        session stands: no model is called, nothing is saved. Raises as `prompt` does (`SkillNotFoundError`)."""
        names = _skill_names(activate, "activate")
        if not names:
            return []
        record = self._working or self._start()
        return _activation(self._configure(record), names, self._disabled(record))

    # --- the loop ---------------------------------------------------------------------

    async def prompt(self, text: str, *, activate: Iterable[str] = ()) -> PromptResult:
        """The model's answer to `text`, after as many tool calls as it makes.

        `activate` names skills to activate for the model (a name, or several): their instructions
        come after `text` as the results of `activate_skill` calls the model did not make, each call and
        result marked `"explicit": True`. A name the agent does not mount now, or a disabled one, raises
        `SkillNotFoundError` naming the available skills, before any model call.
        """
        names = _skill_names(activate, "activate")
        if self._working is not None:
            raise FlueError(f"session {self.id!r} is already running a prompt; await it before the next one")
        # Every prompt starts from the session as stored: another worker may have added turns.
        loaded = await self._stored(self._store.load, self.id)
        self._record = loaded
        # A new session's record is filled in by its first model turn (`_begin`).
        working = (loaded or self._new_record()).copy()
        self._working = working
        try:
            return await self._loop(working, text, names)
        except SessionConflictError:
            self._record = None  # another worker's turn landed first: read it before anything else
            raise
        finally:
            self._working = None

    def prompt_sync(self, text: str, *, activate: Iterable[str] = ()) -> PromptResult:
        """`prompt` for code that is not async."""
        return _run(self.prompt(text, activate=activate))

    async def _loop(self, working: SessionRecord, text: str, activate: Sequence[str] = ()) -> PromptResult:
        start = len(working.messages)
        discovered: dict[int, Workspace] = {}  # workspace skills, found once per prompt and sandbox
        warned: set[str] = set()  # a skill skipped or labelled for its name is told once per prompt, not per turn

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
            disabled = self._disabled(working)
            config = Configuration.of(
                rendered,
                sandbox,
                found,
                self.harness.catalog_budget,
                lambda: activated_skills(working.messages),
                disabled,
            )
            for message in config.skipped:
                if message not in warned:
                    warned.add(message)
                    warn(message)
            if config.labelled is not None and config.labelled not in warned:
                warned.add(config.labelled)
                warn(config.labelled, SkillWarning)
            self.harness.tell_cannot_run(config)
            if not working.messages:  # the conversation starts now: the system prompt says it all
                _begin(working, config)
            tools = self._turn(working, config)
            served: list[Served] = []  # what the skill tools serve in this turn
            if step == 0:
                working.messages.append({"role": "user", "content": text})
                working.messages += _activation(config, activate, disabled, (served, self.id, self.harness.telemetry))
            request = ModelRequest(working.system_prompt, list(working.messages), [t.spec() for t in tools])
            response = await self._model(config).complete(request)
            calls = [call.with_id() for call in response.tool_calls]
            assistant: Message = {"role": "assistant", "content": response.text}
            if calls:
                assistant["tool_calls"] = [call.to_dict() for call in calls]
            working.messages.append(assistant)
            answer = len(working.messages) - 1
            if not calls:
                working.turns.append(Turn.now(step, answer, catalog_of(config.skills.references), served).to_dict())
                await self._stored(self._store.save, self.id, working)
                self._record = working
                return PromptResult(response.text, working.messages[start:], self.id)
            working.messages.extend(await self._run_tools(calls, tools, working, served))
            working.turns.append(Turn.now(step, answer, catalog_of(config.skills.references), served).to_dict())
        raise AgentError(
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

    def _start(
        self,
        loaded: SessionRecord | None = None,
        *,
        read: bool = False,
        change: Callable[[SessionRecord], None] | None = None,
    ) -> SessionRecord:
        """The session's record, loaded from the store on first use (`read`: the caller already loaded `loaded`);
        `change` is made to it first (to a new one, before its system prompt is fixed)."""
        if self._record is not None:
            return self._record
        record = loaded if read else self._store.load(self.id)
        new = record is None
        if record is None:
            record = self._new_record()
        if change is not None:
            change(record)
        config = self._configure(record)
        if new:
            _begin(record, config)
        self._config = config
        self._record = record
        return record

    def _new_record(self) -> SessionRecord:
        """The record of a session not stored yet, before its first model turn fixes the system prompt."""
        return SessionRecord("", state=dict(self._initial_state), skill_switches=dict(self._initial_switches))

    def _disabled(self, record: SessionRecord) -> frozenset[str]:
        return self.harness._disabled_for(record.skill_switches)

    def _configure(self, record: SessionRecord) -> Configuration:
        return self.harness.configure(record.state, discover_workspace_skills, self._disabled(record))

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
        consent = Consent(self.harness.approve_scripts, self.id, record.script_approvals)
        return config.tools(record.tools, consent, ReadConsent(self.harness.approve_reads, self.id))

    def _model(self, config: Configuration) -> Model:
        chosen = config.render.model or self.harness.model
        if chosen is None:
            raise AgentError(
                "no model: call use_model('provider/model') or use_model(ScriptedModel([...])) in the agent"
            )
        return self.harness.resolved_model(chosen)

    async def _run_tools(
        self, calls: Sequence[ToolCall], tools: Sequence[Tool], working: SessionRecord, served: list[Served]
    ) -> list[Message]:
        by_name = {tool.name: tool for tool in tools}
        context = ToolContext(
            self.id, working.state, lambda text: self.harness._one_off(text, working.state, working.skill_switches)
        )
        results = await asyncio.gather(
            *(self._recorded(by_name.get(call.name), call, tools, context, served) for call in calls)
        )
        return [
            {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": content, "is_error": failed}
            for call, (content, failed) in zip(calls, results)
        ]

    async def _recorded(
        self, tool: Tool | None, call: ToolCall, tools: Sequence[Tool], context: ToolContext, served: list[Served]
    ) -> tuple[str, bool]:
        """`_call`, recording into `served` what the skill tools serve (a span for a skill tool when traced)."""
        with skill_span(self.harness.telemetry, call, self.id) as span, recording(served, call.id, span=span):
            content, failed = await self._call(tool, call, tools, context)
            if span is not None:
                span.result(content, failed)
        return content, failed

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
        except ToolFailure as exc:
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


def _skill_names(names: Iterable[str], where: str) -> tuple[str, ...]:
    """`names` (one name, or several) as a tuple without repeats; `AgentError` for anything but non-empty strings."""
    listed = [names] if isinstance(names, str) else names
    try:
        chosen = tuple(dict.fromkeys(listed))
    except TypeError:
        raise AgentError(f"{where} takes skill names, not {type(names).__name__}") from None
    for name in chosen:
        if not isinstance(name, str) or not name:
            raise AgentError(f"{where} takes skill names (non-empty strings), not {name!r}")
    return chosen


def _activation(
    config: Configuration,
    names: Sequence[str],
    disabled: frozenset[str],
    record: tuple[list[Served], str, Telemetry | bool | None] | None = None,
) -> list[Message]:
    """The `activate_skill` calls the application makes for the model, and their results, marked explicit.

    `record`: where what they serve is recorded, the session id and the telemetry setting (a prompt's).
    `SkillNotFoundError` for a name no mounted skill has, or a disabled one, naming the available skills."""
    if not names:
        return []
    skills = config.skills
    problems = []
    for name in names:
        if name in disabled:
            problems.append(
                f"skill {name!r} is disabled in this session (session.enable_skills({name!r}) brings it back)"
            )
        elif skills.get(name) is None:
            problems.append(f"no skill named {name!r} is mounted")
    if problems:
        raise SkillNotFoundError(
            f"cannot activate: {'; '.join(problems)}; available skills: {names_text(skills.names, False)}"
        )
    calls = [ToolCall("activate_skill", {"name": name}, f"explicit_{uuid.uuid4().hex[:24]}") for name in names]
    results: list[Message] = []
    for call in calls:
        try:
            if record is None:
                content = skills.activate(call.arguments["name"])
            else:
                sink, session_id, telemetry = record
                with (
                    skill_span(telemetry, call, session_id) as span,
                    recording(sink, call.id, explicit=True, span=span),
                ):
                    content = skills.activate(call.arguments["name"])
                    if span is not None:
                        span.result(content, False)
        except ToolFailure as exc:  # the skill's folder no longer passes vetting: the application is told
            raise (exc.__cause__ if isinstance(exc.__cause__, FlueError) else exc) from None
        results.append(
            {
                "role": "tool",
                "tool_call_id": call.id,
                "name": call.name,
                "content": content,
                "is_error": False,
                "explicit": True,
            }
        )
    assistant: Message = {
        "role": "assistant",
        "content": "",
        "tool_calls": [call.to_dict() for call in calls],
        "explicit": True,
    }
    return [assistant, *results]


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
