"""Random files against the secrets scan: a key or token anywhere in them is found, whole or in any chunks.

Each file is pieces of what makes the scan work hardest (prose, long identifiers, paths,
lists of digests, wrapped base64, key headers quoted in prose, placeholders) around one
planted secret (a key in one of `planted.CONTAINERS`, or a token in one of its contexts),
or around none. Read whole and fed in random chunks, the scan must report the same
findings at the same lines and columns: the secret when there is one, nothing when there is none.
"""

from __future__ import annotations

import base64
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.hostile import planted

from flue_runtime.format.secrets import ContentScan, Finding, scan_content, scan_findings

pytestmark = pytest.mark.slow  # hypothesis campaigns

FILLERS = [
    "The quick brown fox jumps over the lazy dog, again.\n",
    "ordinary_identifier_of_some_length = compute_the_total(items)\n",
    "/usr/local/lib/python3.11/site-packages/flue_runtime/format/secrets.py\n",
    "\n",
    *planted.PROSE.values(),
    *planted.PLACEHOLDERS.values(),
]
KEY = planted.shaped_pem(random.Random(3))


def filler(rng: random.Random, size: int) -> str:
    out: list[str] = []
    while sum(map(len, out)) < size:
        kind = rng.randrange(len(FILLERS) + 2)
        if kind == len(FILLERS):
            out.append(rng.randbytes(32).hex() + "\n")
        elif kind == len(FILLERS) + 1:
            out.append(base64.encodebytes(rng.randbytes(rng.randrange(1, 400))).decode())
        else:
            out.append(FILLERS[kind])
    return "".join(out)


def secret(rng: random.Random, kind: int) -> str:
    if kind < len(planted.CONTAINERS):
        return planted.CONTAINERS[list(planted.CONTAINERS)[kind]](KEY)
    kind -= len(planted.CONTAINERS)
    token = planted.TOKENS[list(planted.TOKENS)[kind % len(planted.TOKENS)]](rng)
    return list(planted.TOKEN_CONTEXTS.values())[kind // len(planted.TOKENS)](token)


def chunked(data: bytes, rng: random.Random) -> tuple[Finding, ...]:
    scan = ContentScan()
    at = 0
    while at < len(data):
        step = rng.randrange(1, 40_000)
        scan.feed(data[at : at + step])
        at += step
    scan.finish()
    return scan.findings


KINDS = len(planted.CONTAINERS) + len(planted.TOKENS) * len(planted.TOKEN_CONTEXTS)


@given(
    seed=st.integers(0, 2**32),
    kind=st.integers(-1, KINDS - 1),
    before=st.integers(0, 60_000),
    after=st.integers(0, 20_000),
)
def test_a_secret_anywhere_is_found_whole_or_chunked_and_nothing_else_is(
    seed: int, kind: int, before: int, after: int
) -> None:
    rng = random.Random(seed)
    planted_here = "" if kind < 0 else secret(rng, kind)
    data = (filler(rng, before) + planted_here + filler(rng, after)).encode()
    whole = scan_content(data)
    assert (whole is not None) == bool(planted_here), (kind, whole)
    assert chunked(data, rng) == scan_findings(data)  # every finding, at the same line and column


@given(seed=st.integers(0, 2**32), kinds=st.lists(st.integers(0, KINDS - 1), min_size=2, max_size=8))
def test_every_secret_of_a_file_is_found_once_whole_or_chunked(seed: int, kinds: list[int]) -> None:
    """Several secrets in one file (issue 44, item 8): each found once, at the same place read whole or in chunks."""
    rng = random.Random(seed)
    data = "".join(filler(rng, rng.randrange(0, 20_000)) + secret(rng, kind) for kind in kinds).encode()
    whole = scan_findings(data)
    assert sum(found.count for found in whole) == len(kinds), (kinds, whole)
    assert chunked(data, rng) == whole
