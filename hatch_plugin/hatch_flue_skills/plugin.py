"""The `flue-skills` build hook: a thin hatchling adapter over `flue_build`.

- wheel: every vetted file is force-included one by one (never a folder: hatchling
  follows links when it copies folders) into `<pkg>/_flue_skills/`, the manifest from a
  temporary file; the originals of bundled skill folders stay out of the regular walk,
  and `finalize` audits the wheel, deleting it on any surprise.
- editable wheel: everything is validated, nothing is added under the package's name;
  the run time reads skills from the source tree.
- sdist: every vetted skill file and markdown target is force-included at its own path,
  so a wheel built from the sdist has the skills.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

from flue_build.audit import audit_wheel
from flue_build.collect import Collection, collect
from flue_build.pack import BundlePlan, force_include, original_paths, plan, sdist_files
from flue_build.report import fail_on_errors
from flue_build.scan.selection import guess_sources, hatchling_sources
from flue_build.scan.sources import from_distribution_paths, sources_under
from flue_runtime.format.config import load_config


class FlueSkillsBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "flue-skills"

    _staging: str | None = None
    _audit: tuple[list[BundlePlan], list[str]] | None = None

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        collection = self._collect()
        if self.target_name == "sdist":
            for path in sdist_files(collection):
                build_data["force_include"][os.fspath(path)] = Path(os.path.relpath(path, self.root)).as_posix()
            return
        if self.target_name != "wheel" or version == "editable":
            return  # validated above; an editable install reads skills from the source tree
        bundles = plan(collection)
        self._staging = tempfile.mkdtemp(prefix="flue-skills-")
        atexit.register(shutil.rmtree, self._staging, True)  # also when the build fails before finalize
        build_data["force_include"].update(force_include(bundles, Path(self._staging)))
        reserved, prefixes = original_paths(collection, self.build_config.get_distribution_path)
        paths = getattr(self.build_config, "build_reserved_paths", None)  # not public API: the audit backs it up
        if isinstance(paths, set):
            paths.update(reserved)
        self._audit = (bundles, prefixes)

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if self._staging is not None:
            shutil.rmtree(self._staging, ignore_errors=True)
            self._staging = None
        if self._audit is None:
            return
        bundles, prefixes = self._audit
        self._audit = None
        problems = audit_wheel(Path(artifact_path), bundles, prefixes)
        if problems:
            os.remove(artifact_path)
            fail_on_errors(problems, "flue-skills: wheel audit failed")

    def _collect(self) -> Collection:
        root = Path(os.path.abspath(self.root))
        config = load_config(root)
        if config.packages is not None:
            sources = sources_under(config.packages)
        elif self.target_name == "wheel":
            files = self.build_config.builder.recurse_selected_project_files()
            sources = from_distribution_paths(
                (Path(f.path), f.distribution_path) for f in files if f.distribution_path.endswith(".py")
            )
        else:  # the sdist scans what the wheel will ship
            found = hatchling_sources(root)
            sources = found if found is not None else guess_sources(root)
        collection = collect(config, sources)
        fail_on_errors(collection.diagnostics, f"flue-skills ({self.target_name})", collection.references)
        return collection
