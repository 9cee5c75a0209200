"""The troubleshooting page (docs/troubleshooting.md) shows what `flue-skills check` prints: each output its "Before
you build" part shows is made again here, from the tutorial's project (docs/tutorial.md, hatchling) with the
section's one mistake, and compared; each section links the codes it names to the diagnostics reference."""

from __future__ import annotations

import contextlib
import importlib.abc
import io
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.site import blocks, headings, section
from support.tutorial import project_files

PAGE = "troubleshooting.md"

#: Where hatchling cannot be imported (`flue-skills check` run where only setuptools is installed).
NO_HATCHLING = "no hatchling"

#: Each section's shown outputs, in order: the mistake, made in the tutorial's project by a bash script, and
#: the exit status of `flue-skills check .` there.
SITUATIONS: dict[str, list[tuple[str, int]]] = {
    "### Exit status 2: the build backend is not installed": [(NO_HATCHLING, 2)],
    "### FLU501: the build does not run flue-skills": [
        (r"sed -i '/^\[tool.hatch.build.hooks.flue-skills\]/d' pyproject.toml", 1),
        ("sed -i 's/hooks.flue-skills/hooks.flue_skills/' pyproject.toml", 1),
    ],
    "### FLU502: flue-skills is not a dependency": [("sed -i '/^dependencies = /d' pyproject.toml", 1)],
    "### FLU404: a skill folder is not found": [("sed -i 's#/invoices/#/invoice/#' src/acme_helper/__init__.py", 1)],
    "### FLU415: a relative path read as a package": [
        ("sed -i 's#\"./skills/#\"skills/#' src/acme_helper/__init__.py", 1)
    ],
    "### FLU405: a package not importable at build time": [
        ("""echo 'REVIEW = skill("acme_skills/review/SKILL.md")' >> src/acme_helper/__init__.py""", 0)
    ],
    "### FLU410: a skill folder no code references": [
        (
            "mkdir src/acme_helper/skills/drafts && sed 's/name: invoices/name: drafts/' "
            "src/acme_helper/skills/invoices/SKILL.md > src/acme_helper/skills/drafts/SKILL.md",
            0,
        )
    ],
    "### FLU302, FLU303, FLU315: a secret in a skill folder": [
        ("echo 'API_KEY=test' > src/acme_helper/skills/invoices/.env", 1),
        (
            "echo 'API_KEY=test' > src/acme_helper/skills/invoices/.env\n"
            "printf '\\n[tool.flue]\\nallow = [\"src/acme_helper/skills/invoices/.env\"]\\n' >> pyproject.toml",
            0,
        ),
    ],
    "### FLU205: the name differs from the folder": [
        ("sed -i 's/^name: invoices/name: invoice-totals/' src/acme_helper/skills/invoices/SKILL.md", 1)
    ],
    "### FLU201: a required field is missing": [
        ("sed -i '/^description: /d' src/acme_helper/skills/invoices/SKILL.md", 1)
    ],
}


def shown() -> dict[str, list[str]]:
    """What each `###` section before the build shows `check` printing (its plain blocks), by its heading line."""
    text = section(PAGE, "## Before you build")
    marks = headings(text)
    found: dict[str, list[str]] = {}
    for block in blocks(text):
        if block.language == "":
            heading = [line for index, level, line in marks if index < block.line and level <= 3][-1]
            found.setdefault(heading, []).append(block.code)
    return found


def test_every_output_shown_has_its_situation() -> None:
    assert {heading: len(outputs) for heading, outputs in shown().items()} == {
        heading: len(situations) for heading, situations in SITUATIONS.items()
    }


def test_each_code_a_section_names_links_to_its_reference() -> None:
    for heading in SITUATIONS:
        body = section(PAGE, heading)
        for code in re.findall(r"FLU\d{3}", heading):
            assert f"(reference/diagnostics.md#{code.lower()})" in body, f"{heading}: {code}"


class _Missing(importlib.abc.MetaPathFinder):
    """Imports of `name` fail as they do where it is not installed."""

    def __init__(self, name: str) -> None:
        self.name = name

    def find_spec(self, fullname: str, path: object, target: object = None) -> None:
        if fullname.split(".")[0] == self.name:
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        return None


@contextlib.contextmanager
def not_installed(name: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for module in [module for module in sys.modules if module.split(".")[0] == name]:
        monkeypatch.delitem(sys.modules, module)
    monkeypatch.setattr(sys, "meta_path", [_Missing(name), *sys.meta_path])
    yield


def tutorial_project(folder: Path) -> None:
    for path, text in project_files("tutorial.md", "hatchling").items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text, encoding="utf-8")


def check(folder: Path) -> tuple[int, str]:
    """`flue-skills check .` in `folder`, in this process: its exit status and what it printed."""
    from flue_build.cli import main

    out = io.StringIO()
    with contextlib.chdir(folder), contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        status = main(["check", "."])
    return status, out.getvalue()


@pytest.mark.parametrize(
    ("heading", "number"), [(heading, number) for heading, found in SITUATIONS.items() for number in range(len(found))]
)
def test_the_page_shows_what_check_prints(
    heading: str, number: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mistake, status = SITUATIONS[heading][number]
    tutorial_project(tmp_path)
    with contextlib.ExitStack() as stack:
        if mistake == NO_HATCHLING:
            stack.enter_context(not_installed("hatchling", monkeypatch))
        else:
            env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
            subprocess.run(["bash", "-euo", "pipefail", "-c", mistake], cwd=tmp_path, env=env, check=True)
        printed = check(tmp_path)
    assert printed == (status, shown()[heading][number])
