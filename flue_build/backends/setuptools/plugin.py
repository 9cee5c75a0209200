"""The setuptools adapter: active only for a project whose pyproject.toml has a `[tool.flue]` table.

Registered as a `setuptools.finalize_distribution_options` entry point, so it runs for
every setuptools build in an environment that has flue-skills installed; for any other
project it returns after one file check. For a flue project each command below is a mixin
put in front of the class setuptools would run (`reach_ins.wrap_command_classes`
says why that is done at lookup), so a user's own `[tool.setuptools.cmdclass]` or
`setup(cmdclass=...)` still runs, underneath ours.

Every skill folder among the files setuptools selects is vetted (`flue_build.shipping`),
and only the files the vetting kept go on:

- egg_info: the file list (MANIFEST.in, package data, VCS plugins) loses every other file of
  a skill folder before SOURCES.txt is written; the sdist and `include-package-data` read it.
- build_py: copies every vetted file of a referenced skill and the manifest into
  `<pkg>/_flue_skills/` of the build folder, removes stale bundles, the original copies of
  bundled files and whatever else of a skill folder package-data patterns copied; in
  editable mode it writes only a manifest whose entries carry `source` (absolute paths),
  which strict editable installs link into their tree (lenient ones read the project
  through `__file__` and ignore it).
- bdist_wheel and sdist: audit the finished archives (`flue_build.audit`), deleting them on failure.
- editable_wheel: validates before anything is built (setuptools silences errors raised
  from a customised build_py in editable mode).
- sdist: adds every vetted file of a referenced skill and every markdown target the
  project's own rules (`exclude-package-data`, MANIFEST.in) do not exclude.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flue_build.backends.boundary import exits
from flue_build.backends.setuptools import reach_ins

if TYPE_CHECKING:
    from flue_build.audit import Origin
    from flue_runtime.format.diagnostics import Diagnostic

__all__ = ["finalize_distribution_options"]


_STATE = "_flue_skills_state"


def finalize_distribution_options(dist: Any) -> None:
    """Entry point: hook into `dist` when the project in the working folder opts in with `[tool.flue]`; otherwise
    only watch its build_py, to warn when the code it builds calls `skill()` (`_Unconfigured`)."""
    reach_ins.wrap_command_classes(
        dist, _MIXINS if _opted_in(Path(dist.src_root or os.curdir)) else {"build_py": _Unconfigured}
    )


def _opted_in(root: Path) -> bool:
    from flue_runtime.errors import ConfigError
    from flue_runtime.format.config import flue_table, read_pyproject

    try:
        return flue_table(read_pyproject(root)) is not None
    except ConfigError:
        return False  # not ours to judge: setuptools reports a broken pyproject.toml itself


# --- shared state: one scan, collection and set of skill folders per build process ----


class _State:
    def __init__(self, dist: Any) -> None:
        from flue_build.backends.dependency import missing_runtime_dependency
        from flue_build.backends.setuptools.selection import Exclusions, module_sources
        from flue_build.collect import collect
        from flue_build.pack import sdist_files
        from flue_build.scan.sources import package_folders, sources_under
        from flue_build.shipping import SkillFolders, without_excluded
        from flue_runtime.format.config import load_config

        self.root = Path(os.path.abspath(dist.src_root or os.curdir))
        self.context = _context(dist)
        config = load_config(self.root)
        build_py = dist.get_command_obj("build_py")
        build_py.ensure_finalized()
        if config.packages is not None:
            sources = sources_under(config.packages)
        else:
            sources = module_sources(self.root, build_py.find_all_modules())
        collection = collect(config, sources)
        requirements = dist.install_requires or []
        collection.diagnostics += missing_runtime_dependency(
            self.root, dist.get_name(), collection.references, requirements
        )
        exclusions = Exclusions(self.root, build_py, sdist_files(collection))  # every file it will be asked about
        self.collection, _ = without_excluded(collection, exclusions, "wheel and the sdist", strict=config.strict)
        self.folders = SkillFolders(self.collection, config)
        self.packages = package_folders(sources)
        self._unreported = list(self.collection.diagnostics)

    def shipped(self, dist: Any, files: list[str]) -> list[str]:
        """`files` (of a file list) without those of a skill folder the vetting did not keep, but for the files the
        configuration names one by one (`_named_files`)."""
        self.vet(self.root / f for f in files)
        named = _named_files(dist, self.root)
        return [f for f in files if self.folders.ships(self.root / f) or _normal(f) in named]

    def vet(self, paths: Iterable[Path]) -> None:
        """Vet every skill folder among `paths` not vetted yet, then report: what the collection
        found (the first time) and what this vetting found, all at once; fail on any error."""
        self.report(self.folders.meet(paths))

    def report(self, found: list[Diagnostic]) -> None:
        from flue_build.report import fail_on_errors

        pending, self._unreported = [*self._unreported, *found], []
        if pending:
            fail_on_errors(pending, self.context)

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
        for package, folder in self.packages.items():
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


def _state(dist: Any, *, report: bool = True) -> _State:
    """The build's state; with `report`, what it found is printed (once) and an error fails the build."""
    from flue_build.report import stops_build

    state = getattr(dist, _STATE, None)
    if state is None:
        with stops_build(_context(dist)):
            state = _State(dist)
        setattr(dist, _STATE, state)
    if report:
        state.report([])
    return state


