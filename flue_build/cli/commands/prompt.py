"""`flue-skills prompt MODULE:AGENT`: what the agent sends on its first model turn, with its size in tokens.

Rendered by the harness itself (`flue_runtime.agents.first_turn`, with the `--state` values; `--disable-skill` as
`Harness(disabled_skills=...)`); `--skill` adds the activations `prompt(..., activate=...)` puts after the user's
message. No model is called and nothing is saved: this is how a user sees the catalog a model reads and tunes the
descriptions in it. What a skill, a tool or the agent wrote is printed through `format.diagnostics.printable`, so
a description cannot drive the terminal; `--raw` prints the exact text, for a file; `--format json` escapes them
as JSON does, the same strings once parsed.

`--provenance --store PATH --session ID` shows instead what a stored session's model saw, turn by turn
(`Session.provenance()`): each turn's catalog (name, origin, content id) and every activation, read and script
run with the digests of what was served. It reads the store only, never creates one; no MODULE:AGENT is needed.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from flue_build.cli.agent_args import activation, add_agent_arguments, add_store_arguments
from flue_build.cli.exits import OK
from flue_build.errors import UsageError
from flue_runtime.format.diagnostics import printable, printable_json, printable_lines
from flue_runtime.models.base import Message

if TYPE_CHECKING:
    from flue_build.cli import AddParser  # the harness is imported when the command runs, so other commands start fast
    from flue_runtime.agents.provenance import Turn

__all__ = ["provenance_text", "register", "run"]


def register(add_parser: AddParser) -> None:
    parser = add_parser(
        "prompt",
        description="Render MODULE:AGENT as the harness does for a new session (with the --state values) and "
        "print its system prompt (instructions and skill catalog) and tool definitions, with token counts; "
        "with --skill, the activations that follow the user's message too. "
        "Imports the module and calls the agent function; no model is called. "
        "With --provenance, print instead what a session kept in --store saw, turn by turn (no MODULE:AGENT needed).",
    )
    add_agent_arguments(parser, optional=True)
    parser.add_argument(
        "--provenance",
        action="store_true",
        help="print the stored session's turns: each turn's catalog (name, origin, digest) and every activation, "
        "read and script run with the digests of what was served (needs --store and --session)",
    )
    add_store_arguments(
        parser,
        "with --provenance: the SQLite file (or postgresql:// URL) the session is kept in",
        "with --provenance: the session whose turns to print",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument(
        "--raw",
        action="store_true",
        help="print the text exactly as the model gets it, control characters and all (for a file); without it "
        "they are shown escaped, so that no skill's text can drive the terminal",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.raw and (args.format == "json" or args.provenance):
        raise UsageError(
            "--raw prints the first turn's text as the model gets it; --format json is exact already (its escapes "
            "read back as the same strings), and --provenance shows what a store holds, escaped"
        )
    if args.agent is None and not args.provenance:
        raise UsageError(
            "name the agent as MODULE:AGENT, like support.agent:support (or read a stored session's "
            "turns with --provenance --store PATH --session ID)"
        )
    if args.provenance or args.store is not None or args.session is not None:
        return show_provenance(args)
    from flue_build.cli.targets import agent_code, load_agent  # here: `check` and `ls` do not pay for it
    from flue_build.cli.tokens import counter
    from flue_runtime.agents.first_turn import first_turn

    agent = load_agent(args.agent)
    state = dict(args.state)
    with agent_code(args.agent):
        turn = first_turn(agent, state, args.disabled_skills)
        activated = _activated(activation(turn.session, args.skills))
    tokens = counter()
    system_tokens = tokens.count(turn.system)
    # A provider sends each tool as JSON of its own shape; the definition's compact JSON is close to it.
    tool_tokens = [tokens.count(json.dumps(tool, ensure_ascii=False)) for tool in turn.tools]
    activation_tokens = [tokens.count(text) for _, text in activated]
    total = system_tokens + sum(tool_tokens) + sum(activation_tokens)
    if args.format == "json":
        report = {
            "agent": args.agent,
            "state": state,
            "disabled_skills": args.disabled_skills,
            "system": turn.system,
            "tools": turn.tools,
            "activations": [{"skill": name, "content": text} for name, text in activated],
            "tokens": {
                "system": system_tokens,
                "tools": dict(zip((tool["name"] for tool in turn.tools), tool_tokens)),
                "activations": dict(zip((name for name, _ in activated), activation_tokens)),
                "total": total,
                "tokenizer": tokens.name,
                "exact": tokens.exact,
            },
        }
        print(printable_json(report))
        return OK
    about = "" if tokens.exact else "about "
    lines = [f"=== system prompt: {about}{system_tokens:,} tokens ===", turn.system.removesuffix("\n")]
    for tool, count in zip(turn.tools, tool_tokens):
        lines.append(f"=== tool {tool['name']}: {about}{count:,} tokens ===")
        lines.append(tool["description"])
        lines.append("parameters: " + json.dumps(tool["parameters"], ensure_ascii=False))
    for (name, text), count in zip(activated, activation_tokens):
        lines.append(f"=== activation of {name} (--skill), after the user's message: {about}{count:,} tokens ===")
        lines.append(text)
    tools = f"{len(turn.tools)} tool{'' if len(turn.tools) == 1 else 's'}"
    plural = "" if len(activated) == 1 else "s"
    activations = f", {sum(activation_tokens):,} in {len(activated)} activation{plural}" if activated else ""
    lines.append(
        f"=== total: {about}{total:,} tokens: {system_tokens:,} in the system prompt, {sum(tool_tokens):,} in "
        f"{tools} (as JSON){activations}; {tokens.name} ==="
    )
    text = "\n".join(lines)
    print(text if args.raw else printable_lines(text))
    return OK


def _activated(messages: list[Message]) -> list[tuple[str, str]]:
    """Each explicitly activated skill's name and the activation text the model reads."""
    names = {call["id"]: call["arguments"]["name"] for m in messages for call in m.get("tool_calls", ())}
    return [(names[m["tool_call_id"]], m["content"]) for m in messages if m["role"] == "tool"]


