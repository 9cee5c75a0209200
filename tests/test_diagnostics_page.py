"""The diagnostics reference documents every code, each with an example that is what the code prints."""

from __future__ import annotations

import re

import pytest
from support.diagnostics_page import PAGE, examples, refreshed, sections
from support.site import code_blocks, page

from flue_runtime.format.codes import SUMMARIES
from flue_runtime.format.messages import CODES

#: Codes whose example is shown, not run (each says why on the page); every other example runs.
SHOWN_ONLY = {"FLU110", "FLU308", "FLU409", "FLU413"}


def text() -> str:
    return PAGE.read_text(encoding="utf-8")


def test_every_code_has_a_section_in_order_with_its_severity_summary_and_a_fix() -> None:
    found = sections(text())
    assert [code for code, _, _ in found] == list(CODES)
    for code, start, end in found:
        body = text()[start:end]
        assert f"\n\n{CODES[code].severity}: {SUMMARIES[code]}\n\n" in body, code
        assert "\n**Fix**: " in body, code
        shown = [block for language, block in code_blocks(body) if language == ""]
        assert shown and re.search(rf"^\S.*: {code} {CODES[code].severity}: ", shown[0], re.MULTILINE), code


def test_every_example_runs_but_the_few_that_say_why_not() -> None:
    assert {code for code, _, _ in sections(text())} - {e.code for e in examples(text())} == SHOWN_ONLY


def test_the_shown_only_examples_are_the_ones_the_other_pages_show() -> None:
    """FLU413 is the publishing guide's report (its test builds both distributions); FLU409 the bundles page's."""
    bodies = {code: text()[start:end] for code, start, end in sections(text())}
    for code, other in [("FLU413", "guides/publishing.md"), ("FLU409", "concepts/bundles.md")]:
        [shown] = [block for language, block in code_blocks(bodies[code]) if language == ""]
        assert shown in "".join(block for _, block in code_blocks(page(other))), code


@pytest.mark.slow  # each example's set-up is a bash script
def test_every_example_prints_what_the_page_shows() -> None:
    """Run `python tests/support/diagnostics_page.py` to rewrite the outputs after a message changed."""
    assert refreshed(text()) == text()
