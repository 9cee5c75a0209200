"""`flue-skills schema`: the SKILL.md frontmatter JSON Schema, the one source of the rules `check` applies."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from flue_build.cli.exits import OK

if TYPE_CHECKING:
    from flue_build.cli import AddParser

__all__ = ["register", "run"]


def register(add_parser: AddParser) -> None:
    parser = add_parser("schema")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from flue_runtime.format.schema import schema_text

    sys.stdout.write(schema_text())
    return OK
