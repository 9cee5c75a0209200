"""hatchling's own file selection and exclusion rules, for one build target (`wheel`, `sdist`).

The hook and `flue-skills check` ask hatchling which files a target selects (its walk, its
`force-include`, a wheel's `shared-data`, `shared-scripts` and `extra-metadata`) and whether
its exclusion rules (VCS ignore files as hatchling reads them, global and per-target
`exclude`, its built-in exclusions) leave a file out, and which rule did.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from flue_runtime.format.records import SKILL_FILE

__all__ = [
    "DYNAMIC",
    "Exclusions",
    "Placed",
    "configured",
    "forced",
    "metadata_files",
    "skill_files",
    "static_builders",
    "walked",
    "wheel_extras",
]


#: What a static reading says of a field the project computes at build time.
DYNAMIC = "dynamic"


def static_builders(root: str) -> tuple[Any, Any]:
    """hatchling's wheel and sdist builders for the project at `root`, over metadata read as written:
    no metadata hook (`hatch_build.py`), no version source (`source = "code"`, VCS), nothing of the
    project's is imported or run. For `flue-skills check` and `ls`, which run on checkouts nobody
    has reviewed (a pre-commit hook); the build itself asks the builders hatchling made."""
    from hatchling.builders.sdist import SdistBuilder
    from hatchling.builders.wheel import WheelBuilder

    return WheelBuilder(root, metadata=_static_metadata(root)), SdistBuilder(root, metadata=_static_metadata(root))


def _static_metadata(root: str) -> Any:
    from hatchling.metadata.core import CoreMetadata, ProjectMetadata
    from hatchling.plugin.manager import PluginManager

    class StaticMetadata(ProjectMetadata[PluginManager]):
        """`[project]` as written: `core` without the metadata hooks, `version` without its source."""

        @functools.cached_property
        def core(self) -> CoreMetadata:
            return CoreMetadata(self.root, self.core_raw_metadata, self.hatch.metadata, self.context)

        @property
        def version(self) -> str:
            written = self.core_raw_metadata.get("version")
            return written if isinstance(written, str) and "version" not in self.dynamic else DYNAMIC

    return StaticMetadata(root, None)


class Placed(NamedTuple):
    """A file the target selects: its absolute source, its path inside the artifact, the
    distribution path hatchling's reserved paths are keyed by (the same, but for a wheel's
    shared data, scripts and extra metadata, which land under a prefix), and the setting that
    selected it (what an audit failure names)."""

    source: Path
    archive: str
    distribution: str
    route: str


def walked(builder: Any) -> list[Placed]:
    """What the target's walk selects (`packages`, `only-include`, `include`, `exclude`, VCS ignore files)."""
    return [
        Placed(Path(f.path), f.distribution_path, f.distribution_path, "the walk (packages, include, exclude)")
        for f in builder.recurse_selected_project_files()
    ]


def skill_files(root: str) -> list[Path]:
    """Every `SKILL.md` under `root` that some target's walk could meet: hatchling's own walk (links
    followed, its always-excluded folders left out) without the project's selection rules."""
    from hatchling.builders.constants import EXCLUDED_DIRECTORIES
    from hatchling.builders.utils import safe_walk

    found = []
    for folder, dirs, files in safe_walk(root):
        dirs[:] = [d for d in dirs if d not in EXCLUDED_DIRECTORIES]
        if SKILL_FILE in files or SKILL_FILE in dirs:
            found.append(Path(folder, SKILL_FILE))
    return found


def configured(builder: Any, wheel: bool) -> list[Placed]:
    """What the target's configuration adds to its walk: `force-include`, and for a wheel its extras."""
    forced = builder.recurse_forced_files(builder.config.force_include)
    files = [Placed(Path(f.path), f.distribution_path, f.distribution_path, "force-include") for f in forced]
    return files + (wheel_extras(builder) if wheel else [])


def wheel_extras(builder: Any, build_data: Mapping[str, Any] | None = None) -> list[Placed]:
    """A wheel's shared data, shared scripts and extra metadata, where the wheel puts them."""
    from hatchling.builders.utils import normalize_inclusion_map

    project = builder.artifact_project_id
    out: list[Placed] = []
    for key, prefix in (
        ("shared_data", f"{project}.data/data/"),
        ("shared_scripts", f"{project}.data/scripts/"),
        ("extra_metadata", f"{project}.dist-info/extra_metadata/"),
    ):
        mapping = dict(getattr(builder.config, key))
        if build_data is not None:
            mapping.update(normalize_inclusion_map(build_data.get(key, {}), builder.root))
        out += [
            Placed(Path(f.path), prefix + f.distribution_path, f.distribution_path, key.replace("_", "-"))
            for f in builder.recurse_explicit_files(mapping)
        ]
    return out


