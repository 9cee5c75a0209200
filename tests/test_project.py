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


def quick_start() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"^## Quick start\n.*?```bash\n(.*?)```", readme, re.DOTALL | re.MULTILINE)
    assert block is not None
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_readme_quick_start_is_two_commands() -> None:
    """The first installs the run time and the hook only (no extra: tests/test_example.py runs it in a fresh
    checkout and checks what it installed); the second installs the test extra and runs the tests."""
    first, second = quick_start()
    assert "pip install -e . -e ./hatch_plugin &&" in first and "[" not in first
    assert first.endswith("examples/support-agent/run.py")
    assert "pip install -e '.[test]'" in second and "pytest" in second


def test_ci_runs_the_readme_commands() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert all(command in ci for command in quick_start())


def test_the_site_gives_the_readme_quick_start() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = re.search(r"## Quick start.*?```bash\n(.*?)```", readme, re.DOTALL)
    shown = re.search(r"```bash\n(.*?)```", section("getting-started.md", "## Quick start"), re.DOTALL)
    assert commands is not None and shown is not None
    assert shown.group(1) == commands.group(1)


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
