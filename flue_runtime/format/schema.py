"""The SKILL.md frontmatter rules as one JSON Schema, shipped with the run time.

jsonschema is imported only when something is validated, so `import flue_runtime`
stays light.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

SCHEMA_RESOURCE = "skill.schema.json"


@cache
def schema_text() -> str:
    from importlib.resources import files

    return files(__package__).joinpath(SCHEMA_RESOURCE).read_text(encoding="utf-8")


@cache
def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(schema_text())
    return loaded


@cache
def known_fields() -> frozenset[str]:
    return frozenset(schema()["properties"])


@cache
def validator() -> Any:
    import jsonschema

    cls = jsonschema.validators.validator_for(schema())
    cls.check_schema(schema())
    return cls(schema())