def forced(builder: Any, build_data: Mapping[str, Any]) -> list[Placed]:
    """What `build_data["force_include"]` (filled by the hooks) puts into the artifact."""
    from hatchling.builders.utils import normalize_inclusion_map

    mapping = normalize_inclusion_map(build_data.get("force_include", {}), builder.root)
    return [
        Placed(Path(f.path), f.distribution_path, f.distribution_path, "force-include")
        for f in builder.recurse_forced_files(mapping)
    ]


def metadata_files(builder: Any, wheel: bool) -> list[Placed]:
    """What `[project]` metadata adds whatever the target's selection: `license-files` (in a wheel's
    `.dist-info/licenses/`, at their own paths in an sdist), a wheel's `sbom-files`, an sdist's readme."""
    root = Path(builder.root)
    core = builder.metadata.core
    project = builder.artifact_project_id
    out: list[Placed] = []
    for relative in core.license_files:
        shown = Path(relative).as_posix()
        archive = f"{project}.dist-info/licenses/{shown}" if wheel else shown
        out.append(Placed(root / relative, archive, archive, "license-files"))
    if wheel:
        for relative in getattr(builder.config, "sbom_files", ()):
            archive = f"{project}.dist-info/sboms/{os.path.basename(relative)}"
            out.append(Placed(root / relative, archive, archive, "sbom-files"))
    elif core.readme_path:
        shown = Path(core.readme_path).as_posix()
        out.append(Placed(root / core.readme_path, shown, shown, "readme"))
    return out


class Exclusions:
    """Whether the target's exclusion rules leave a project file out, and which rule.

    `walked`: what the target's walk selected, which its rules therefore keep (answered without
    asking them again)."""

    def __init__(self, config: Any, walked: Iterable[Placed] = ()) -> None:
        self.config = config
        self.root = Path(config.root)
        self.walked = {os.fspath(item.source) for item in walked}

    def __call__(self, path: str | os.PathLike[str]) -> str | None:
        from hatchling.builders.constants import EXCLUDED_DIRECTORIES, EXCLUDED_FILES

        if os.fspath(path) in self.walked:
            return None
        relative = Path(os.path.relpath(path, self.root)).as_posix()
        if self.config.path_is_artifact(relative):
            return None  # hatchling ships `artifacts` even when they are ignored
        parts = relative.split("/")
        for name in parts[:-1]:
            if name in EXCLUDED_DIRECTORIES:
                return f"hatchling never ships `{name}/` folders"
        if parts[-1] in EXCLUDED_FILES:
            return f"hatchling never ships `{parts[-1]}` files"
        if not self.config.path_is_excluded(relative):
            return None
        return f"excluded by {self._rule(relative)}"

    def _rule(self, relative: str) -> str:
        """The pattern hatchling's exclude spec matched, and where it comes from."""
        spec = self.config.exclude_spec
        check = getattr(spec, "check_file", None)  # pathspec 0.12 and later
        result = check(relative) if check is not None else None
        index = getattr(result, "index", None)
        if index is None:
            return f"the hatch target `{self.config.plugin_name}`'s exclusion rules (`exclude`, VCS ignore files)"
        for source, patterns in self._sources():
            if index < len(patterns):
                return f"{source(index)} (`{patterns[index].strip()}`)"
            index -= len(patterns)
        return "hatch's exclusion rules"

    def _sources(self) -> Iterable[tuple[Any, list[str]]]:
        """The pattern lists hatchling joins into its exclude spec, in its order, each with a namer."""
        config = self.config
        yield (lambda _: "hatchling's default exclusions"), list(config.default_global_exclude())
        if not config.ignore_vcs:
            vcs = config.load_vcs_exclusion_patterns()
            yield self._vcs_namer(), vcs
        if "exclude" in config.target_config:
            key, table = f"tool.hatch.build.targets.{config.plugin_name}.exclude", config.target_config
        else:
            key, table = "tool.hatch.build.exclude", config.build_config
        yield (lambda _: key), list(table.get("exclude", config.default_exclude()))

    def _vcs_namer(self) -> Any:
        lines: list[str] = []
        for path in self.config.vcs_exclusion_files.get("git", []):
            with open(path, encoding="utf-8") as handle:
                count = len(handle.readlines())
            shown = Path(os.path.relpath(path, self.root)).as_posix()
            lines += [f"{shown} line {number}" for number in range(1, count + 1)]

        def name(index: int) -> str:
            return lines[index] if index < len(lines) else ".hgignore"

        return name