#: The command a build runs for each artifact, and the artifact's name in what the build prints.
_ARTIFACTS = {"bdist_wheel": "wheel", "sdist": "sdist", "editable_wheel": "editable wheel"}


def _context(dist: Any) -> str:
    """What a failure stops: the artifact of the command being run (`egg_info` alone: the build)."""
    for command in getattr(dist, "commands", None) or ():
        if command in _ARTIFACTS:
            return f"{_ARTIFACTS[command]} not built"
    return "build stopped"


def _audit(
    state: _State, archive: Path, origins: dict[str, Origin], bundles: Any = (), prefixes: Any = (), sdist: bool = False
) -> None:
    """Audit one finished archive; delete it and fail the build on any problem."""
    from flue_build.audit import audit
    from flue_build.report import done, fail_on_errors
    from flue_runtime.format.diagnostics import has_errors

    checked = audit(archive, bundles, prefixes, origins, state.folders, state.root if sdist else None)
    if has_errors(checked.problems):
        archive.unlink(missing_ok=True)
    fail_on_errors(checked.problems, f"{archive.name} failed its audit and was deleted")
    done(checked.shipped.line(archive.name))


# --- command mixins -----------------------------------------------------------------
#
# Each is put in front of the class setuptools would run for its command (its own, or the project's
# `cmdclass`) by `reach_ins.wrap_command_classes`; `_base(self, mixin)` is that class's method
# resolution, untyped as setuptools is. Their entry methods are the backend boundary (`exits`).


class _Command:
    """What the mixins use of a setuptools command (setuptools ships no types)."""

    distribution: Any
    filelist: Any


def _base(command: _Command, mixin: type) -> Any:
    """The command class underneath `mixin` in `command`'s class: setuptools' own or the project's."""
    return super(mixin, command)


class _EggInfo(_Command):
    """Keep every file of a skill folder that the vetting did not keep out of the file list."""

    egg_info: str

    @exits()
    def find_sources(self) -> None:
        _base(self, _EggInfo).find_sources()
        files = list(self.filelist.files)
        kept = _state(self.distribution, report=False).shipped(self.distribution, files)
        if len(kept) != len(files):
            self.filelist.files = kept
            # egg_info's own writer of its files (as setuptools writes SOURCES.txt: POSIX separators, UTF-8)
            manifest = os.path.join(self.egg_info, "SOURCES.txt")
            _base(self, _EggInfo).write_file("SOURCES.txt", manifest, "\n".join(f.replace(os.sep, "/") for f in kept))


