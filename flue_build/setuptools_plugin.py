"""The setuptools adapter: active only for a project whose pyproject.toml has a `[tool.flue]` table.

Registered as a `setuptools.finalize_distribution_options` entry point, so it runs for
every setuptools build in an environment that has flue-skills installed; for any other
project it returns after one file check. For a flue project it wraps the command classes
as setuptools looks them up (`Distribution.get_command_class`), so a user's own
`[tool.setuptools.cmdclass]` or `setup(cmdclass=...)` still runs, underneath ours:

- build_py: copies every vetted file and the manifest into `<pkg>/_flue_skills/` of the
  build folder, and removes stale bundles and the original copies of bundled files; in
  editable mode it writes only a manifest whose entries carry `source` (absolute
  paths), which strict editable installs link into their tree (lenient ones read the
  project through `__file__` and ignore it).
- bdist_wheel: audits the finished wheel (`flue_build.audit`) and deletes it on failure.
- editable_wheel: validates before anything is built (setuptools silences errors raised
  from a customised build_py in editable mode).
- sdist: adds every vetted skill file and markdown target to the archive.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

_STATE = "_flue_skills_state"
_WRAPPED = "_flue_skills_wrapped"


def finalize_distribution_options(dist: Any) -> None:
    """Entry point: hook into `dist` when the project in the working folder opts in with `[tool.flue]`."""
    if getattr(dist, _WRAPPED, False) or not _opted_in(Path(dist.src_root or os.curdir)):
        return
    original = dist.get_command_class
    cache: dict[tuple[str, type], type] = {}

    def get_command_class(command: str) -> type:
        base: type = original(command)
        mixin = _MIXINS.get(command)
        if mixin is None or issubclass(base, mixin):
            return base
        key = (command, base)
        if key not in cache:
            cache[key] = type(base.__name__, (mixin, base), {"command_name": command, "__module__": base.__module__})
        return cache[key]

    dist.get_command_class = get_command_class
    setattr(dist, _WRAPPED, True)


def _opted_in(root: Path) -> bool:
    from flue_runtime.errors import ConfigError
    from flue_runtime.format.config import flue_table, read_pyproject

    try:
        return flue_table(read_pyproject(root)) is not None
    except ConfigError:
        return False  # not ours to judge: setuptools reports a broken pyproject.toml itself


# --- shared state: one scan and collection per build process ------------------------


class _State:
    def __init__(self, dist: Any) -> None:
        from flue_build.collect import collect
        from flue_build.report import fail_on_errors
        from flue_build.scan.selection import setuptools_modules
        from flue_build.scan.sources import package_folders, sources_under
        from flue_runtime.format.config import load_config

        self.root = Path(os.path.abspath(dist.src_root or os.curdir))
        config = load_config(self.root)
        if config.packages is not None:
            sources = sources_under(config.packages)
        else:
            build_py = dist.get_command_obj("build_py")
            build_py.ensure_finalized()
            sources = setuptools_modules(self.root, build_py.find_all_modules())
        self.collection = collect(config, sources)
        fail_on_errors(self.collection.diagnostics, "flue-skills", self.collection.references)
        self.folders = package_folders(sources)

    def original_dests(self) -> list[str]:
        """Where setuptools would put the original copies of bundled files: wheel paths, folders ending in `/`."""
        from flue_build.pack import local_targets

        out = []
        for target in local_targets(self.collection):
            dest = self._dest(target)
            if dest is not None:
                out.append(dest + "/" if target.is_dir() else dest)
        return out

    def _dest(self, path: Path) -> str | None:
        best: tuple[int, str, Path] | None = None
        for package, folder in self.folders.items():
            try:
                relative = path.relative_to(folder)
            except ValueError:
                continue
            depth = len(folder.parts)
            if best is None or depth > best[0]:
                best = (depth, package, relative)
        if best is None:
            return None
        return "/".join([*best[1].split("."), *best[2].parts])


def _state(dist: Any) -> _State:
    state = getattr(dist, _STATE, None)
    if state is None:
        state = _State(dist)
        setattr(dist, _STATE, state)
    return state


# --- command mixins -----------------------------------------------------------------


class _BuildPy:
    """Pack the bundles into the build folder after the usual build_py work."""

    _flue_outputs: list[str]

    def run(self) -> None:
        super().run()  # type: ignore[misc]
        from flue_build.pack import copy_checked, plan

        state = _state(self.distribution)  # type: ignore[attr-defined]
        build_lib = Path(self.build_lib)  # type: ignore[attr-defined]
        editable = bool(getattr(self, "editable_mode", False))
        bundles = plan(state.collection, editable=editable)
        outputs: list[str] = []
        for bundle in bundles:
            folder = build_lib.joinpath(*bundle.path.split("/"), "_flue_skills")
            if folder.exists():
                shutil.rmtree(folder)  # a bundle from an earlier build in the same folder
        if not editable:
            for dest in state.original_dests():
                _remove(build_lib.joinpath(*dest.rstrip("/").split("/")))
        for bundle in bundles:
            for item in bundle.files:
                target = build_lib.joinpath(*item.dest.split("/"))
                copy_checked(item, target)
                outputs.append(os.fspath(target))
            manifest = build_lib.joinpath(*bundle.manifest_path.split("/"))
            manifest.parent.mkdir(parents=True, exist_ok=True)
            manifest.write_bytes(bundle.manifest)
            outputs.append(os.fspath(manifest))
        self._flue_outputs = outputs

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs: list[str] = super().get_outputs(include_bytecode)  # type: ignore[misc]
        return outputs + list(getattr(self, "_flue_outputs", []))


class _BdistWheel:
    """Audit the finished wheel: exactly the vetted files in the bundles, no original copies."""

    def run(self) -> None:
        super().run()  # type: ignore[misc]
        from flue_build.audit import audit_wheel
        from flue_build.pack import plan
        from flue_build.report import fail_on_errors

        dist = self.distribution  # type: ignore[attr-defined]
        state = _state(dist)
        wheels = [Path(f) for kind, _, f in getattr(dist, "dist_files", []) if kind == "bdist_wheel"]
        if not wheels:
            return
        wheel = wheels[-1]
        problems = audit_wheel(wheel, plan(state.collection), state.original_dests())
        if problems:
            wheel.unlink(missing_ok=True)
            fail_on_errors(problems, "flue-skills: wheel audit failed")


class _EditableWheel:
    """Validate before an editable build: setuptools would swallow an error raised from build_py."""

    def run(self) -> None:
        _state(self.distribution)  # type: ignore[attr-defined]
        super().run()  # type: ignore[misc]


class _Sdist:
    """Put every vetted skill file and markdown target into the source distribution."""

    def make_distribution(self) -> None:
        from flue_build.pack import sdist_files

        state = _state(self.distribution)  # type: ignore[attr-defined]
        filelist = self.filelist  # type: ignore[attr-defined]
        present = {os.path.normpath(f) for f in filelist.files}
        for path in sdist_files(state.collection):
            relative = os.path.relpath(path, state.root)
            if os.path.normpath(relative) not in present:
                filelist.append(relative)
        super().make_distribution()  # type: ignore[misc]


_MIXINS: dict[str, type] = {
    "build_py": _BuildPy,
    "bdist_wheel": _BdistWheel,
    "editable_wheel": _EditableWheel,
    "sdist": _Sdist,
}


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)
