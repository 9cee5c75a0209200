"""The `flue-skills` command reference (`docs/reference/cli.md`), generated from the argparse parsers.

The page's part between `BEGIN` and `END` is every command's description, usage and arguments
as its parser defines them, so that the page cannot drift from `--help`; the rest of the page
(the table of commands, the exit statuses) is written by hand. After changing a parser, run
`python scripts/cli_reference.py` to rewrite that part; `tests/test_cli_reference.py` fails while
the committed page says anything else.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "reference" / "cli.md"
BEGIN = "<!-- generated from the parsers by scripts/cli_reference.py: edit the parsers, then run it -->"
END = "<!-- end of the generated part -->"

_CODE_SPAN = re.compile(r"(`[^`]*`)")


def reference() -> str:
    """Markdown for the top-level command and then each command, in `--help` order."""
    from flue_build.cli import _parser

    parser = _parser()
    [commands] = [action for action in parser._actions if isinstance(action, argparse._SubParsersAction)]
    out = ["## Commands", "", "Every command also takes `-h`/`--help`, which prints what its section says.", ""]
    out += _command(parser, "")
    for choice in commands._choices_actions:
        sub = commands.choices[choice.dest]
        out += _command(sub, choice.help or "")
    return "\n".join(out).rstrip("\n") + "\n"


def _command(parser: argparse.ArgumentParser, summary: str) -> list[str]:
    out = [f"### `{parser.prog}`", "", _prose(parser.description or summary), "", "```text", _usage(parser), "```", ""]
    rows = [_row(action) for action in parser._actions if _shown(action)]
    if rows:
        out += ["| argument | meaning |", "|---|---|", *rows, ""]
    return out


def _shown(action: argparse.Action) -> bool:
    """Every argument but `--help` (said once for all) and the list of commands (the table above)."""
    return not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction))


def _row(action: argparse.Action) -> str:
    if action.option_strings:
        value = "" if action.nargs == 0 else " " + _metavar(action)
        name = ", ".join(f"{option}{value}" for option in action.option_strings)
    else:
        name = _metavar(action)
    return f"| `{name}` | {_cell(_meaning(action))} |"


def _meaning(action: argparse.Action) -> str:
    """The argument's help, with its default when the help does not give it (as `%(default)s` would)."""
    meaning = action.help or ""
    default = action.default
    if default in (None, False, [], argparse.SUPPRESS) or "default" in meaning:
        return meaning
    said = f"default: `{default}`"
    return f"{meaning} ({said})" if meaning else said


def _metavar(action: argparse.Action) -> str:
    if action.metavar is not None:
        return str(action.metavar)
    if action.choices is not None:
        return "{" + ",".join(map(str, action.choices)) + "}"
    return action.dest.upper() if action.option_strings else action.dest


@contextmanager
def _plain_terminal() -> Iterator[None]:
    """argparse wraps usage to the terminal's width (and colours it from Python 3.14): neither on the page."""
    saved = {key: os.environ.get(key) for key in ("COLUMNS", "NO_COLOR")}
    os.environ.update(COLUMNS="10000", NO_COLOR="1")
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _usage(parser: argparse.ArgumentParser) -> str:
    with _plain_terminal():
        return parser.format_usage().strip()


def _prose(text: str) -> str:
    """Help text as Markdown: `<`, `>`, `&` and `*` literal outside code spans."""
    return "".join(part if part.startswith("`") else _escape(part) for part in _CODE_SPAN.split(text))


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("*", r"\*")


def _cell(text: str) -> str:
    """`_prose`, with `|` escaped everywhere (code spans included) so that the table keeps its columns."""
    return _prose(text).replace("|", r"\|")


def refreshed(text: str) -> str:
    """The page with its generated part rewritten from the parsers."""
    head, begin, rest = text.partition(BEGIN)
    _, end, tail = rest.partition(END)
    if not begin or not end:
        raise ValueError(f"{PAGE}: the generated part's markers are missing ({BEGIN!r} ... {END!r})")
    return f"{head}{BEGIN}\n\n{reference()}\n{END}{tail}"


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))  # the checkout's flue_build, when run from anywhere
    PAGE.write_text(refreshed(PAGE.read_text(encoding="utf-8")), encoding="utf-8")
