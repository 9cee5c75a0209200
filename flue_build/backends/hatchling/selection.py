"""hatchling's own file selection and exclusion rules, for one build target (`wheel`, `sdist`).

The hook and `flue-skills check` ask hatchling which files a target selects (its walk, its
`force-include`, a wheel's `shared-data`, `shared-scripts` and `extra-metadata`) and whether
its exclusion rules (VCS ignore files as hatchling reads them, global and per-target
`exclude`, its built-in exclusions) leave a file out, and which rule did.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from flue_build.backends.hatchling import reach_ins
from flue_build.scan.sources import Source, from_distribution_paths

__all__ = ["Exclusions", "Placed", "configured", "forced", "metadata_files", "modules", "walked", "wheel_extras"]


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


def modules(placed: Iterable[Placed]) -> list[Source]:
    """The Python modules among `placed`, named by their paths inside the artifact."""
    return from_distribution_paths((item.source, item.archive) for item in placed if item.archive.endswith(".py"))


def configured(builder: Any, wheel: bool) -> list[Placed]:
    """What the target's configuration adds to its walk: `force-include`, and for a wheel its extras."""
    return forced(builder, builder.config.force_include) + (wheel_extras(builder) if wheel else [])


def wheel_extras(builder: Any, build_data: Mapping[str, Any] | None = None) -> list[Placed]:
    """A wheel's shared data, shared scripts and extra metadata, where the wheel puts them."""
    project = builder.artifact_project_id
    out: list[Placed] = []
    for key, prefix in (
        ("shared_data", f"{project}.data/data/"),
        ("shared_scripts", f"{project}.data/scripts/"),
        ("extra_metadata", f"{project}.dist-info/extra_metadata/"),
    ):
        mapping = dict(getattr(builder.config, key))
        if build_data is not None:
            mapping.update(reach_ins.inclusion_map(build_data.get(key, {}), builder.root))
        out += [
            Placed(Path(f.path), prefix + f.distribution_path, f.distribution_path, key.replace("_", "-"))
            for f in builder.recurse_explicit_files(mapping)
        ]
    return out


def forced(builder: Any, mapping: Mapping[str, str]) -> list[Placed]:
    """What a `force_include` map (the target's, or one the hooks filled) puts into the artifact."""
    mapping = reach_ins.inclusion_map(mapping, builder.root)
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
        if os.fspath(path) in self.walked:
            return None
        relative = Path(os.path.relpath(path, self.root)).as_posix()
        if self.config.path_is_artifact(relative):
            return None  # hatchling ships `artifacts` even when they are ignored
        always = reach_ins.always_excluded(relative)
        if always is not None or not self.config.path_is_excluded(relative):
            return always
        return f"excluded by {reach_ins.excluding_rule(self.config, relative)}"
