"""Registers the build hook with hatchling (entry point group `hatch`)."""

from __future__ import annotations

from hatchling.plugin import hookimpl

from .plugin import FlueSkillsBuildHook

__all__ = ["hatch_register_build_hook"]


@hookimpl
def hatch_register_build_hook() -> type[FlueSkillsBuildHook]:
    return FlueSkillsBuildHook
