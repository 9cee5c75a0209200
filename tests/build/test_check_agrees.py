"""`flue-skills check` and the builds of both backends give the same verdicts: every example of the
diagnostics page made from the acme project (every 4xx and 5xx code: what a build says of a project) is
checked and built with hatchling and with setuptools, wheel and sdist, and each gives the same codes.

The skill-level codes (1xx to 3xx) are the hostile corpus's, through every surface
(tests/hostile/test_same_verdict.py). A green `check` must mean a green build, and a red build a red
`check`: a user runs `check` in pre-commit and trusts it.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
from pathlib import Path

import pytest
from support.builds import build
from support.diagnostics_page import PAGE, Example, examples

from flue_build.cli import main

pytestmark = pytest.mark.slow  # two builds per example

PROJECT_EXAMPLES = [e for e in examples(PAGE.read_text(encoding="utf-8")) if e.setup.startswith("# the acme project")]
#: A diagnostic line, as check and the builds print it: `path[:line:col]: CODE error|warning: ...`.
_CODE = re.compile(r"^\S.*?: (FLU\d{3}) (error|warning)", re.MULTILINE)

#: Codes only one side can say: FLU409 is the audit of a finished artifact, which check does not have (the
#: hostile artifact tests show both sides refuse the same projects: tests/hostile/test_hostile_artifacts.py).
ONE_SIDED = {"FLU409"}

_SETUPTOOLS_SYSTEM = (
    '[build-system]\nrequires = ["setuptools>=77", "flue-skills"]\nbuild-backend = "setuptools.build_meta"\n'
)


def about_hatchling(example: Example) -> bool:
    """Whether the example edits hatchling's own configuration (a hook table, a target), which a setuptools
    project does not have."""
    return "hatch" in example.setup.split("# the acme project, then:", 1)[-1]


CASES = [(e, "hatchling") for e in PROJECT_EXAMPLES] + [
    (e, "setuptools") for e in PROJECT_EXAMPLES if not about_hatchling(e)
]


def as_setuptools(folder: Path) -> None:
    """The acme project's pyproject.toml rewritten for setuptools with the plugin."""
    path = folder / "pyproject.toml"
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"\[build-system\]\n(?:.+\n)+", _SETUPTOOLS_SYSTEM, text, count=1)
    text = text.replace("[tool.hatch.build.hooks.flue-skills]\n", "")
    if "[tool.flue]" not in text:
        text += "\n[tool.flue]\n"
    path.write_text(text, encoding="utf-8")


def made(example: Example, folder: Path) -> Path:
    folder.mkdir()
    subprocess.run(["bash", "-euo", "pipefail", "-c", example.setup], cwd=folder, check=True)
    return folder


def checked(folder: Path) -> tuple[int, set[tuple[str, str]]]:
    out = io.StringIO()
    before = os.getcwd()
    try:
        os.chdir(folder)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            status = main(["check", "."])
    finally:
        os.chdir(before)
    return status, set(_CODE.findall(out.getvalue()))


def built(folder: Path, outdir: Path) -> tuple[int, set[tuple[str, str]], str]:
    """The sdist and the wheel, both from the tree (one build: a failed sdist stops it, and says the same)."""
    result = build(folder, "--sdist", "--wheel", outdir=outdir)
    return result.returncode, set(_CODE.findall(result.output)), result.output


@pytest.mark.parametrize(("example", "backend"), CASES, ids=[f"{e.code}-{backend}" for e, backend in CASES])
def test_check_and_the_build_agree(example: Example, backend: str, tmp_path: Path) -> None:
    folder = made(example, tmp_path / "acme")
    if backend == "setuptools":
        as_setuptools(folder)
    status, said = checked(folder)
    build_status, printed, output = built(folder, tmp_path / "dist")
    said = {item for item in said if item[0] not in ONE_SIDED}
    printed = {item for item in printed if item[0] not in ONE_SIDED}
    codes = {code for code, _ in said}
    if "FLU501" in codes:  # the build does not run flue-skills: it can say nothing, and ships raw folders
        assert printed == set() and status != 0, output[-4000:]
    elif "FLU503" in codes:  # the backend's own error stops the build: check names it FLU503
        assert said == {("FLU503", "error")} and build_status != 0, output[-4000:]
    else:
        assert said == printed, output[-4000:]
        assert (status == 0) == (build_status == 0), output[-4000:]
    if backend == "hatchling":
        assert example.code in codes  # the page's example says its code
