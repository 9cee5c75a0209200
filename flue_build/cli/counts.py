"""Whole-number options (`--workers 4`, `--max-sessions 64`, `eval --runs 3`): one parser, so every command
refuses a count the same way."""

from __future__ import annotations

import argparse
from collections.abc import Callable

__all__ = ["count"]


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
