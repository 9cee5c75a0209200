"""Token counts for `flue-skills prompt`: a real tokenizer when one is installed, else an estimate that says so.

o200k_base is the encoding of OpenAI's current models; other providers' tokenizers differ
by some percent, so the count is a guide for tuning descriptions, not a bill.
"""

from __future__ import annotations

import importlib
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["CHARS_PER_TOKEN", "Counter", "ENCODING", "TOKENIZERS", "counter"]


ENCODING = "o200k_base"
#: Tried in order: bpe-openai embeds its tables (works offline); tiktoken downloads them on first use.
TOKENIZERS = ("bpe_openai", "tiktoken")
#: The estimate when no tokenizer loads: English prose and JSON run at about four characters a token.
CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class Counter:
    """Counts tokens; `name` says with what, and `exact` is False for the estimate."""

    name: str
    exact: bool
    count: Callable[[str], int]


def counter(tokenizers: Sequence[str] = TOKENIZERS) -> Counter:
    """The first of `tokenizers` (module names) that loads the o200k_base encoding, else the estimate."""
    for module_name in tokenizers:
        try:
            with warnings.catch_warnings():  # a tokenizer's own deprecated calls are not the user's concern
                warnings.simplefilter("ignore", DeprecationWarning)
                module = importlib.import_module(module_name)
                encoding = module.get_encoding(ENCODING)
        except Exception:  # not installed, or its tables cannot be loaded (tiktoken offline): try the next
            continue
        version = getattr(module, "__version__", "")
        name = f"{module_name.replace('_', '-')} {version}".strip()

        def count(text: str, encoding: object = encoding) -> int:
            # Special-token text (`<|endoftext|>`) in a prompt is ordinary text to the model.
            return len(encoding.encode(text, disallowed_special=()))  # type: ignore[attr-defined]

        return Counter(f"{name}, {ENCODING}", True, count)
    return Counter(
        f"estimate: characters / {CHARS_PER_TOKEN}; install bpe-openai or tiktoken for an exact {ENCODING} count",
        False,
        lambda text: math.ceil(len(text) / CHARS_PER_TOKEN),
    )
