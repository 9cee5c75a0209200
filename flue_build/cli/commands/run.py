"""`flue-skills run MODULE:AGENT`: a conversation with the agent in the terminal.

Each line read from standard input is one prompt through the harness (`Session.prompt`, the loop every host
uses); the answer is printed when the turn is done. Tool calls are shown as they happen, where a provider sees
them (`watch`). Sessions live in memory unless `--store` names a SQLite file (or a `postgresql://` URL);
`--session ID` resumes one. The harness saves a session only when a turn is complete, so Ctrl-C in the middle
of a turn (exit 130) leaves it as it was after the last answer; end of input ends the conversation (exit 0).
`--skill NAME` activates a skill with the first prompt, checked before anything is read; `--disable-skill NAME`
leaves a skill out for this run (not saved with the session).

Before a skill's script runs, the terminal is asked, once per script of each skill's content in the session
(`flue_runtime.agents.approval.ask`; with `--store` the answer is kept with the session): a line starting with
`y` runs it, anything else or end of input refuses it; likewise before a call of the agent's tool that runs code
while a remote skill is active. The question is `ScriptRequest.question()`: escaped, bounded parts only.
"""

from __future__ import annotations

import argparse
import sys
import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from flue_build.cli.agent_args import activation, add_agent_arguments, add_store_arguments
from flue_build.cli.exits import OK, PROBLEMS, ctrl_c_ends, error_line
from flue_build.errors import UsageError
from flue_runtime.errors import FlueError
from flue_runtime.format.diagnostics import printable_lines

if TYPE_CHECKING:
    from flue_build.cli import AddParser  # the harness is imported when the command runs, so other commands start fast
    from flue_runtime.agents.approval import ScriptRequest
    from flue_runtime.agents.harness import Harness, Session

__all__ = ["Conversation", "register", "run"]


def register(add_parser: AddParser) -> None:
    parser = add_parser(
        "run",
        description="A conversation with MODULE:AGENT: each line you type is a prompt; tool calls are shown as "
        "they happen. End with Ctrl-D (exit 0); Ctrl-C stops at once (exit 130) and the unfinished turn is "
        "not saved. Imports the module and calls the agent function.",
    )
    add_agent_arguments(parser)
    parser.add_argument(
        "--model",
        metavar="PROVIDER/NAME",
        help="talk to this model instead of the agent's own, e.g. anthropic/claude-haiku-4-5 or openai/gpt-5-mini",
    )
    add_store_arguments(
        parser,
        "keep the session in this SQLite file (or postgresql:// URL); without it nothing is kept",
        "the session to start or resume (needs --store; default: a new id)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.session is not None and args.store is None:
        raise UsageError("--session needs --store PATH: without a store nothing is kept to resume")
    from flue_build.cli.targets import agent_code, load_agent  # here: `check` and `ls` do not pay for it
    from flue_build.cli.watch import Trace, WatchedHarness
    from flue_runtime.agents.approval import ask
    from flue_runtime.agents.hooks import render

    agent = load_agent(args.agent)
    harness = WatchedHarness(
        agent,
        store=args.store,
        model=args.model,
        trace=Trace(sys.stdout),
        disabled_skills=args.disabled_skills,
        approve_scripts=ask(_terminal_approval, name="the terminal's answer"),
    )
    session_id = args.session or f"run-{uuid.uuid4().hex[:12]}"
    with agent_code(args.agent):
        session, resumed = _open(harness, session_id, dict(args.state))
        chosen = args.model or render(agent, session.state).model
        activation(session, args.skills)  # a name the agent does not mount: a usage error now, not at the first prompt
    if chosen is None:
        raise UsageError(
            f"{args.agent} calls no use_model(); pass --model PROVIDER/NAME, e.g. --model anthropic/claude-haiku-4-5"
        )
    harness.resolved_model(chosen)  # a missing SDK or key is reported now, not after the first question
    kept = f"kept in {args.store}" if args.store else "not kept: add --store PATH to keep it"
    print(
        f"{args.agent} with {chosen if isinstance(chosen, str) else type(chosen).__name__}: session {session_id} ({resumed}, {kept}). "
        "End with Ctrl-D; Ctrl-C stops.",
        file=sys.stderr,
    )
    conversation = Conversation(session, args.skills)
    with ctrl_c_ends(lambda: ": the unfinished turn was not saved" if conversation.in_turn else ""):
        conversation.run()
    if args.store and args.session is None:
        print(f"resume with: --store {args.store} --session {session_id}", file=sys.stderr)
    return PROBLEMS if conversation.failed else OK


def _open(harness: Harness, session_id: str, state: dict[str, Any]) -> tuple[Session, str]:
    """The session, and how it starts: a new one is rendered with `state`; a stored one has `state` set on it."""
    from flue_runtime.agents.harness import Session

    stored = harness.store.load(session_id)
    if stored is None:
        session = Session(harness, session_id, harness.store, state=state)
        return session, "new"
    session = harness.session(session_id)
    for key, value in state.items():
        session.set_state(key, value)
    announced = ("catalog_update", "instructions_update")
    turns = sum(1 for m in stored.messages if m["role"] == "user" and not any(m.get(key) for key in announced))
    return session, f"resumed after {turns} prompt{'' if turns == 1 else 's'}"


class Conversation:
    """Prompts with each line read until end of input; whether a turn is running, for Ctrl-C.

    `activate`: skills activated with the first prompt (again with the next, if that turn failed and was not saved).
    """

    def __init__(self, session: Session, activate: Sequence[str] = ()) -> None:
        self.session = session
        self.activate = list(activate)
        self.in_turn = False
        self.failed = False  # some turn failed

    def run(self) -> None:
        interactive = sys.stdin.isatty()
        if interactive:
            try:
                import readline  # noqa: F401 - line editing and history for input()
            except ImportError:
                pass
        while True:
            try:
                line = input("> " if interactive else "")
            except EOFError:
                if interactive:
                    print()
                return
            text = line.strip()
            if text:
                self.turn(text, echo=not interactive)

    def turn(self, text: str, *, echo: bool) -> None:
        if echo:  # a terminal shows what was typed; piped input is echoed, so the output reads as a transcript
            print(f"> {text}", flush=True)
        self.in_turn = True
        try:
            result = self.session.prompt_sync(text, activate=self.activate)
        except Exception as exc:  # the model, the store or the agent's code failed: the turn was not saved
            self.failed = True
            problem = str(exc) if isinstance(exc, FlueError) else f"{type(exc).__name__}: {exc}"
            print(error_line("run", f"{problem}; this turn was not saved"), file=sys.stderr, flush=True)
            return
        finally:
            self.in_turn = False
        self.activate = []
        print(printable_lines(result.text), flush=True)  # the model's words: line breaks kept, nothing raw


def _terminal_approval(request: ScriptRequest) -> bool:
    """Ask on the terminal whether a skill's script may run: a line starting with y says yes."""
    print(f"{request.question()} [y/N] ", end="", file=sys.stderr, flush=True)
    line = sys.stdin.readline()
    if not sys.stdin.isatty():
        print(line.strip(), file=sys.stderr, flush=True)  # piped: the answer shows in the transcript
    return line.strip().lower().startswith("y")
