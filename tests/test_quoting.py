"""How a message shows text it did not write (issue 42 item 6): escaped by `printable`, cut by `cut`, quoted by
`quoted`, all three in `format.diagnostics`, and written nowhere else."""

from __future__ import annotations

import re

from support.paths import ROOT

from flue_runtime.format.diagnostics import cut, printable, quoted


def test_cut_keeps_short_text_and_ends_long_text_with_an_ellipsis_within_the_limit() -> None:
    assert cut("abc", 3) == "abc"
    assert cut("abcd", 3) == "ab…"
    assert len(cut("x" * 10_000, 200)) == 200


def test_quoted_is_repr_and_says_how_long_a_cut_text_was() -> None:
    assert quoted("a'b") == repr("a'b")
    assert quoted("x" * 200) == repr("x" * 200)
    assert quoted("x" * 5000) == f"{'x' * 200!r}... (5,000 characters)"
    assert quoted("é" * 30, 10) == f"{'é' * 10!r}... (30 characters)"


def test_a_cut_after_escaping_never_leaves_a_control_character() -> None:
    assert cut(printable("\x1b]52;c;evil\x07" * 50), 40).isprintable()


#: The shapes of the three rules, as written by hand: a cut ending in `…`, a repr cut with its length said, and an
#: escape of each character `isprintable` refuses.
HAND_WRITTEN = {
    "a cut": re.compile(r"""\[\s*:[^\]]+\]\s*\+\s*["'](…|\\u2026|\.\.\.)["']"""),
    "a quote": re.compile(r"""!r}\.\.\. \(\{len\(|\[\s*:\s*\w+\s*\]!r}"""),
    "an escape": re.compile(r"""isprintable\(\) else repr\("""),
}


def test_the_rules_are_written_once() -> None:
    found = []
    for package in ("flue_runtime", "flue_build", "hatch_plugin"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path == ROOT / "flue_runtime" / "format" / "diagnostics.py":
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                found += [
                    f"{path.relative_to(ROOT)}:{number}: {what}" for what, p in HAND_WRITTEN.items() if p.search(line)
                ]
    assert not found, "use format.diagnostics (cut, quoted, printable):\n" + "\n".join(found)
