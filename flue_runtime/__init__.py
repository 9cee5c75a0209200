"""flue_runtime: mount agent skills bundled in Python packages and run agents with them.

Names are loaded on first use (PEP 562), so mounting a bundled skill never imports the
agent loop, and `import flue_runtime` never pulls in YAML, jsonschema or a build tool.
"""

from __future__ import annotations

import importlib
import warnings
from typing import TYPE_CHECKING, Any

from flue_runtime import errors

# The errors an application catches or raises most: the bases, a missing skill, a tool's failure (the whole tree is in
# `flue_runtime.errors`).
from flue_runtime.errors import AgentError as AgentError
from flue_runtime.errors import ConfigError as ConfigError
from flue_runtime.errors import ExportError as ExportError
from flue_runtime.errors import FlueError as FlueError
from flue_runtime.errors import MountError as MountError
from flue_runtime.errors import SkillError as SkillError
from flue_runtime.errors import SkillNotFoundError as SkillNotFoundError
from flue_runtime.errors import SkillWarning as SkillWarning
from flue_runtime.errors import ToolFailure as ToolFailure

__version__ = "0.1.0"

#: Public name -> the module that defines it.
_LAZY = {
    "SkillReference": "flue_runtime.mount.reference",
    "SkillSource": "flue_runtime.mount.sources",
    "ListedFile": "flue_runtime.format.records",
    "load_skill": "flue_runtime.mount.sources",
    "skills_of": "flue_runtime.mount.distribution",
    "define_skill": "flue_runtime.mount.define",
    "SkillTree": "flue_runtime.mount.vfs",
    "skill": "flue_runtime.mount.resolve",
    "markdown": "flue_runtime.mount.resolve",
    "agent": "flue_runtime.agents.hooks",
    "use_model": "flue_runtime.agents.hooks",
    "use_skill": "flue_runtime.agents.hooks",
    "use_tool": "flue_runtime.agents.hooks",
    "use_instruction": "flue_runtime.agents.hooks",
    "use_state": "flue_runtime.agents.hooks",
    "use_sandbox": "flue_runtime.agents.hooks",
    "Harness": "flue_runtime.agents.harness",
    "Session": "flue_runtime.agents.harness",
    "PromptResult": "flue_runtime.agents.context",
    "LocalSandbox": "flue_runtime.agents.sandbox",
    "MemorySandbox": "flue_runtime.agents.sandbox",
    "Tool": "flue_runtime.agents.tools",
    "ToolContext": "flue_runtime.agents.context",
    "Model": "flue_runtime.models.base",
}

_ERRORS = [name for name in errors.__all__ if name in globals()]
__all__ = sorted([*_LAZY, *_ERRORS])

#: Names this module exported until 0.1, and the supported module that has each now: importable from here, with a
#: DeprecationWarning, until 0.3 (a merged error's warning names the class it is now). Errors added since never were.
_MOVED = {
    **dict.fromkeys(
        "BundleError DestinationError HookError LoopError MissingBuildHookError MissingBuildHookWarning ModelError "
        "NotExportedError PageError ReadOnlyError RemoteReplyTooLargeError RemoteSkillsError ResourceNotFoundError "
        "SandboxError SchemaError ScriptExhaustedError SessionConflictError SessionIdError SkillDefinitionError "
        "SkillPathError SkillSourceError SkillVerificationError SpecError StoreError ToolArgumentError "
        "ToolDefinitionError UnknownPackageError UnsafeFileError WorkspaceSkillWarning".split(),
        "flue_runtime.errors",
    ),
    **dict.fromkeys(("Diagnostic", "Severity", "SkillMetadata", "check_skill_md"), "flue_runtime.validation"),
}

if TYPE_CHECKING:  # what __getattr__ loads, re-exported for type checkers (`X as X`)
    from flue_runtime.agents.context import PromptResult as PromptResult
    from flue_runtime.agents.context import ToolContext as ToolContext
    from flue_runtime.agents.harness import Harness as Harness
    from flue_runtime.agents.harness import Session as Session
    from flue_runtime.agents.hooks import agent as agent
    from flue_runtime.agents.hooks import use_instruction as use_instruction
    from flue_runtime.agents.hooks import use_model as use_model
    from flue_runtime.agents.hooks import use_sandbox as use_sandbox
    from flue_runtime.agents.hooks import use_skill as use_skill
    from flue_runtime.agents.hooks import use_state as use_state
    from flue_runtime.agents.hooks import use_tool as use_tool
    from flue_runtime.agents.sandbox import LocalSandbox as LocalSandbox
    from flue_runtime.agents.sandbox import MemorySandbox as MemorySandbox
    from flue_runtime.agents.tools import Tool as Tool
    from flue_runtime.format.records import ListedFile as ListedFile
    from flue_runtime.models.base import Model as Model
    from flue_runtime.mount.define import define_skill as define_skill
    from flue_runtime.mount.distribution import skills_of as skills_of
    from flue_runtime.mount.reference import SkillReference as SkillReference
    from flue_runtime.mount.resolve import markdown as markdown
    from flue_runtime.mount.resolve import skill as skill
    from flue_runtime.mount.sources import SkillSource as SkillSource
    from flue_runtime.mount.sources import load_skill as load_skill
    from flue_runtime.mount.vfs import SkillTree as SkillTree


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        with warnings.catch_warnings():  # (a merged error's own warning: the one below names where it is now)
            warnings.simplefilter("ignore", DeprecationWarning)
            value = getattr(importlib.import_module(_MOVED[name]), name)
        warnings.warn(
            f"flue_runtime.{name} moved to {_MOVED[name]}.{value.__name__}: import it from there "
            "(flue_runtime stops exporting it in 0.3)",
            DeprecationWarning,
            stacklevel=2,
        )
        return value
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'flue_runtime' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
