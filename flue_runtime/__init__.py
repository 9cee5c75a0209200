"""flue_runtime: mount agent skills bundled in Python packages and run agents with them.

Names are loaded on first use, so `import flue_runtime` stays cheap and never pulls in
YAML, jsonschema or any build tool.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # not typing's: importing typing costs ~4 ms, and nothing here needs it at run time
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "Diagnostic": "diagnostics",
    "Severity": "diagnostics",
    "FlueError": "errors",
    "SkillError": "errors",
    "SkillMetadata": "validate",
    "check_skill_md": "validate",
    "SkillReference": "reference",
    "define_skill": "define",
    "SkillDefinitionError": "define",
    "SkillTree": "vfs",
    "ReadOnlyError": "vfs",
    "skill": "resolve",
    "markdown": "resolve",
    "SkillNotFoundError": "resolve",
    "MissingBuildHookError": "resolve",
    "UnknownPackageError": "resolve",
    "BundleError": "bundled",
    "SpecError": "specs",
    "SkillPathError": "paths",
    "ResourceNotFoundError": "reference",
    "agent": "hooks",
    "use_model": "hooks",
    "use_skill": "hooks",
    "use_tool": "hooks",
    "use_instruction": "hooks",
    "use_state": "hooks",
    "use_sandbox": "hooks",
    "HookError": "hooks",
    "Harness": "harness",
    "Session": "harness",
    "PromptResult": "harness",
    "LocalSandbox": "sandbox",
    "MemorySandbox": "sandbox",
    "Tool": "tools",
}

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # pragma: no cover
    from .define import SkillDefinitionError, define_skill
    from .diagnostics import Diagnostic, Severity
    from .errors import FlueError, SkillError
    from .harness import Harness, PromptResult, Session
    from .hooks import HookError, agent, use_instruction, use_model, use_sandbox, use_skill, use_state, use_tool
    from .reference import SkillReference
    from .sandbox import LocalSandbox, MemorySandbox
    from .tools import Tool
    from .validate import SkillMetadata, check_skill_md
    from .bundled import BundleError
    from .paths import SkillPathError
    from .reference import ResourceNotFoundError
    from .resolve import MissingBuildHookError, SkillNotFoundError, UnknownPackageError, markdown, skill
    from .specs import SpecError
    from .vfs import ReadOnlyError, SkillTree


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'flue_runtime' has no attribute {name!r}")
    qualified = f"{__name__}.{module}"
    __import__(qualified)  # the builtin: importlib itself is one more module to load
    value = getattr(sys.modules[qualified], name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
