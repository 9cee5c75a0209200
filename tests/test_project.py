"""The project's promises about itself: a light run-time import, a README that tells the truth."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT
from support.site import section

from flue_runtime.format.diagnostics import CODES

HEAVY = ("yaml", "jsonschema", "flue_build", "setuptools", "hatchling")


@pytest.mark.parametrize(
    "statement",
    [
        "import flue_runtime",
        # the run-time API a bundled agent touches: resolution, references, the virtual tree, errors
        "from flue_runtime import skill, markdown, SkillReference, SkillTree, define_skill, "
        "SpecError, MissingBuildHookError, UnknownPackageError, BundleError, SkillPathError",
    ],
)
def test_importing_the_runtime_stays_light(statement: str) -> None:
    code = f"import sys; {statement}; print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == ""


def test_the_diagnostics_page_documents_every_diagnostic_code() -> None:
    table = section("reference/diagnostics.md", "## Diagnostic codes")
    rows = re.findall(r"^\| `(FLU\d{3})` \| (error|warning) \| (.+?) \|$", table, re.MULTILINE)
    assert [(code, severity) for code, severity, _ in rows] == [(c.code, str(c.severity)) for c in CODES.values()]
    assert all(summary == CODES[code].summary for code, _, summary in rows)


def test_readme_quick_start_is_two_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    assert block is not None
    commands = [line for line in block.group(1).splitlines() if line.strip()]
    assert len(commands) == 2
    assert "pytest" in commands[1]


def test_the_site_gives_the_readme_quick_start() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = re.search(r"## Quick start.*?```bash\n(.*?)```", readme, re.DOTALL)
    shown = re.search(r"```bash\n(.*?)```", section("getting-started.md", "## Quick start"), re.DOTALL)
    assert commands is not None and shown is not None
    assert shown.group(1) == commands.group(1)


def test_ci_runs_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    test_command = re.search(r"## Quick start.*?```bash\n.*?\n(.*?)\n```", readme, re.DOTALL)
    assert test_command is not None
    assert test_command.group(1).strip() in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_code_is_mypy_clean(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache")], capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("command", [["check", "."], ["format", "--check", "."]])
def test_the_tree_is_ruff_clean(command: list[str]) -> None:
    proc = subprocess.run([sys.executable, "-m", "ruff", *command], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_errors_page_lists_every_error() -> None:
    """One module holds every error, each a FlueError and exported by flue_runtime; the errors page lists exactly them."""
    import flue_runtime
    from flue_runtime import errors

    listed = re.findall(r"^\| `(\w+)` \|", section("reference/errors.md", "## Errors"), re.MULTILINE)
    defined = sorted(
        name for name, value in vars(errors).items() if isinstance(value, type) and issubclass(value, BaseException)
    )
    assert sorted(listed) == defined == sorted(errors.__all__)
    for name in defined:
        assert issubclass(getattr(errors, name), errors.FlueError), name
        assert getattr(flue_runtime, name) is getattr(errors, name), name
