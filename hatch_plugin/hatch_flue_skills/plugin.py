"""The `flue-skills` build hook: a thin hatchling adapter over `flue_build`.

For the wheel and the sdist alike, the hook asks hatchling what the target selects, vets
every skill folder in it (referenced or not), keeps every file the vetting did not keep
out of the target's walk, leaves out of the bundles what the project's own exclusion rules
exclude, and audits the finished artifact, deleting it on any surprise.

- wheel: every vetted file of a referenced skill is force-included one by one (never a
  folder: hatchling follows links when it copies folders) into `<pkg>/_flue_skills/`, the
  manifest from a temporary file; the originals of bundled skill folders stay out.
- editable wheel: everything is validated, nothing is added under the package's name;
  the run time reads skills from the source tree.
- sdist: every vetted file of a referenced skill and every markdown target is
  force-included at its own path, so a wheel built from the sdist has the skills.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

from flue_build.audit import audit
from flue_build.backends import hatchling_rules
from flue_build.backends.hatchling_rules import Placed
from flue_build.collect import collect
from flue_build.pack import BundlePlan, force_include, original_prefixes, plan, sdist_files
from flue_build.report import fail_on_errors
from flue_build.scan.selection import guess_sources, hatchling_sources
from flue_build.scan.sources import Source, from_distribution_paths, sources_under
from flue_build.shipping import SkillFolders, without_excluded
from flue_runtime.format.config import FlueConfig, load_config
from flue_runtime.format.diagnostics import has_errors


@dataclass
class _Built:
    """What `finalize` needs to audit the artifact `initialize` prepared."""

    folders: SkillFolders
    placed: list[Placed]
    bundles: list[BundlePlan]
    prefixes: list[str]


class FlueSkillsBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "flue-skills"

    _staging: str | None = None
    _built: _Built | None = None

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(os.path.abspath(self.root))
        config = load_config(root)
        builder = self.build_config.builder
        wheel = self.target_name == "wheel"
        walked = hatchling_rules.walked(builder) if self.target_name in ("wheel", "sdist") else []
        collection = collect(config, self._sources(root, config, walked))
        if self.target_name not in ("wheel", "sdist") or version == "editable":
            # validated; an editable install reads skills from the source tree
            fail_on_errors(collection.diagnostics, f"flue-skills ({self.target_name})", collection.references)
            return
        collection, _ = without_excluded(
            collection, hatchling_rules.Exclusions(self.build_config), self.target_name, strict=config.strict
        )
        configured = hatchling_rules.configured(builder, wheel)
        placed = walked + configured
        folders = SkillFolders(collection, config)
        folders.meet(item.source for item in placed)
        fail_on_errors(
            [*collection.diagnostics, *folders.diagnostics], f"flue-skills ({self.target_name})", collection.references
        )
        if wheel:
            bundles = plan(collection)
            self._staging = tempfile.mkdtemp(prefix="flue-skills-")
            atexit.register(shutil.rmtree, self._staging, True)  # also when the build fails before finalize
            build_data["force_include"].update(force_include(bundles, Path(self._staging)))
            # Bundled originals stay out of the walk; anything forced elsewhere ships if it was vetted.
            keep_out = [item.distribution for item in walked if _stays_out_of_wheel(folders, item.source)]
            keep_out += [item.distribution for item in configured if not folders.ships(item.source)]
            prefixes = original_prefixes(collection, self.build_config.get_distribution_path)
        else:
            bundles, prefixes = [], []
            for path in sdist_files(collection):
                build_data["force_include"][os.fspath(path)] = Path(os.path.relpath(path, root)).as_posix()
            keep_out = [item.distribution for item in placed if not folders.ships(item.source)]
        reserved = getattr(self.build_config, "build_reserved_paths", None)  # not public API: the audit backs it up
        if isinstance(reserved, set):
            reserved.update(keep_out)
        self._built = _Built(folders, placed, bundles, prefixes)

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        built, self._built = self._built, None
        try:
            if built is None:
                return
            builder = self.build_config.builder
            placed = built.placed + hatchling_rules.forced(builder, build_data)
            if self.target_name == "wheel":
                placed += hatchling_rules.wheel_extras(builder, build_data)
            origins = {item.archive: item.source for item in placed}
        finally:
            if self._staging is not None:
                shutil.rmtree(self._staging, ignore_errors=True)
                self._staging = None
        tree = None if self.target_name == "wheel" else built.folders.collection.root
        problems = audit(Path(artifact_path), built.bundles, built.prefixes, origins, built.folders, tree)
        if has_errors(problems):
            os.remove(artifact_path)
        fail_on_errors(problems, f"flue-skills: {self.target_name} audit failed")

    def _sources(self, root: Path, config: FlueConfig, walked: list[Placed]) -> list[Source]:
        if config.packages is not None:
            return sources_under(config.packages)
        if self.target_name == "wheel":
            return from_distribution_paths(
                (item.source, item.archive) for item in walked if item.archive.endswith(".py")
            )
        found = hatchling_sources(root)  # the sdist scans what the wheel will ship
        return found if found is not None else guess_sources(root)


def _stays_out_of_wheel(folders: SkillFolders, path: Path) -> bool:
    """A bundled skill's or markdown file's original, or a file of a skill folder the vetting did not keep."""
    if path in folders.collection.markdown:
        return True
    folder = folders.folder_of(path)
    return folder is not None and (folders.referenced(folder) or folders.recorded(path) is None)
