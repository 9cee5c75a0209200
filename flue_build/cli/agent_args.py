"""The arguments commands share: TARGET (`mcp`, `export`, `eval`, `publish`); `--lock PATH` (`publish`, `lock`);
MODULE:AGENT, `--state KEY=JSON`, `--skill NAME` and `--disable-skill NAME` (`prompt` and `run`)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flue_build.errors import UsageError
from flue_runtime.errors import SkillNotFoundError
from flue_runtime.models.base import Message

if TYPE_CHECKING:  # the harness is imported when the command runs, so other commands start fast
    from flue_runtime.agents.harness import Session

__all__ = [
    "activation",
    "add_agent_arguments",
    "add_lock_argument",
    "add_state_argument",
    "add_store_arguments",
    "add_target_argument",
    "state_item",
]


def add_target_argument(parser: argparse.ArgumentParser) -> None:
    """TARGET, as `flue_build.cli.targets.resolve_target` reads it."""
    parser.add_argument(
        "target",
        metavar="TARGET",
        help="an installed package or distribution, MODULE:AGENT, a project folder, a skill folder or a folder of "
        "skill folders",
    )


def add_lock_argument(parser: argparse.ArgumentParser) -> None:
    """`--lock PATH`: the lock file, as `flue_runtime.format.lockfile.default_lock` finds it unless given."""
    parser.add_argument(
        "--lock",
        type=Path,
        metavar="PATH",
        help="the lock file (default: flue-skills.lock beside the nearest pyproject.toml)",
    )


def add_state_argument(parser: argparse.ArgumentParser, help: str) -> None:
    """`--state KEY=JSON` (repeatable): the `use_state` values an agent renders with."""
    parser.add_argument("--state", action="append", type=state_item, default=[], metavar="KEY=JSON", help=help)


def add_store_arguments(parser: argparse.ArgumentParser, store_help: str, session_help: str) -> None:
    """`--store PATH` (a SQLite file or a `postgresql://` URL, as `Harness(store=...)` takes) and `--session ID`."""
    parser.add_argument("--store", metavar="PATH", help=store_help)
    parser.add_argument("--session", metavar="ID", help=session_help)


def add_agent_arguments(parser: argparse.ArgumentParser, *, optional: bool = False) -> None:
    """MODULE:AGENT (`optional`: None when not given), `--state`, `--skill` and `--disable-skill`."""
    parser.add_argument(
        "agent",
        metavar="MODULE:AGENT",
        nargs="?" if optional else None,
        help="the agent function, e.g. support.agent:support",
    )
    add_state_argument(parser, "a use_state value, as JSON (repeatable): --state vip=true --state tier='\"gold\"'")
    parser.add_argument(
        "--skill",
        action="append",
        default=[],
        dest="skills",
        metavar="NAME",
        help="activate this skill for the model with the first prompt, as prompt(..., activate=[NAME]) does "
        "(repeatable)",
    )
    parser.add_argument(
        "--disable-skill",
        action="append",
        default=[],
        dest="disabled_skills",
        metavar="NAME",
        help="leave this mounted skill out, as Harness(disabled_skills=[NAME]) does (repeatable)",
    )


def state_item(text: str) -> tuple[str, Any]:
    """`KEY=JSON` as (key, value); the value is JSON because a session's state is saved as JSON."""
    key, equals, value = text.partition("=")
    if not equals or not key:
        raise argparse.ArgumentTypeError(f"{text!r}: write KEY=JSON, e.g. vip=true")
    try:
        return key, json.loads(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: the value is not JSON; put a string in double quotes inside the shell's quotes: "
            f"{key}='\"{value}\"'"
        ) from None


def activation(session: Session, names: Sequence[str]) -> list[Message]:
    """The messages `--skill` adds to the first prompt; a name the agent does not mount, or a disabled one, is a
    usage error naming the available skills."""
    try:
        return session.activation_messages(names)
    except SkillNotFoundError as exc:
        raise UsageError(f"--skill: {exc}") from None
