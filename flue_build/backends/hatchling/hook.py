"""What the hatchling build hook does, as two plain functions over hatchling's objects.

For the wheel and the sdist alike, `prepare` asks hatchling what the target selects, vets
every skill folder in it (referenced or not), keeps every file the vetting did not keep
out of the target's walk, leaves out of the bundles what the project's own exclusion rules
exclude; `finish` audits the finished artifact, deleting it on any surprise.

- wheel: every vetted file of a referenced skill is force-included one by one (never a
  folder: hatchling follows links when it copies folders) into `<pkg>/_flue_skills/`, the
  manifest from a temporary file; the originals of bundled skill folders stay out.
- editable wheel: everything is validated, nothing is added under the package's name;
  the run time reads skills from the source tree.
- sdist: every vetted file of a referenced skill and every markdown target is
  force-included at its own path, so a wheel built from the sdist has the skills.

The audit knows where hatchling took each member from and by which setting (the walk,
force-include, shared data and scripts, extra metadata, license-files, SBOMs, the readme),
to name it; it does not rely on knowing: every member is also matched against every file
under the project's skill folders.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flue_build.audit import Origin, audit
from flue_build.backends.dependency import missing_runtime_dependency
from flue_build.backends.hatchling import reach_ins, selection
from flue_build.backends.hatchling.selection import Placed
from flue_build.backends.hatchling.static import sources as static_sources
from flue_build.collect import collect
from flue_build.pack import BundlePlan, copy_checked, local_targets, plan, sdist_files, vetted_line
from flue_build.report import done, fail_on_errors
from flue_build.scan.selection import guess_sources
from flue_build.scan.sources import Source, sources_under
from flue_build.shipping import SkillFolders, without_excluded
from flue_runtime.format.config import FlueConfig, load_config
from flue_runtime.format.diagnostics import has_errors

__all__ = ["Prepared", "artifact_name", "finish", "prepare"]


@dataclass
class Prepared:
    """What `finish` needs to audit the artifact `prepare` set up."""

    target: str
    folders: SkillFolders
    placed: list[Placed]
    bundles: list[BundlePlan]
    prefixes: list[str]
    #: What the hook force-included (source → path): the audit checks those entries against the plan.
    forced: dict[str, str]
    #: The wheel's staging folder (manifests, copies), removed by `finish`.
    staging: str | None


def artifact_name(target: str, version: str) -> str:
    return "editable wheel" if version == "editable" else target


def prepare(root: Path, target: str, version: str, build_config: Any, build_data: dict[str, Any]) -> Prepared | str:
    """Vet and plan the artifact, filling `build_data`; for an editable or other target, only validate and
    return the line to print when it is built."""
    context = f"{artifact_name(target, version)} not built"
    config = load_config(root)
    builder = build_config.builder
    wheel = target == "wheel"
    walked = selection.walked(builder) if target in ("wheel", "sdist") else []
    collection = collect(config, _sources(root, target, config, walked))
    core = builder.metadata.core
    collection.diagnostics += missing_runtime_dependency(root, core.name, collection.references, core.dependencies)
    if target not in ("wheel", "sdist") or version == "editable":
        fail_on_errors(collection.diagnostics, context)
        return vetted_line(collection)
    exclusions = selection.Exclusions(build_config, walked)
    collection, _ = without_excluded(collection, exclusions, target, strict=config.strict)
    configured = selection.configured(builder, wheel)
    placed = walked + configured
    folders = SkillFolders(collection, config)
    folders.meet(item.source for item in placed)
    fail_on_errors([*collection.diagnostics, *folders.diagnostics], context)
    staging = None
    if wheel:
        bundles = plan(collection)
        staging = tempfile.mkdtemp(prefix="flue-skills-")
        atexit.register(shutil.rmtree, staging, True)  # also when the build fails before finish
        ours = _force_include(bundles, Path(staging))
        # Bundled originals stay out of the walk; anything forced elsewhere ships if it was vetted.
        keep_out = [item.distribution for item in walked if _stays_out_of_wheel(folders, item.source)]
        keep_out += [item.distribution for item in configured if not folders.ships(item.source)]
        # Where the originals of bundled targets would land (folders end in `/`): the audit finds them empty.
        local = {t: Path(os.path.relpath(t, collection.root)).as_posix() for t in local_targets(collection)}
        prefixes = [build_config.get_distribution_path(path) + ("/" if t.is_dir() else "") for t, path in local.items()]
    else:
        bundles, prefixes = [], []
        ours = {os.fspath(path): Path(os.path.relpath(path, root)).as_posix() for path in sdist_files(collection)}
        keep_out = [item.distribution for item in placed if not folders.ships(item.source)]
    build_data["force_include"].update(ours)
    reach_ins.reserve_paths(build_config, keep_out)
    return Prepared(target, folders, placed, bundles, prefixes, ours, staging)


def finish(prepared: Prepared, build_config: Any, build_data: dict[str, Any], artifact: Path) -> None:
    """Audit the built artifact against what `prepare` planned: delete it and stop the build on any surprise."""
    try:
        builder = build_config.builder
        # Where everything else forced into the artifact comes from (another hook's, the project's own).
        others = {k: v for k, v in build_data["force_include"].items() if prepared.forced.get(k) != v}
        wheel = prepared.target == "wheel"
        placed = prepared.placed + selection.forced(builder, others)
        if wheel:
            placed += selection.wheel_extras(builder, build_data)
        placed += selection.metadata_files(builder, wheel)
        origins = {item.archive: Origin(item.source, item.route) for item in placed}
    finally:
        if prepared.staging is not None:
            shutil.rmtree(prepared.staging, ignore_errors=True)
    tree = None if prepared.target == "wheel" else prepared.folders.collection.root
    checked = audit(artifact, prepared.bundles, prepared.prefixes, origins, prepared.folders, tree)
    if has_errors(checked.problems):
        artifact.unlink(missing_ok=True)
    fail_on_errors(checked.problems, f"{artifact.name} failed its audit and was deleted")
    done(checked.shipped.line(artifact.name))


def _sources(root: Path, target: str, config: FlueConfig, walked: list[Placed]) -> list[Source]:
    if config.packages is not None:
        return sources_under(config.packages)
    if target == "wheel":
        return selection.modules(walked)
    found = static_sources(root)  # the sdist scans what the wheel will ship
    return found if found is not None else guess_sources(root)


def _stays_out_of_wheel(folders: SkillFolders, path: Path) -> bool:
    """A bundled skill's or markdown file's original, or a file of a skill folder the vetting did not keep."""
    if path in folders.collection.markdown:
        return True
    folder = folders.folder_of(path)
    return folder is not None and (folders.referenced(folder) or folders.recorded(path) is None)


def _force_include(bundles: list[BundlePlan], staging: Path) -> dict[str, str]:
    """A `force_include` map (absolute source → wheel path) for every file and manifest.

    The map is keyed by source, so a file that two bundle packages both need is staged
    once more as a checked copy; manifests are written into `staging` too.
    """
    out: dict[str, str] = {}
    for index, bundle in enumerate(bundles):
        manifest = staging / f"{index}-manifest.json"
        manifest.write_bytes(bundle.manifest)
        out[os.fspath(manifest)] = bundle.manifest_path
        for item in bundle.files:
            source = item.source
            if source in out:
                copy = staging / "copies" / item.dest
                copy_checked(item, copy)
                source = os.fspath(copy)
            out[source] = item.dest
    return out
