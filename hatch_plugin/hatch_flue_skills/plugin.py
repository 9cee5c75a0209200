"""The `flue-skills` build hook: a thin hatchling adapter over `flue_build.backends.hatchling.hook`, which
says what happens to the wheel, the editable wheel and the sdist; its methods are the backend boundary
(`flue_build.backends.boundary.exits`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from hatchling.builders.config import BuilderConfig
from hatchling.builders.hooks.plugin.interface import BuildHookInterface

from flue_build.backends.boundary import exits
from flue_build.backends.hatchling.hook import Prepared, artifact_name, finish, prepare
from flue_build.report import done, stops_build

__all__ = ["FlueSkillsBuildHook"]


class FlueSkillsBuildHook(BuildHookInterface[BuilderConfig]):
    PLUGIN_NAME = "flue-skills"

    #: What `initialize` set up for `finalize`: a plan to audit, or the line an editable build prints.
    _prepared: Prepared | str | None = None

    @exits()
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        with stops_build(f"{artifact_name(self.target_name, version)} not built"):
            root = Path(os.path.abspath(self.root))
            self._prepared = prepare(root, self.target_name, version, self.build_config, build_data)

    @exits()
    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        prepared, self._prepared = self._prepared, None
        if isinstance(prepared, str):
            done(f"{artifact_name(self.target_name, version)}: {prepared}")
        elif prepared is not None:
            finish(prepared, self.build_config, build_data, Path(artifact_path))
