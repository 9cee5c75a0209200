"""The build sees `flue-skills new`'s placeholder description too: a warning, an error under `[tool.flue] strict`."""

from __future__ import annotations

import pytest
from support.builds import build, wheel_files
from support.projects import ProjectFactory

from flue_runtime.format.validate import PLACEHOLDER_DESCRIPTION

SKILL = "src/hatch_src_demo/skills/refunds/SKILL.md"
SHOWN = "src/hatch_src_demo/skills/refunds/SKILL.md:3:14: FLU213"


@pytest.mark.slow
def test_the_build_warns_and_strict_refuses(project: ProjectFactory) -> None:
    root = project("hatch-src")
    skill = root / SKILL
    skill.write_text(
        skill.read_text(encoding="utf-8").replace(
            "Handle refund requests under the shop's refund policy. Use when a customer asks for money back.",
            PLACEHOLDER_DESCRIPTION,
        ),
        encoding="utf-8",
    )
    warned = build(root, "--wheel")
    assert warned.returncode == 0, warned.output
    assert f"{SHOWN} warning: description is still the placeholder `flue-skills new` wrote" in warned.output
    packed = [data for name, data in wheel_files(warned.wheel).items() if name.endswith("/SKILL.md")]
    assert any(PLACEHOLDER_DESCRIPTION.encode() in data for data in packed)  # a warning: the skill ships

    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8") + "strict = true\n", encoding="utf-8")
    refused = build(root, "--wheel", outdir=root / "strict-dist")
    assert refused.returncode != 0
    assert f"{SHOWN} error: description is still the placeholder" in refused.output
    assert refused.artifacts(".whl") == []
