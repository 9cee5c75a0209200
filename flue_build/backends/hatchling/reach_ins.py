"""Every use of hatchling's internals, each with why: what its plugin interface (`BuildHookInterface`, the builder
and builder configuration it hands over, `build_data`) leaves out. `tests/build/test_reach_ins.py` builds with the
oldest and the newest hatchling we support; `tests/test_backend_internals.py` keeps every such name here."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from flue_runtime.format.records import SKILL_FILE

__all__ = ["always_excluded", "excluding_rule", "inclusion_map", "reserve_paths", "skill_files", "static_metadata"]


def reserve_paths(build_config: Any, paths: Iterable[str]) -> None:
    """Keep `paths` (distribution paths) out of the artifact hatchling is about to build.

    Why `BuilderConfig.build_reserved_paths`: a build hook can add files (`force_include`, shared data)
    but the hook interface has no way to leave out a file the target's walk selected, and neither a
    bundled skill's original copies nor a file the vetting did not keep may ship. hatchling skips its
    reserved paths in the walk; adding ours there does that. The artifact's audit checks the result
    whatever this does.
    """
    reserved = getattr(build_config, "build_reserved_paths", None)
    if isinstance(reserved, set):
        reserved.update(paths)


def static_metadata(root: str) -> Any:
    """`[project]` as written: `core` without the metadata hooks (`hatch_build.py`), `version` without its source.

    Why a `ProjectMetadata` subclass: builders need a metadata object, and hatchling's runs the project's metadata
    hooks and version source, its code; `flue-skills check` and `ls` run on checkouts nobody has reviewed.
    """
    from hatchling.metadata.core import CoreMetadata, ProjectMetadata
    from hatchling.plugin.manager import PluginManager

    class StaticMetadata(ProjectMetadata[PluginManager]):
        @functools.cached_property
        def core(self) -> CoreMetadata:
            return CoreMetadata(self.root, self.core_raw_metadata, self.hatch.metadata, self.context)

        @property
        def version(self) -> str:
            written = self.core_raw_metadata.get("version")
            return written if isinstance(written, str) and "version" not in self.dynamic else "dynamic"

    return StaticMetadata(root, None)


def inclusion_map(mapping: Mapping[str, str], root: str) -> dict[str, str]:
    """A `build_data` inclusion map (`force_include`, `shared_data`, ...) with absolute sources.

    Why `hatchling.builders.utils.normalize_inclusion_map`: the builders normalise what hooks write with it.
    """
    from hatchling.builders.utils import normalize_inclusion_map

    return normalize_inclusion_map(dict(mapping), root)


def always_excluded(relative: str) -> str | None:
    """Why hatchling never ships `relative` (a POSIX path from the project root) whatever the configuration.

    Why `hatchling.builders.constants`: its walk leaves these folders and files out before any rule is asked,
    and `path_is_excluded` does not know them.
    """
    from hatchling.builders.constants import EXCLUDED_DIRECTORIES, EXCLUDED_FILES

    parts = relative.split("/")
    for name in parts[:-1]:
        if name in EXCLUDED_DIRECTORIES:
            return f"hatchling never ships `{name}/` folders"
    return f"hatchling never ships `{parts[-1]}` files" if parts[-1] in EXCLUDED_FILES else None


def skill_files(root: str) -> list[Path]:
    """Every `SKILL.md` under `root` that some target's walk could meet: hatchling's own walk (links
    followed, its always-excluded folders left out) without the project's selection rules.

    Why `safe_walk` and `EXCLUDED_DIRECTORIES`: the builders walk only a target's selection, and `check` must
    know whether any target could meet a skill folder without building every target's walk.
    """
    from hatchling.builders.constants import EXCLUDED_DIRECTORIES
    from hatchling.builders.utils import safe_walk

    found = []
    for folder, dirs, files in safe_walk(root):
        dirs[:] = [d for d in dirs if d not in EXCLUDED_DIRECTORIES]
        if SKILL_FILE in files or SKILL_FILE in dirs:
            found.append(Path(folder, SKILL_FILE))
    return found


def excluding_rule(config: Any, relative: str) -> str:
    """The pattern of the target's exclusion rules that leaves `relative` out, and where it is written.

    Why `exclude_spec` and the pattern lists it is made of (`default_global_exclude`,
    `load_vcs_exclusion_patterns`, `vcs_exclusion_files`, `default_exclude`): `path_is_excluded` says only yes or
    no, and a FLU411 that says which line of which file to change is the one a user can act on. The lists are
    joined in hatchling's order (`BuilderConfig.exclude_spec`), so the index pathspec reports finds its pattern.
    """
    check = getattr(config.exclude_spec, "check_file", None)  # pathspec 0.12 and later
    result = check(relative) if check is not None else None
    index = getattr(result, "index", None)
    if index is None:
        return f"the hatch target `{config.plugin_name}`'s exclusion rules (`exclude`, VCS ignore files)"
    for source, patterns in _pattern_lists(config):
        if index < len(patterns):
            return f"{source(index)} (`{patterns[index].strip()}`)"
        index -= len(patterns)
    return "hatch's exclusion rules"


def _pattern_lists(config: Any) -> Iterator[tuple[Any, list[str]]]:
    """The pattern lists hatchling joins into its exclude spec, in its order, each with a namer."""
    yield (lambda _: "hatchling's default exclusions"), list(config.default_global_exclude())
    if not config.ignore_vcs:
        yield _vcs_namer(config), config.load_vcs_exclusion_patterns()
    if "exclude" in config.target_config:
        key, table = f"tool.hatch.build.targets.{config.plugin_name}.exclude", config.target_config
    else:
        key, table = "tool.hatch.build.exclude", config.build_config
    yield (lambda _: key), list(table.get("exclude", config.default_exclude()))


def _vcs_namer(config: Any) -> Any:
    lines: list[str] = []
    for path in config.vcs_exclusion_files.get("git", []):
        shown = Path(os.path.relpath(path, config.root)).as_posix()
        with open(path, encoding="utf-8") as handle:
            lines += [f"{shown} line {number}" for number, _ in enumerate(handle, 1)]
    return lambda index: lines[index] if index < len(lines) else ".hgignore"
