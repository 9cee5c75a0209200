"""The troubleshooting page (docs/troubleshooting.md) shows what `flue-skills check` prints: each output its "Before
you build" part shows is made again here, from the tutorial's project (docs/tutorial.md, hatchling) with the
section's one mistake, and compared; each section links the codes it names to the diagnostics reference. What pip,
`python -m build` and uv print where the package index has neither of our distributions ("Installing flue-skills")
is made again too."""

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
from support.envs import clean_env
from support.site import blocks, headings, section
from support.tutorial import project_files
from uv import find_uv_bin

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


# --- installing: what pip, build and uv say of a distribution the index does not have ---------------------------

INSTALLING = "## Installing flue-skills"
PIP = "### pip: No matching distribution found for flue-skills"
BUILD = "### python -m build: No matching distribution found for hatch-flue-skills"
UV = "### uv: not found in the package registry"


def installing_outputs() -> dict[str, str]:
    """Each `###` section of "Installing flue-skills" and the output it shows (its one plain block)."""
    text = section(PAGE, INSTALLING)
    marks = headings(text)
    return {
        [line for index, level, line in marks if index < block.line and level == 3][-1]: block.code
        for block in blocks(text)
        if block.language == ""
    }


def shown_in(shown: str, printed: str) -> None:
    """Every line the page shows is printed, in that order (`...` stands for lines left out)."""
    position = 0
    for line in shown.splitlines():
        if line in ("", "..."):
            continue
        found = printed.find(line, position)
        assert found >= 0, f"{line!r} not in what was printed after position {position}:\n{printed}"
        position = found + len(line)


def test_the_installing_section_shows_each_message_once() -> None:
    assert sorted(installing_outputs()) == sorted([PIP, BUILD, UV])


def _not_configured(**extra: str) -> dict[str, str]:
    """A fresh user's environment: no pip or uv settings of ours, no pip configuration file, and a wide terminal
    (uv and build wrap their lines to the terminal's width)."""
    env = {key: value for key, value in clean_env().items() if not key.startswith("UV_")}
    return {**env, "PIP_CONFIG_FILE": os.devnull, "COLUMNS": "1000", **extra}


@pytest.mark.parametrize("heading", [PIP, UV])
def test_pip_and_uv_say_what_the_page_shows_where_the_index_has_no_flue_skills(heading: str, tmp_path: Path) -> None:
    """An index that is an empty folder has no flue-skills, as the package index has none yet."""
    empty = tmp_path / "index"
    empty.mkdir()
    where = ["--target", str(tmp_path / "target"), "--index-url", empty.as_uri(), "flue-skills"]
    if heading == PIP:
        command = [sys.executable, "-m", "pip", "install", "--no-input", *where]
    else:
        command = [find_uv_bin(), "pip", "install", "--no-cache", "--python", sys.executable, *where]
    done = subprocess.run(command, cwd=tmp_path, env=_not_configured(), capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    shown_in(installing_outputs()[heading], done.stdout + done.stderr)


@pytest.mark.slow  # an isolated build environment, hatchling from the package index
def test_build_says_what_the_page_shows_where_the_index_has_no_hatch_flue_skills(tmp_path: Path) -> None:
    """The tutorial's project, built as the page says, with pip looking only at the package index: hatchling is
    there, the hook is not (when it is published, this section goes)."""
    tutorial_project(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "build", "--wheel"],
        cwd=tmp_path,
        env=_not_configured(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # in the order a terminal shows them
        text=True,
        timeout=300,
    )
    assert done.returncode != 0
    shown_in(installing_outputs()[BUILD], done.stdout)
