"""Does the model activate the right skill? Trigger rates from each skill's eval set (what `flue-skills eval` prints).

Each skill's `evals/triggers.json` (`flue_runtime.format.triggers`) holds labelled queries. Every query is sent
`runs` times as the first user message of a new session, with the system prompt (instructions and skill catalog)
and tool definitions the harness renders for it (`agents.first_turn`, which `flue-skills prompt` shows), for one model
turn; the skill named by an `activate_skill` call in the answer, if any, is what the query triggered. An agent is
evaluated as it stands (its instructions, tools and the skills it mounts with `state`); a list of skills, as an
agent that mounts just those.

The `EvalReport` holds per skill and split (train, validation) the trigger rate over the runs of its should-trigger
queries, the false-trigger rate over the runs of its should-not-trigger ones and the confusions (what fired
instead on a should-trigger run), and the cost: requests, tokens when the model reports them, time.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from flue_runtime.errors import ModelError, SkillNotFoundError
from flue_runtime.format.triggers import SPLITS, TRIGGERS_FILE, TriggerQuery, parse_triggers
from flue_runtime.models.base import Model, ModelRequest, ToolSpec

if TYPE_CHECKING:
    from flue_runtime.agents.harness import AgentFunction
    from flue_runtime.mount.reference import SkillReference

__all__ = ["Case", "CaseOutcome", "Cost", "EvalReport", "Evaluation", "Tally", "evaluate"]

#: Called as each case's runs are done: the outcome, how many cases are done, how many there are.
Progress = Callable[["CaseOutcome", int, int], None]


@dataclass(frozen=True)
class Case:
    """One labelled query of skill `skill`'s eval set."""

    skill: str
    query: TriggerQuery


@dataclass(frozen=True)
class CaseOutcome:
    """A case's runs: the skills each run activated (empty: none)."""

    case: Case
    fired: tuple[tuple[str, ...], ...]


@dataclass
class Cost:
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    reported: bool = False  # whether any response reported its tokens
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        tokens = {"input": self.input_tokens, "output": self.output_tokens} if self.reported else None
        return {"requests": self.requests, "tokens": tokens, "seconds": round(self.seconds, 3)}


@dataclass
class Tally:
    """One skill's runs in one split (or in all)."""

    positive_runs: int = 0
    triggered: int = 0
    negative_runs: int = 0
    false_triggers: int = 0
    confusions: Counter[str] = field(default_factory=Counter)

    def add(self, outcome: CaseOutcome) -> None:
        for names in outcome.fired:
            if outcome.case.query.should_trigger:
                self.positive_runs += 1
                if outcome.case.skill in names:
                    self.triggered += 1
                else:
                    self.confusions.update(names or ["(none)"])
            else:
                self.negative_runs += 1
                self.false_triggers += outcome.case.skill in names

    @property
    def trigger_rate(self) -> float | None:
        return self.triggered / self.positive_runs if self.positive_runs else None

    @property
    def false_trigger_rate(self) -> float | None:
        return self.false_triggers / self.negative_runs if self.negative_runs else None

    def to_dict(self) -> dict[str, Any]:
        rates = {"trigger_rate": self.trigger_rate, "false_trigger_rate": self.false_trigger_rate}
        return {**rates, **asdict(self), "confusions": dict(self.confusions.most_common())}


@dataclass
class EvalReport:
    """Per skill: a tally per split and one over all runs (`"all"`); every outcome; the cost."""

    skills: dict[str, dict[str, Tally]]
    outcomes: list[CaseOutcome]
    cost: Cost

    @classmethod
    def of(cls, outcomes: list[CaseOutcome], cost: Cost) -> EvalReport:
        skills: dict[str, dict[str, Tally]] = {}
        for outcome in outcomes:
            tallies = skills.setdefault(outcome.case.skill, {split: Tally() for split in (*SPLITS, "all")})
            tallies[outcome.case.query.split].add(outcome)
            tallies["all"].add(outcome)
        return cls(skills, outcomes, cost)

    def failing(self, rate: float | None) -> list[str]:
        """The skills whose trigger rate, or 1 minus whose false-trigger rate, over all runs is below `rate`."""
        if rate is None:
            return []
        failed = []
        for name, tallies in self.skills.items():
            total = tallies["all"]
            if total.trigger_rate is not None and total.trigger_rate < rate:
                failed.append(f"{name}: trigger rate {total.trigger_rate:.2f} is below {rate:g}")
            if total.false_trigger_rate is not None and 1 - total.false_trigger_rate < rate:
                failed.append(f"{name}: false-trigger rate {total.false_trigger_rate:.2f} is above {1 - rate:.2f}")
        return failed

    def to_dict(self) -> dict[str, Any]:
        """The tallies, every query's runs and the cost, as JSON values."""
        skills = {name: {split: t.to_dict() for split, t in tallies.items()} for name, tallies in self.skills.items()}
        queries = [
            {"skill": o.case.skill, **asdict(o.case.query), "fired": list(map(list, o.fired))} for o in self.outcomes
        ]
        return {"skills": skills, "queries": queries, "cost": self.cost.to_dict()}


