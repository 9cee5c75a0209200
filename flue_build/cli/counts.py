"""Number options: whole numbers (`--workers 4`, `--max-sessions 64`, `eval --runs 3`) and seconds
(`--body-timeout 10`), one parser each, so every command refuses a number the same way."""

from __future__ import annotations

import argparse
from collections.abc import Callable

__all__ = ["count", "seconds"]


def count(one: str, many: str, example: int) -> Callable[[str], int]:
    """An argparse `type`: a whole number of `many` (singular `one`), 1 or more, with an `example` when it is not."""

    def parse(text: str) -> int:
        try:
            number = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r}: give a number of {many}, e.g. {example}") from None
        if number < 1:
            raise argparse.ArgumentTypeError(f"{text!r}: at least 1 {one}")
        return number

    parse.__name__ = many  # argparse names the type in its own messages
    return parse


def seconds(text: str) -> float:
    """An argparse `type`: a positive, finite number of seconds."""
    try:
        number = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of seconds, e.g. 300") from None
    if not 0 < number < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: a positive number of seconds")
    return number