class _BuildPy(_Command):
    """Pack the bundles into the build folder after the usual build_py work."""

    _flue_outputs: list[str]
    build_lib: str

    @exits()
    def run(self) -> None:
        _base(self, _BuildPy).run()
        from flue_build.pack import copy_checked, plan
        from flue_build.report import stops_build

        state = _state(self.distribution)
        build_lib = Path(self.build_lib)
        editable = reach_ins.is_editable(self)
        bundles = plan(state.collection, editable=editable)
        outputs: list[str] = []
        for bundle in bundles:
            folder = build_lib.joinpath(*bundle.path.split("/"), "_flue_skills")
            if folder.exists():
                shutil.rmtree(folder)  # a bundle from an earlier build in the same folder
        if not editable:
            copied = reach_ins.build_outputs(self, state.root)
            data_files = [source for source, _ in _data_files(self.distribution, state.root, "")]
            state.vet([*copied, *data_files])
            for dest in state.original_dests():
                _remove(build_lib.joinpath(*dest.rstrip("/").split("/")))
            for source, target in copied.items():
                if not state.folders.ships(source):
                    _remove(target)  # what a package-data pattern or a namespace package took from a skill folder
        for bundle in bundles:
            for item in bundle.files:
                target = build_lib.joinpath(*item.dest.split("/"))
                with stops_build(state.context):  # a file changed since it was vetted
                    copy_checked(item, target)
                outputs.append(os.fspath(target))
            manifest = build_lib.joinpath(*bundle.manifest_path.split("/"))
            manifest.parent.mkdir(parents=True, exist_ok=True)
            manifest.write_bytes(bundle.manifest)
            outputs.append(os.fspath(manifest))
        self._flue_outputs = outputs

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs: list[str] = _base(self, _BuildPy).get_outputs(include_bytecode)
        return outputs + list(getattr(self, "_flue_outputs", []))


class _BdistWheel(_Command):
    """Audit the finished wheel: the vetted files in the bundles, no original copies, nothing else of a skill folder."""

    @exits()
    def run(self) -> None:
        _base(self, _BdistWheel).run()
        from flue_build.pack import plan

        dist = self.distribution
        state = _state(dist)
        wheels = [Path(f) for kind, _, f in getattr(dist, "dist_files", []) if kind == "bdist_wheel"]
        if not wheels:
            return
        from flue_build.audit import Origin

        build_py = _base(self, _BdistWheel).get_finalized_command("build_py")
        build_lib = state.root / build_py.build_lib
        origins = {
            Path(os.path.relpath(target, build_lib)).as_posix(): Origin(source, _PACKAGES)
            for source, target in reach_ins.build_outputs(build_py, state.root).items()
        }
        name = getattr(self, "wheel_dist_name", "")
        for source, dest, route in _explicit_files(dist, state.root, f"{name}.data/", f"{name}.dist-info/licenses/"):
            origins[dest] = Origin(source, route)
        _audit(state, wheels[-1], origins, plan(state.collection), state.original_dests())


class _EditableWheel(_Command):
    """Validate before an editable build: setuptools would swallow an error raised from build_py."""

    @exits()
    def run(self) -> None:
        from flue_build.pack import vetted_line
        from flue_build.report import done

        state = _state(self.distribution)
        _base(self, _EditableWheel).run()
        done(f"editable wheel: {vetted_line(state.collection)}")


class _Sdist(_Command):
    """The source distribution: the vetted files of every skill folder it selects, and every
    vetted file of a referenced skill and markdown target the project's rules do not exclude."""

    @exits()
    def make_distribution(self) -> None:
        from flue_build.audit import Origin
        from flue_build.pack import sdist_files

        dist = self.distribution
        state = _state(dist)
        filelist = self.filelist
        filelist.files = state.shipped(dist, filelist.files)
        present = {os.path.normpath(f) for f in filelist.files}
        for path in sdist_files(state.collection):
            relative = os.path.relpath(path, state.root)
            if os.path.normpath(relative) not in present:
                filelist.append(relative)
        _base(self, _Sdist).make_distribution()
        origins = {_normal(f): Origin(state.root / f, _FILE_LIST) for f in filelist.files}
        for source, dest, route in _explicit_files(dist, state.root, None, ""):
            if dest in origins:
                origins[dest] = Origin(source, route)
        for archive in getattr(self, "archive_files", None) or []:
            _audit(state, Path(archive), origins, sdist=True)


