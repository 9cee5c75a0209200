"""`flue-skills eval TARGET`: does the model activate the right skill? Trigger rates from each skill's eval set.

Each skill's `evals/triggers.json` (`flue_runtime.format.triggers`) holds labelled queries. Every query
is sent `--runs` times as the first user message of a new session, with the system prompt (instructions
and skill catalog) and tool definitions the harness renders for it (`prompt.first_turn`: the same
`Session` that `flue-skills prompt` shows), for one model turn; the skill named by an `activate_skill`
call in the answer, if any, is what the query triggered. A MODULE:AGENT target is the agent as it
stands (its instructions, tools and the skills it mounts with the `--state` values); any other target
(an installed package or distribution, a project folder, whose skills are those `check` finds, or a
folder of skills: `targets.resolve_target`) is an agent that mounts just those skills.

Reports per skill and split (train, validation): the trigger rate over the runs of its should-trigger
queries, the false-trigger rate over the runs of its should-not-trigger ones, and the confusions (another
skill activated for a should-trigger query). `--fail-under RATE` exits 1 when a skill's trigger rate,
or 1 minus its false-trigger rate, over both splits is below RATE. The cost (requests, tokens when the
model reports them, time) is part of the report. Queries, and the skills a model named, are printed through
`format.diagnostics.printable`: an eval set or a model cannot send the terminal an escape sequence.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from flue_build.cli.agent_args import add_state_argument, add_target_argument
from flue_build.cli.counts import count
from flue_build.cli.exits import OK, PROBLEMS
from flue_build.errors import UsageError
from flue_runtime.format.diagnostics import printable, printable_json
from flue_runtime.format.triggers import SPLITS, TRIGGERS_FILE, TriggerQuery, parse_triggers
from flue_runtime.models.base import Model, ModelRequest, ToolSpec

if TYPE_CHECKING:
    from flue_build.cli import AddParser  # the harness is imported when the command runs, so other commands start fast
    from flue_runtime.mount.reference import SkillReference

__all__ = ["Case", "Outcome", "Report", "evaluate", "register", "run"]

ACTIVATE = "activate_skill"


def register(add_parser: AddParser) -> None:
    parser = add_parser(
        "eval",
        help="measure skill routing: trigger rates of each skill's evals/triggers.json through a model",
        description="Send each query of each skill's evals/triggers.json (a JSON list of {query, should_trigger, "
        "split?}) to a model --runs times, with the system prompt, catalog and tools the harness renders for "
        "TARGET, and report per skill the trigger rate on should-trigger queries, the false-trigger rate on "
        "should-not-trigger ones and which other skill fired instead, train and validation apart. "
        "TARGET: MODULE:AGENT, an installed package or distribution, a project folder (with a pyproject.toml: "
        "the skills check finds in it), or a folder of skills.",
    )
    add_target_argument(parser)
    parser.add_argument(
        "--model",
        metavar="PROVIDER/MODEL",
        help="the model to ask, e.g. anthropic/claude-haiku-4-5 (default: the agent's own use_model)",
    )
    parser.add_argument(
        "--runs", type=count("run", "runs", 3), default=3, metavar="N", help="runs per query (default 3)"
    )
    parser.add_argument(
        "--fail-under",
        type=_rate,
        metavar="RATE",
        help="exit 1 when a skill's trigger rate or 1 - its false-trigger rate is below RATE (0 to 1)",
    )
    parser.add_argument(
        "--skill", action="append", default=[], dest="skills", metavar="NAME", help="evaluate only this skill"
    )
    parser.add_argument(
        "--jobs", type=count("request", "requests", 4), default=4, metavar="N", help="requests at once (default 4)"
    )
    add_state_argument(parser, "a use_state value of a MODULE:AGENT, as JSON (repeatable)")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(handler=run)


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r}: a rate between 0 and 1, like 0.8")
    return value


# --- what is asked --------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One labelled query of skill `skill`'s eval set."""

    skill: str
    query: TriggerQuery


@dataclass(frozen=True)
class Outcome:
    """A case's runs: the skills each run activated (empty: none)."""

    case: Case
    fired: tuple[tuple[str, ...], ...]