def show_provenance(args: argparse.Namespace) -> int:
    """`--provenance`: the turns a stored session recorded, read from the store and nothing else."""
    from flue_runtime.agents.stores import open_store

    if not (args.provenance and args.store and args.session):
        raise UsageError("--provenance, --store PATH and --session ID go together: they print a stored session's turns")
    if "://" not in args.store and not os.path.isfile(args.store):
        raise UsageError(
            f"--store {args.store}: no such file (give the SQLite file or postgresql:// URL the agent used)"
        )
    store = open_store(args.store)
    try:
        if store.load(args.session) is None:
            raise UsageError(f"--session {args.session}: the store holds no such session")
        turns = store.turns(args.session)
    finally:
        getattr(store, "close", lambda: None)()  # (the store protocol leaves closing out: a store may be shared)
    document = {"session": args.session, "turns": [turn.to_dict() for turn in turns]}
    print(printable_json(document) if args.format == "json" else provenance_text(args.session, turns))
    return OK


def provenance_text(session: str, turns: Sequence[Turn]) -> str:
    """A stored session's turns for a terminal: a block per model turn, its catalog and what it was served (a
    digest cut to 12 hex digits, as git shows a commit: `--format json` has them whole)."""
    plural = "" if len(turns) == 1 else "s"
    lines = [f"session {printable(session)}: {len(turns)} model turn{plural} recorded"]
    for number, turn in enumerate(turns, 1):
        at = datetime.fromtimestamp(turn.at, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        lines.append(f"turn {number} (step {turn.step} of its prompt, answer at message {turn.message}, {at})")
        lines.append(f"  catalog: {len(turn.catalog)} skill{'' if len(turn.catalog) == 1 else 's'}")
        # (a server's identity beside the origin shown: two servers one text shows told apart)
        lines += _columns(
            [
                (e.name, e.digest[:12] or "-", e.origin + (f" (server {e.server})" if e.server is not None else ""))
                for e in turn.catalog
            ]
        )
        lines.append("  served:" + ("" if turn.served else " nothing"))
        rows = [
            (
                s.kind + (" (explicit)" if s.explicit else ""),
                f"{s.skill}/{s.path}",
                f"file {s.sha256[:12] or '-'}",
                f"skill {s.digest[:12] or '-'}",
                s.tool_call_id or "-",
            )
            for s in turn.served
        ]
        lines += _columns(rows)
    return "\n".join(lines)


def _columns(rows: Sequence[tuple[str, ...]]) -> list[str]:
    """`rows` as aligned lines, indented under their heading; everything stored is shown through `printable`."""
    shown = [tuple(printable(cell) for cell in row) for row in rows]
    widths = [max(len(row[i]) for row in shown) for i in range(len(shown[0]))] if shown else []
    return ["    " + "  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in shown]
