"""`flue-skills eval TARGET`: does the model activate the right skill? Trigger rates from each skill's eval set.

What is asked and the report are `flue_runtime.integrations.evaluation`'s; this prints them. A MODULE:AGENT
target is the agent as it stands (its instructions, tools and the skills it mounts with the `--state` values);
any other target (an installed package or distribution, a project folder, whose skills are those `check` finds,
or a folder of skills: `targets.resolve_target`) is an agent that mounts just those skills. `--fail-under RATE`
exits 1 when a skill's trigger rate, or 1 minus its false-trigger rate, over both splits is below RATE. Queries,
and the skills a model named, are printed through `format.diagnostics.printable`: an eval set or a model cannot
send the terminal an escape sequence.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING

from flue_build.cli.agent_args import add_state_argument, add_target_argument
from flue_build.cli.counts import count
from flue_build.cli.exits import OK, PROBLEMS
from flue_build.errors import UsageError
from flue_runtime.format.diagnostics import cut, printable, printable_json
from flue_runtime.format.triggers import SPLITS, TRIGGERS_FILE

if TYPE_CHECKING:  # the harness is imported when the command runs, so other commands start fast
    from flue_build.cli import AddParser
    from flue_runtime.integrations.evaluation import CaseOutcome, Cost, EvalReport, Evaluation

__all__ = ["register", "run"]


def register(add_parser: AddParser) -> None:
    parser = add_parser(
        "eval",
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


def run(args: argparse.Namespace) -> int:
    from flue_runtime.errors import SkillNotFoundError

    evaluation = _evaluation(args)
    try:
        cases, skipped = evaluation.cases(args.skills)
    except SkillNotFoundError as exc:
        raise UsageError(f"--skill: {exc}") from None
    for name in skipped:
        print(f"flue-skills eval: {printable(name)}: no {TRIGGERS_FILE}, not evaluated", file=sys.stderr)
    if not cases:
        raise UsageError(f"{args.target}: no skill has an {TRIGGERS_FILE} to evaluate")
    chosen = args.model or evaluation.model
    if chosen is None:
        raise UsageError("--model: name the model to ask, like anthropic/claude-haiku-4-5 (the target has none)")
    total = len(cases) * args.runs
    counts = f"{_counted(len(cases), 'query', 'queries')} × {_counted(args.runs, 'run')} = {_counted(total, 'request')}"
    print(f"flue-skills eval: {counts}", file=sys.stderr)
    report = asyncio.run(evaluation.run(cases, chosen, runs=args.runs, jobs=args.jobs, progress=_progress))
    failed = report.failing(args.fail_under)
    if args.format == "json":
        model = chosen if isinstance(chosen, str) else type(chosen).__name__
        head = {"target": args.target, "model": model, "runs": args.runs, "fail_under": args.fail_under}
        document = report.to_dict()
        cost = document.pop("cost")
        print(printable_json({**head, **document, "failed": failed, "cost": cost}))
    else:
        print(table(report))
        print(_cost_line(report.cost))
        for line in failed:
            print(f"below --fail-under: {printable(line)}")
    print(f"flue-skills eval: {_cost_line(report.cost)}", file=sys.stderr)
    return PROBLEMS if failed else OK


def _evaluation(args: argparse.Namespace) -> Evaluation:
    """What TARGET asks: a MODULE:AGENT rendered with `--state`, or an agent mounting the skills TARGET names."""
    from flue_build.cli.targets import agent_code, load_agent, names_agent, resolve_target
    from flue_runtime.integrations.evaluation import Evaluation

    if not names_agent(args.target):
        if args.state:
            raise UsageError("--state renders a MODULE:AGENT; this target is not one")
        return Evaluation.of(resolve_target(args.target).skills)
    function = load_agent(args.target)
    with agent_code(args.target):
        return Evaluation.of(function, dict(args.state))


def _progress(outcome: CaseOutcome, done: int, count: int) -> None:
    case = outcome.case
    expect = "should trigger" if case.query.should_trigger else "should not"
    text = cut(case.query.query, 60)
    hits = sum(case.skill in names for names in outcome.fired)
    line = f"[{done}/{count}] {case.skill} ({expect}): {hits}/{len(outcome.fired)} — {text}"
    print(printable(line), file=sys.stderr)


def table(report: EvalReport) -> str:
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


def _percent(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.0%}"


def _cost_line(cost: Cost) -> str:
    tokens = (
        f", {cost.input_tokens:,} tokens in and {cost.output_tokens:,} out"
        if cost.reported
        else ", tokens not reported by the model"
    )
    return f"cost: {cost.requests} request{'' if cost.requests == 1 else 's'}{tokens}, {cost.seconds:.1f}s"


def _counted(count: int, one: str, many: str = "") -> str:
    """`1 run`, `3 runs`: a count and its noun, singular for one."""
    return f"{count:,} {one if count == 1 else many or one + 's'}"
