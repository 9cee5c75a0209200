"""`flue-skills new NAME`: a skill folder that passes `check` from the first minute.

Without a description it writes a placeholder, which `check` and the build flag (FLU213:
a warning, an error under strict), so that it never reaches a catalog unnoticed.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from flue_build.cli.exits import OK
from flue_build.errors import UsageError
from flue_runtime.format.frontmatter import yaml_quote
from flue_runtime.format.naming import name_problems, suggest_name
from flue_runtime.format.records import SKILL_FILE
from flue_runtime.format.validate import PLACEHOLDER_DESCRIPTION, check_skill_md

if TYPE_CHECKING:
    from flue_build.cli import AddParser

__all__ = ["TEMPLATE", "new_skill", "register", "run"]


#: The body starts on the line after the closing `---` (the reader keeps every byte after it, as the bundle's
#: offsets and exports do): no blank line there, or every instructions string would start with one.
TEMPLATE = """\
---
name: {name}
description: {description}
---
# {title}

Instructions the agent follows once it activates this skill: the steps, the checks,
and which support files in this folder to read (for example `reference.md`).
"""


def register(add_parser: AddParser) -> None:
    parser = add_parser("new", description="Create DIR/NAME/SKILL.md.")
    parser.add_argument(
        "name", metavar="NAME", help="the skill's name and folder: lowercase letters, digits and single hyphens"
    )
    parser.add_argument("--dir", type=Path, default=Path("."), metavar="DIR", help="parent folder (default: .)")
    parser.add_argument("--description", default=None, help="the skill's description")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    created = new_skill(args.name, args.dir, args.description or PLACEHOLDER_DESCRIPTION)
    print(f"created {created}")
    if not args.description:
        print(
            "next: replace its placeholder description (until then `flue-skills check` warns: FLU213, "
            "an error under --strict) and write its instructions"
        )
    return OK


def new_skill(name: str, directory: Path, description: str = PLACEHOLDER_DESCRIPTION) -> Path:
    """Create `directory/name/SKILL.md`; refuses (`UsageError`) an invalid name or description, or a folder
    already there."""
    problems = name_problems(name)
    if problems:
        suggestion = suggest_name(name)
        fix = f"; try `{suggestion}`" if suggestion else ""
        raise UsageError(f"invalid skill name `{name}`: it " + "; it ".join(problems) + fix)
    folder = directory / name
    if folder.exists():
        raise UsageError(f"{folder} already exists; pick another name or --dir")
    text = TEMPLATE.format(name=name, description=yaml_quote(description), title=name.replace("-", " ").capitalize())
    result = check_skill_md(text.encode(), str(folder / SKILL_FILE), name)
    if not result.ok:
        raise UsageError("; ".join(d.message for d in result.diagnostics))
    folder.mkdir(parents=True)
    (folder / SKILL_FILE).write_text(text, encoding="utf-8")
    return folder / SKILL_FILE