def eval_cases(skills: Sequence[SkillReference], only: Sequence[str] = ()) -> tuple[list[Case], list[str]]:
    """The cases of every skill's eval set (of `only`'s skills when given) and notes on the skills without one."""
    names = {skill.name for skill in skills}
    unknown = [name for name in only if name not in names]
    if unknown:
        raise UsageError(f"--skill: no skill named {', '.join(unknown)}; the skills: {', '.join(sorted(names))}")
    cases: list[Case] = []
    notes: list[str] = []
    for skill in skills:
        if only and skill.name not in only:
            continue
        if TRIGGERS_FILE not in skill.resources:
            notes.append(f"{skill.name}: no {TRIGGERS_FILE}, not evaluated")
            continue
        queries = parse_triggers(skill.read_bytes(TRIGGERS_FILE), f"{skill.name}: {TRIGGERS_FILE}")
        cases += [Case(skill.name, query) for query in queries]
    return cases, notes


def fired(tool_calls: Sequence[Any]) -> tuple[str, ...]:
    """The skills a model turn's `activate_skill` calls name, in order, each once."""
    names: list[str] = []
    for call in tool_calls:
        name = call.arguments.get("name") if call.name == ACTIVATE and isinstance(call.arguments, dict) else None
        if isinstance(name, str) and name not in names:
            names.append(name)
    return tuple(names)


# --- running ----------------------------------------------------------------------------------


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

    def line(self) -> str:
        tokens = (
            f", {self.input_tokens:,} tokens in and {self.output_tokens:,} out"
            if self.reported
            else ", tokens not reported by the model"
        )
        plural = "" if self.requests == 1 else "s"
        return f"cost: {self.requests} request{plural}{tokens}, {self.seconds:.1f}s"


async def evaluate(
    model: Model,
    system: str,
    tools: list[ToolSpec],
    cases: Sequence[Case],
    runs: int,
    jobs: int = 4,
    progress: Callable[[Outcome, int, int], None] | None = None,
) -> tuple[list[Outcome], Cost]:
    """Each case sent `runs` times as a new session's first request, one model turn each."""
    cost = Cost()
    gate = asyncio.Semaphore(jobs)
    done = 0
    started = time.monotonic()

    async def once(case: Case) -> tuple[str, ...]:
        request = ModelRequest(system, [{"role": "user", "content": case.query.query}], tools)
        async with gate:
            response = await model.complete(request)
        cost.requests += 1
        if response.usage is not None:
            cost.reported = True
            cost.input_tokens += response.usage.input_tokens
            cost.output_tokens += response.usage.output_tokens
        return fired(response.tool_calls)

    async def one(case: Case) -> Outcome:
        nonlocal done
        outcome = Outcome(case, tuple(await asyncio.gather(*(once(case) for _ in range(runs)))))
        done += 1
        if progress is not None:
            progress(outcome, done, len(cases))
        return outcome

    outcomes = list(await asyncio.gather(*(one(case) for case in cases)))
    cost.seconds = time.monotonic() - started
    return outcomes, cost


# --- the report -------------------------------------------------------------------------------


@dataclass
class Tally:
    """One skill's runs in one split (or in all)."""

    positive_runs: int = 0
    triggered: int = 0
    negative_runs: int = 0
    false_triggers: int = 0
    confusions: Counter[str] = field(default_factory=Counter)

    def add(self, outcome: Outcome) -> None:
        skill = outcome.case.skill
        for names in outcome.fired:
            if outcome.case.query.should_trigger:
                self.positive_runs += 1
                if skill in names:
                    self.triggered += 1
                else:
                    self.confusions.update(names if names else ["(none)"])
            else:
                self.negative_runs += 1
                self.false_triggers += skill in names

    @property
    def trigger_rate(self) -> float | None:
        return self.triggered / self.positive_runs if self.positive_runs else None

    @property
    def false_trigger_rate(self) -> float | None:
        return self.false_triggers / self.negative_runs if self.negative_runs else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "trigger_rate": self.trigger_rate,
            "false_trigger_rate": self.false_trigger_rate,
            "positive_runs": self.positive_runs,
            "triggered": self.triggered,
            "negative_runs": self.negative_runs,
            "false_triggers": self.false_triggers,
            "confusions": dict(self.confusions.most_common()),
        }


@dataclass
class Report:
    """Per skill: a tally per split and one over all runs; the skills below `--fail-under`."""

    skills: dict[str, dict[str, Tally]]
    outcomes: list[Outcome]

    @classmethod
    def of(cls, outcomes: list[Outcome]) -> Report:
        skills: dict[str, dict[str, Tally]] = {}
        for outcome in outcomes:
            tallies = skills.setdefault(outcome.case.skill, {split: Tally() for split in (*SPLITS, "all")})
            tallies[outcome.case.query.split].add(outcome)
            tallies["all"].add(outcome)
        return cls(skills, outcomes)

    def failing(self, rate: float | None) -> list[str]:
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


def _percent(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.0%}"


