"""The diagnostics reference (`docs/reference/diagnostics.md`): every code's example, run.

An example is a bash block that makes the situation in an empty folder and ends with one
`flue-skills check ...` line, then a plain block with what that command prints. A block that
starts `# <base>, then:` runs after the block that starts `# <base>` (the shared skill and
project). `python tests/support/diagnostics_page.py` rewrites every shown output from the
code (after a message changed); the test suite fails while the page shows anything else.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

if __name__ == "__main__":  # run as a script: make `support` and the checkout importable
    sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parents[2])]

from support.paths import ROOT
from support.site import headings

PAGE = ROOT / "docs" / "reference" / "diagnostics.md"
#: Where the examples seem to run: the temporary folder's path, as a reader's would look.
SHOWN_HOME = "/home/me"
_BLOCK = re.compile(r"^```(\w*)\n(.*?)^```$", re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class Example:
    code: str
    setup: str  # bash, bases included
    command: list[str]  # the arguments of the final `flue-skills` line
    shown: str  # what the page says the command prints
    shown_span: tuple[int, int]  # where `shown` sits in the page


def sections(text: str) -> list[tuple[str, int, int]]:
    """(code, start, end) of every `### FLUxxx` section: offsets into `text`, code blocks' comments not headings."""
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    marks = headings(text)
    found = []
    for number, (index, level, line) in enumerate(marks):
        if level == 3 and re.fullmatch(r"### FLU\d{3}", line):
            end = next((other for other, lvl, _ in marks[number + 1 :] if lvl <= 3), len(lines))
            found.append((line.removeprefix("### "), offsets[index], min(offsets[end], len(text))))
    return found


def examples(text: str) -> list[Example]:
    """Every `### FLUxxx` section's example that runs (a few only show a line: those are left out)."""
    bases = {
        code.split("\n", 1)[0]: code
        for language, code in _BLOCK.findall(text)
        if language == "bash" and code.startswith("# ") and not code.split("\n", 1)[0].endswith(", then:")
    }
    found = []
    for code, start, end in sections(text):
        blocks = list(_BLOCK.finditer(text, start, end))
        if not blocks or blocks[0].group(1) != "bash":
            continue
        script, output = blocks[0].group(2), blocks[1]
        first = script.split("\n", 1)[0]
        if first.endswith(", then:"):
            script = bases[first.removesuffix(", then:")] + script
        *setup, last = script.rstrip("\n").split("\n")
        command = shlex.split(last)
        assert command[0] == "flue-skills", f"{code}: the example ends with a flue-skills command"
        found.append(Example(code, "\n".join(setup) + "\n", command[1:], output.group(2), output.span(2)))
    return found


def run(example: Example) -> str:
    """What the example's command prints, run in a fresh folder (in this process: the CLI's own `main`)."""
    from flue_build.cli import main

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "me"
        home.mkdir()
        env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
        subprocess.run(["bash", "-euo", "pipefail", "-c", example.setup], cwd=home, env=env, check=True)
        out, before = io.StringIO(), os.getcwd()
        try:
            os.chdir(home)
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                main(example.command)
        finally:
            os.chdir(before)
        return (
            out.getvalue()
            .replace(str(Path(tmp).resolve()), str(Path(SHOWN_HOME).parent))
            .replace(str(Path(tmp)), str(Path(SHOWN_HOME).parent))
        )


def refreshed(text: str) -> str:
    """The page with every example's shown output replaced by what the code prints today."""
    for example in sorted(examples(text), key=lambda e: e.shown_span, reverse=True):
        start, end = example.shown_span
        text = text[:start] + run(example) + text[end:]
    return text


if __name__ == "__main__":
    PAGE.write_text(refreshed(PAGE.read_text(encoding="utf-8")), encoding="utf-8")
