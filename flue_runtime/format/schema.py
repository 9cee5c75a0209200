"""The SKILL.md frontmatter rules as one JSON Schema, shipped with the run time: the one source of them.

Everything else reads its rules from here: the validator compiled from it checks
frontmatter at run time and build time, the name and length limits in messages and hints
come from its keywords, and `flue-skills schema` prints it. jsonschema, the reference
implementation, checks that it agrees in the test suite only.
"""

from __future__ import annotations

import json
import os
from functools import cache
from typing import Any

from flue_runtime.format.schema_validator import Validator

SCHEMA_RESOURCE = "skill.schema.json"


@cache
def schema_text() -> str:
    # The package's own loader reads a folder or a zip directly; importlib.resources (pathlib,
    # zipfile, tempfile) would cost a fresh process more than the whole validation.
    get_data = getattr(__spec__.loader, "get_data", None)
    if callable(get_data):
        data: bytes = get_data(os.path.join(os.path.dirname(__file__), SCHEMA_RESOURCE))
        return data.decode("utf-8")
    from importlib.resources import files  # a loader that cannot read by path

    return files(__package__).joinpath(SCHEMA_RESOURCE).read_text(encoding="utf-8")


@cache
def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(schema_text())
    return loaded


@cache
def known_fields() -> frozenset[str]:
    return frozenset(schema()["properties"])


@cache
def validator() -> Validator:
    """The frontmatter rules, compiled once per process."""
    return Validator(schema())


@cache
def field_rule(name: str) -> dict[str, Any]:
    """The schema of one frontmatter field, e.g. `field_rule("name")["maxLength"]`."""
    rule: dict[str, Any] = schema()["properties"][name]
    return rule


@cache
def field_validator(name: str) -> Validator:
    """One field's rules alone, e.g. to tell whether a folder's name would be a valid `name`."""
    return Validator(field_rule(name))


__all__ = ["SCHEMA_RESOURCE", "field_rule", "field_validator", "known_fields", "schema", "schema_text", "validator"]
