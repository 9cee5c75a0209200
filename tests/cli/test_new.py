"""`flue-skills new NAME`: the SKILL.md it writes, as a run time reads it."""

from __future__ import annotations

from pathlib import Path

import pytest

from flue_build.cli import main
from flue_runtime.mount.disk import load_skill_dir


def test_the_scaffolded_instructions_start_with_their_heading(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The body begins right after the closing `---` line (as gray-matter and the bundle's offsets read it), so the
    template has no blank line there: the instructions a model is given start with the heading (issue 31)."""
    assert (
        main(["new", "invoice-helper", "--dir", str(tmp_path), "--description", "Draft invoices. Use for billing."])
        == 0
    )
    capsys.readouterr()
    skill = load_skill_dir(tmp_path / "invoice-helper")
    assert skill.instructions.startswith("# Invoice helper\n\nInstructions the agent follows"), skill.instructions
    assert skill.instructions.endswith("(for example `reference.md`).\n")
