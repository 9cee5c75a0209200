"""flue_runtime: mount agent skills bundled in Python packages and run agents with them.

Names are loaded on first use, so `import flue_runtime` stays cheap and never pulls in
YAML, jsonschema or any build tool.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "Diagnostic": "diagnostics",
    "Severity": "diagnostics",
    "FlueError": "errors",
    "SkillError": "errors",
    "SkillMetadata": "validate",
    "check_skill_md": "validate",
}

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # pragma: no cover
    from .diagnostics import Diagnostic, Severity
    from .errors import FlueError, SkillError
    from .validate import SkillMetadata, check_skill_md


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'flue_runtime' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
