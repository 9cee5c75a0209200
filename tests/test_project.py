"""The project's promises about itself: a light run-time import, a README that tells the truth."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from support.paths import ROOT
from support.site import section

from flue_runtime.format.codes import SUMMARIES
from flue_runtime.format.messages import CODES

HEAVY = ("yaml", "jsonschema", "flue_build", "setuptools", "hatchling")


@pytest.mark.parametrize(
    "statement",
    [
        "import flue_runtime",
        # the run-time API a bundled agent touches: resolution, references, the virtual tree, errors
        "from flue_runtime import skill, markdown, SkillReference, SkillTree, define_skill; "
        "from flue_runtime.errors import MountError, SkillNotFoundError, SkillPathError, UnsafeFileError",
    ],
)
def test_importing_the_runtime_stays_light(statement: str) -> None:
    code = f"import sys; {statement}; print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == ""


def test_the_table_of_codes_loads_no_schema() -> None:
    """Every error imports `format.diagnostics`, and with it the table of codes: the summaries quoting the schema's
    limits are filled in by `format.codes`, so the schema and its validator stay unloaded."""
    code = "import sys, flue_runtime.format.diagnostics; print(sorted(m for m in sys.modules if 'schema' in m))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[]"


def test_the_diagnostics_page_documents_every_diagnostic_code() -> None:
    table = section("reference/diagnostics.md", "## Diagnostic codes")
    rows = re.findall(r"^\| `(FLU\d{3})` \| (error|warning) \| (.+?) \|$", table, re.MULTILINE)
    assert [(code, severity) for code, severity, _ in rows] == [(code, c.severity) for code, c in CODES.items()]
    assert [(code, summary) for code, _, summary in rows] == list(SUMMARIES.items())


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
    assert "uv pip install --python .venv/bin/python -e '.[test]'" in second and "pytest" in second


def test_ci_runs_the_readme_commands() -> None:
    """The second command verbatim; the first is tests/test_example.py's (the whole line, literally, in a fresh copy
    of the checkout), so CI does not run the example twice."""
    first, second = quick_start()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert second in ci.splitlines()
    assert first.rsplit(" && ", 1)[1] not in ci


def test_the_site_gives_the_readme_quick_start() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = re.search(r"## Quick start.*?```bash\n(.*?)```", readme, re.DOTALL)
    shown = re.search(r"```bash\n(.*?)```", section("getting-started.md", "## Quick start"), re.DOTALL)
    assert commands is not None and shown is not None
    assert shown.group(1) == commands.group(1)


@pytest.mark.slow
def test_the_code_is_mypy_clean() -> None:
    # No cache written (/dev/null): a fresh one would be of no use to the next run, and writing it costs a second.
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", os.devnull], capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("command", [["check", "."], ["format", "--check", "."]])
def test_the_tree_is_ruff_clean(command: list[str]) -> None:
    proc = subprocess.run([sys.executable, "-m", "ruff", *command], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _error_rows(table: str) -> dict[str, str]:
    return dict(re.findall(r"^\| `(\w+)` \| (.*) \|$", table, re.MULTILINE))


def _errors_of(module: object) -> list[str]:
    return sorted(
        name for name, value in vars(module).items() if isinstance(value, type) and issubclass(value, BaseException)
    )


def test_the_errors_page_lists_every_error() -> None:
    """The run-time errors are in `flue_runtime.errors`, each a FlueError (the warnings a UserWarning), the bases also
    exported by flue_runtime; the build and command-line errors in `flue_build.errors`, not exported by flue_runtime.
    The errors page lists each where it lives."""
    import flue_runtime
    from flue_build import errors as build_errors
    from flue_runtime import errors

    page = section("reference/errors.md", "## Errors")
    runtime_section, build_section = page.split("### Build and command-line errors", 1)
    runtime_rows, build_rows = _error_rows(runtime_section), _error_rows(build_section)
    defined = _errors_of(errors)
    assert sorted(runtime_rows) == defined == sorted(errors.__all__)
    for name in defined:
        kind = UserWarning if name.endswith("Warning") else errors.FlueError
        assert issubclass(getattr(errors, name), kind), name
        assert name not in flue_runtime.__all__ or getattr(flue_runtime, name) is getattr(errors, name), name
    built = [name for name in _errors_of(build_errors) if name != "FlueError"]
    assert sorted(build_rows) == built == sorted(build_errors.__all__)
    for name in built:
        assert issubclass(getattr(build_errors, name), errors.FlueError), name
        assert name not in flue_runtime.__all__ and not hasattr(flue_runtime, name), name
    # a base class's row names only its own subclasses
    for name, text in runtime_rows.items():
        if text.startswith("base class of"):
            for sub in re.findall(r"`(\w+Error)`", text.partition(": ")[2]):
                if sub in runtime_rows:
                    assert issubclass(getattr(errors, sub), getattr(errors, name)), (sub, name)


def test_the_error_bases_group_the_runtime_errors() -> None:
    """Every run-time error is a SkillError, MountError or AgentError, or one of the few that stand alone."""
    from flue_runtime import errors

    bases = (errors.SkillError, errors.MountError, errors.AgentError)
    alone = {"FlueError", "SkillError", "MountError", "AgentError", "ConfigError", "ExportError", "DestinationError"}
    alone |= {"LockFileError", "PublishError", "HostedServiceError"}  # the lock file and publishing: neither kind
    alone.add("SkillWarning")  # a warning: filtered, not caught
    grouped = {name for name in errors.__all__ if issubclass(getattr(errors, name), bases)}
    assert grouped | alone == set(errors.__all__)


def test_the_type_checking_view_equals_the_lazy_export_table() -> None:
    """`flue_runtime._LAZY` is the one table of lazily loaded names; the `if TYPE_CHECKING:` imports that let type
    checkers see them must name exactly the same modules and names, each re-exported as itself."""
    import ast
    import importlib

    import flue_runtime

    tree = ast.parse((ROOT / "flue_runtime" / "__init__.py").read_text(encoding="utf-8"))
    blocks = [
        node
        for node in tree.body
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
    ]
    assert len(blocks) == 1
    seen: dict[str, str] = {}
    for node in blocks[0].body:
        assert isinstance(node, ast.ImportFrom) and node.module is not None, ast.dump(node)
        for alias in node.names:
            assert alias.asname == alias.name, f"{alias.name} must be imported `as {alias.name}` to be re-exported"
            assert alias.name not in seen, alias.name
            seen[alias.name] = node.module
    assert seen == flue_runtime._LAZY
    for name, module in flue_runtime._LAZY.items():
        assert getattr(flue_runtime, name) is getattr(importlib.import_module(module), name)