@dataclass(frozen=True)
class Evaluation:
    """What is asked: the first request of a new session of the agent (its system prompt and tools), the skills
    it mounts and the model it uses (None: it calls no `use_model`)."""

    system: str
    tools: list[ToolSpec]
    skills: list[SkillReference]
    model: Model | str | None

    @classmethod
    def of(cls, agent: AgentFunction | Sequence[SkillReference], state: dict[str, Any] | None = None) -> Evaluation:
        """`agent` rendered with `state` (a list of skills: an agent mounting them, `state` unused)."""
        from flue_runtime.agents.first_turn import first_turn
        from flue_runtime.agents.hooks import render

        function = agent if callable(agent) else _mounting(list(agent))
        rendered = render(function, dict(state or {}))
        turn = first_turn(function, state)
        return cls(turn.system, turn.tools, rendered.skills, rendered.model)

    def cases(self, only: Sequence[str] = ()) -> tuple[list[Case], list[str]]:
        """The cases of every skill's eval set (of `only`'s skills when given) and the skills without one.

        `SkillNotFoundError` for a name in `only` no skill has; `SkillError` for an invalid eval set."""
        names = [skill.name for skill in self.skills]
        unknown = [name for name in only if name not in names]
        if unknown:
            raise SkillNotFoundError(f"no skill named {', '.join(unknown)}; the skills: {', '.join(sorted(names))}")
        cases: list[Case] = []
        skipped: list[str] = []
        for skill in self.skills:
            if only and skill.name not in only:
                continue
            if TRIGGERS_FILE not in skill.resources:
                skipped.append(skill.name)
                continue
            queries = parse_triggers(skill.read_bytes(TRIGGERS_FILE), f"{skill.name}: {TRIGGERS_FILE}")
            cases += [Case(skill.name, query) for query in queries]
        return cases, skipped

    async def run(
        self,
        cases: Sequence[Case],
        model: Model | str | None = None,
        *,
        runs: int = 3,
        jobs: int = 4,
        progress: Progress | None = None,
    ) -> EvalReport:
        """Each case sent `runs` times as the first request of a new session, one model turn each, `jobs` at once,
        to `model` (default: the agent's own; `ModelError` when neither names one)."""
        from flue_runtime.models import resolve_model

        chosen = model if model is not None else self.model
        if chosen is None:
            raise ModelError("no model to ask: pass model=, like 'anthropic/claude-haiku-4-5' (the agent has none)")
        asked = resolve_model(chosen)
        cost = Cost()
        gate = asyncio.Semaphore(jobs)
        done = 0
        started = time.monotonic()

        async def once(case: Case) -> tuple[str, ...]:
            request = ModelRequest(self.system, [{"role": "user", "content": case.query.query}], self.tools)
            async with gate:
                response = await asked.complete(request)
            cost.requests += 1
            if response.usage is not None:
                cost.reported = True
                cost.input_tokens += response.usage.input_tokens
                cost.output_tokens += response.usage.output_tokens
            return fired(response.tool_calls)

        async def one(case: Case) -> CaseOutcome:
            nonlocal done
            outcome = CaseOutcome(case, tuple(await asyncio.gather(*(once(case) for _ in range(runs)))))
            done += 1
            if progress is not None:
                progress(outcome, done, len(cases))
            return outcome

        outcomes = list(await asyncio.gather(*(one(case) for case in cases)))
        cost.seconds = time.monotonic() - started
        return EvalReport.of(outcomes, cost)


def evaluate(
    agent: AgentFunction | Sequence[SkillReference],
    model: Model | str | None = None,
    *,
    runs: int = 3,
    jobs: int = 4,
    only: Sequence[str] = (),
    state: dict[str, Any] | None = None,
    progress: Progress | None = None,
) -> EvalReport:
    """The trigger rates of `agent`'s skills (of `only`'s), each query sent `runs` times to `model` (default: the
    agent's own); from code that runs no event loop (in one, `await Evaluation.of(...).run(...)`)."""
    evaluation = Evaluation.of(agent, state)
    cases, _ = evaluation.cases(only)
    return asyncio.run(evaluation.run(cases, model, runs=runs, jobs=jobs, progress=progress))


def fired(tool_calls: Sequence[Any]) -> tuple[str, ...]:
    """The skills a model turn's `activate_skill` calls name, in order, each once."""
    calls = [
        call.arguments for call in tool_calls if call.name == "activate_skill" and isinstance(call.arguments, dict)
    ]
    return tuple(dict.fromkeys(name for name in (c.get("name") for c in calls) if isinstance(name, str)))


def _mounting(skills: list[SkillReference]) -> AgentFunction:
    """An agent that mounts `skills` and says nothing more."""
    from flue_runtime.agents.hooks import agent, use_skill

    @agent
    def skills_only() -> str:
        for skill in skills:
            use_skill(skill)
        return ""

    return skills_only
