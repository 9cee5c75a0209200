"""flue_runtime: mount agent skills bundled in Python packages and run agents with them.

Names are loaded on first use (PEP 562), so mounting a bundled skill never imports the
agent loop, and `import flue_runtime` never pulls in YAML, jsonschema or a build tool.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from flue_runtime import errors
from flue_runtime.errors import *  # noqa: F403  (every error; errors.py imports nothing heavy)

__version__ = "0.1.0"

#: Public name -> the module that defines it.
_LAZY = {
    "Diagnostic": "flue_runtime.format.diagnostics",
    "Severity": "flue_runtime.format.diagnostics",
    "SkillMetadata": "flue_runtime.format.records",
    "check_skill_md": "flue_runtime.format.validate",
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
    "PromptResult": "flue_runtime.agents.harness",
    "LocalSandbox": "flue_runtime.agents.sandbox",
    "MemorySandbox": "flue_runtime.agents.sandbox",
    "Tool": "flue_runtime.agents.tools",
    "ToolContext": "flue_runtime.agents.context",
}

__all__ = sorted([*_LAZY, *errors.__all__])

if TYPE_CHECKING:  # what __getattr__ loads, re-exported for type checkers (`X as X`)
    from flue_runtime.agents.context import ToolContext as ToolContext
    from flue_runtime.agents.harness import Harness as Harness
    from flue_runtime.agents.harness import PromptResult as PromptResult
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
    from flue_runtime.format.diagnostics import Diagnostic as Diagnostic
    from flue_runtime.format.diagnostics import Severity as Severity
    from flue_runtime.format.records import ListedFile as ListedFile
    from flue_runtime.format.records import SkillMetadata as SkillMetadata
    from flue_runtime.format.validate import check_skill_md as check_skill_md
    from flue_runtime.mount.define import define_skill as define_skill
    from flue_runtime.mount.distribution import skills_of as skills_of
    from flue_runtime.mount.reference import SkillReference as SkillReference
    from flue_runtime.mount.resolve import markdown as markdown
    from flue_runtime.mount.resolve import skill as skill
    from flue_runtime.mount.sources import SkillSource as SkillSource
    from flue_runtime.mount.sources import load_skill as load_skill
    from flue_runtime.mount.vfs import SkillTree as SkillTree


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'flue_runtime' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
