"""The arguments `prompt` and `run` share: MODULE:AGENT and `--state KEY=JSON`."""

from __future__ import annotations

import argparse
import json
from typing import Any

__all__ = ["add_agent_arguments", "state_item"]


def add_agent_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("agent", metavar="MODULE:AGENT", help="the agent function, e.g. support.agent:support")
    parser.add_argument(
        "--state",
        action="append",
        type=state_item,
        default=[],
        metavar="KEY=JSON",
        help="a use_state value, as JSON (repeatable): --state vip=true --state tier='\"gold\"'",
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