def table(report: Report) -> str:
    """The terminal table: a row per skill and split that has runs."""
    rows = [("skill", "split", "trigger", "false trigger", "confused with")]
    for name, tallies in report.skills.items():
        for split in (*SPLITS, "all"):
            tally = tallies[split]
            if not (tally.positive_runs or tally.negative_runs):
                continue
            confusions = ", ".join(f"{other} ×{count}" for other, count in tally.confusions.most_common())
            rows.append(
                (
                    name,
                    split,
                    f"{_percent(tally.trigger_rate)} ({tally.triggered}/{tally.positive_runs})",
                    f"{_percent(tally.false_trigger_rate)} ({tally.false_triggers}/{tally.negative_runs})",
                    confusions or "-",
                )
            )
    shown = [[printable(cell) for cell in row] for row in rows]  # a skill a model named is the model's text
    widths = [max(len(row[column]) for row in shown) for column in range(len(shown[0]))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in shown)


# --- the command ------------------------------------------------------------------------------


def _subject(args: argparse.Namespace) -> tuple[Callable[[], object], list[SkillReference]]:
    """The agent whose first turn is evaluated and the skills it mounts (left out: the ones it disables)."""
    from flue_build.cli.targets import _AGENT, agent_code, load_agent, resolve_target
    from flue_runtime.agents.hooks import agent, render, use_skill

    state = dict(args.state)
    if _AGENT.match(args.target):
        function = load_agent(args.target)
        with agent_code(args.target):
            return function, list(render(function, state).skills)
    if args.state:
        raise UsageError("--state renders a MODULE:AGENT; this target is not one")
    skills = list(resolve_target(args.target).skills)

    @agent
    def skills_only() -> str:
        for skill in skills:
            use_skill(skill)
        return ""

    return skills_only, skills


def _counted(count: int, one: str, many: str = "") -> str:
    """`1 run`, `3 runs`: a count and its noun, singular for one."""
    return f"{count:,} {one if count == 1 else many or one + 's'}"


def run(args: argparse.Namespace) -> int:
    from flue_build.cli.commands.prompt import first_turn
    from flue_build.cli.targets import agent_code
    from flue_runtime.agents.hooks import render
    from flue_runtime.models import resolve_model

    function, skills = _subject(args)
    cases, notes = eval_cases(skills, args.skills)
    for note in notes:
        print(f"flue-skills eval: {printable(note)}", file=sys.stderr)
    if not cases:
        raise UsageError(f"{args.target}: no skill has an {TRIGGERS_FILE} to evaluate")
    state = dict(args.state)
    with agent_code(args.target):
        turn = first_turn(function, state)
        chosen = args.model or render(function, state).model
    if chosen is None:
        raise UsageError("--model: name the model to ask, like anthropic/claude-haiku-4-5 (the target has none)")
    model = resolve_model(chosen)
    total = len(cases) * args.runs
    counts = f"{_counted(len(cases), 'query', 'queries')} × {_counted(args.runs, 'run')} = {_counted(total, 'request')}"
    print(f"flue-skills eval: {counts}", file=sys.stderr)

    def progress(outcome: Outcome, done: int, count: int) -> None:
        case = outcome.case
        hits = sum(case.skill in names for names in outcome.fired)
        expect = "should trigger" if case.query.should_trigger else "should not"
        text = case.query.query if len(case.query.query) <= 60 else case.query.query[:59] + "…"
        line = f"[{done}/{count}] {case.skill} ({expect}): {hits}/{len(outcome.fired)} — {text}"
        print(printable(line), file=sys.stderr)

    outcomes, cost = asyncio.run(evaluate(model, turn.system, turn.tools, cases, args.runs, args.jobs, progress))
    report = Report.of(outcomes)
    failed = report.failing(args.fail_under)
    if args.format == "json":
        document = {
            "target": args.target,
            "model": chosen if isinstance(chosen, str) else type(chosen).__name__,
            "runs": args.runs,
            "fail_under": args.fail_under,
            "skills": {name: {k: t.to_dict() for k, t in tallies.items()} for name, tallies in report.skills.items()},
            "queries": [
                {
                    "skill": o.case.skill,
                    "query": o.case.query.query,
                    "should_trigger": o.case.query.should_trigger,
                    "split": o.case.query.split,
                    "fired": [list(names) for names in o.fired],
                }
                for o in outcomes
            ],
            "failed": failed,
            "cost": cost.to_dict(),
        }
        print(printable_json(document))
    else:
        print(table(report))
        print(cost.line())
        for line in failed:
            print(f"below --fail-under: {printable(line)}")
    print(f"flue-skills eval: {cost.line()}", file=sys.stderr)
    return PROBLEMS if failed else OK
