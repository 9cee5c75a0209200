"""A tutorial page (`docs/tutorial.md`) as steps: its bash blocks to run and the files it shows to write
(a block titled with its path: ```` ```toml title="pyproject.toml" ````), in order, each with what the page shows
it prints (the plain block after a command). The steps under a `### <backend>` heading are that backend's."""

from __future__ import annotations

import re
from dataclasses import dataclass

from support.site import blocks, headings, page

BACKENDS = ("hatchling", "setuptools")


@dataclass
class Step:
    """A bash block to run (`path` empty) or a file to write (`text` its content), and what the page shows it prints."""

    text: str
    path: str = ""
    shown: str | None = None


def steps(name: str, backend: str) -> list[Step]:
    """The steps of page `name` in order, without those under the other backends' `### <backend>` headings."""
    text = page(name)
    marks = headings(text)
    found: list[Step] = []
    for block in blocks(text):
        under = [line for index, level, line in marks if index < block.line and level <= 3][-1]
        if under.removeprefix("### ") in set(BACKENDS) - {backend}:
            continue
        if block.title:
            found.append(Step(block.code, path=block.title))
        elif block.language == "bash":
            found.append(Step(block.code))
        elif block.language == "":  # what the command above prints
            assert found and not found[-1].path and found[-1].shown is None, f"{name}:{block.line + 1}"
            found[-1].shown = block.code
    return found


def project_files(name: str, backend: str) -> dict[str, str]:
    """The files page `name` writes into its project, by their path in it: those before it leaves the project
    (`cd ..`) to install the wheel elsewhere."""
    files: dict[str, str] = {}
    for step in steps(name, backend):
        if not step.path and "cd .." in step.text.splitlines():
            break
        if step.path:
            files[step.path] = step.text
    return files


def matches(shown: str, printed: str) -> bool:
    """`printed` is `shown`, where each `...` line of `shown` stands for any number of lines."""
    pattern = "".join(r"(?:.*\n)*?" if line == "..." else re.escape(line) + r"\n" for line in shown.splitlines())
    return re.fullmatch(pattern, printed.rstrip("\n") + "\n") is not None