class _Unconfigured(_Command):
    """A project without `[tool.flue]`: built as setuptools builds it, untouched; but when the modules it builds call
    `skill()`/`markdown()`, a warning says the wheel ships no skills and which table to add (FLU501's words, which
    `flue-skills check` gives as an error)."""

    @exits()
    def run(self) -> None:
        _base(self, _Unconfigured).run()
        if reach_ins.is_editable(self):
            return  # an editable install reads its skills from the source tree: nothing is missing there
        from flue_build.backends.hook_setup import hook_problems, references_reason
        from flue_build.backends.setuptools.selection import module_sources
        from flue_build.report import emit
        from flue_build.scan.scanner import scan_file
        from flue_runtime.errors import FlueError
        from flue_runtime.format.config import read_pyproject
        from flue_runtime.format.diagnostics import Severity

        root = Path(os.path.abspath(self.distribution.src_root or os.curdir))
        try:
            sources = module_sources(root, _base(self, _Unconfigured).find_all_modules())
            count = sum(len(scan_file(source.path, source.module).calls) for source in sources)
            found = hook_problems(root, read_pyproject(root), references_reason(count)) if count else []
        except (FlueError, OSError):
            return  # a project that did not opt in is not ours to fail: setuptools reports what is its own
        emit([replace(problem, severity=Severity.WARNING) for problem in found])


_MIXINS: dict[str, type] = {
    "egg_info": _EggInfo,
    "build_py": _BuildPy,
    "bdist_wheel": _BdistWheel,
    "editable_wheel": _EditableWheel,
    "sdist": _Sdist,
}


def _data_files(dist: Any, root: Path, prefix: str) -> list[tuple[Path, str]]:
    """`data_files` (absolute source, `prefix` + its path under the data folder)."""
    out = []
    for entry in getattr(dist, "data_files", None) or []:
        folder, files = entry if isinstance(entry, tuple) else ("", [entry])
        for name in files:
            out.append((root / name, f"{prefix}{Path(folder, os.path.basename(name)).as_posix()}"))
    return out


#: The routes of what setuptools puts into an artifact, as an audit failure names them.
_PACKAGES = "packages and package data (build_py)"
_FILE_LIST = "the sdist file list (MANIFEST.in, package data, VCS file finders)"


def _explicit_files(dist: Any, root: Path, data: str | None, licenses: str) -> list[tuple[Path, str, str]]:
    """The files the configuration names one by one, whatever the file list holds: (absolute source,
    archive path, route). In a wheel (`data`: its `.data/` folder) `data-files` and `script-files`
    land in the data folder by file name, `license-files` under `licenses` at their own paths; in
    an sdist (`data` None) each lands at its own path."""
    out = []
    for source, dest in _data_files(dist, root, f"{data}data/" if data is not None else ""):
        out.append((source, dest if data is not None else _normal(os.path.relpath(source, root)), "data-files"))
    for name in getattr(dist, "scripts", None) or []:
        dest = f"{data}scripts/{os.path.basename(name)}" if data is not None else _normal(name)
        out.append((root / name, dest, "script-files"))
    for name in getattr(dist.metadata, "license_files", None) or []:
        dest = f"{licenses}{_license_path(name)}" if data is not None else _normal(name)
        out.append((root / name, dest, "license-files"))
    return out


def _license_path(name: str) -> str:
    """Where setuptools puts a license file under `.dist-info/licenses/` (`_safe_license_file`: its own
    path, or its name for a path out of the project)."""
    normal = _normal(name)
    return os.path.basename(normal) if "../" in normal else normal


def _named_files(dist: Any, root: Path) -> set[str]:
    """The project-relative paths of every file the configuration names one by one (`license-files`,
    `script-files`, `data-files`): kept in the sdist's file list whatever they are, so that a file
    of a skill folder the vetting did not keep fails the sdist's audit, naming its setting, instead
    of leaving an sdist whose metadata names a file it lacks."""
    return {_normal(os.path.relpath(source, root)) for source, _, _ in _explicit_files(dist, root, None, "")}


def _normal(path: str) -> str:
    """A project-relative path as an archive names it: normalised, POSIX."""
    return Path(os.path.normpath(path)).as_posix()


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)
