"""From a project's modules to everything a build needs: resolved references, vetted skills, every problem.

Plain library code, callable without a build (the CLI's `check PROJECT_DIR` does): the
backend adapters hand in their modules and get back a `Collection`; `flue_build.pack`
turns it into files and manifests.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from flue_build.scan.scanner import Call, scan_file
from flue_build.scan.selection import project_sources
from flue_build.scan.sources import INIT, Source, package_folders, sort_sources
from flue_runtime.errors import MountError
from flue_runtime.format.config import PYPROJECT, FlueConfig, load_config, project_config, read_pyproject
from flue_runtime.format.diagnostics import Diagnostic, apply_strict, bounded, diagnostic, has_errors
from flue_runtime.format.exports import export_kind, not_exported
from flue_runtime.format.manifest import BUNDLE_DIR, MANIFEST_FILE, Manifest
from flue_runtime.format.markdown_file import MarkdownFile, vet_markdown
from flue_runtime.format.messages import piece
from flue_runtime.format.nearest import nearest_path
from flue_runtime.format.paths import display_path, is_inside
from flue_runtime.format.skill_folder import VettedSkill, vet_skill
from flue_runtime.format.vetting import Limits, format_size

#: How a resolution step reports a problem at the call being resolved: a key of `messages.CODES` and its values.
_Report = Callable[..., None]


@dataclass(frozen=True)
class Resolved:
    """What a spec resolved to: a skill folder, a markdown file, or a package resolved at run time."""

    kind: Literal["skill", "markdown", "package"]
    spec: str
    path: Path | None = None


@dataclass
class BundleRefs:
    """The references made by the modules of one bundle package."""

    package: str
    folder: Path
    references: dict[str, dict[str, Resolved]] = field(default_factory=dict)


@dataclass
class Collection:
    root: Path
    diagnostics: list[Diagnostic] = field(default_factory=list)
    skills: dict[Path, VettedSkill] = field(default_factory=dict)
    markdown: dict[Path, MarkdownFile] = field(default_factory=dict)
    bundles: dict[str, BundleRefs] = field(default_factory=dict)
    modules: int = 0
    references: int = 0
    #: `[tool.flue] exports`: None when the project declares none. Each exported target is also a
    #: reference of its bundle package's own module, and every bundle package of the build records
    #: the list (docs/internals.md).
    exports: tuple[str, ...] | None = None

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)

    def display(self, path: Path) -> str:
        """`path` relative to the project root, POSIX style; as given when outside it."""
        return display_path(path, self.root)


def collect(config: FlueConfig, sources: Sequence[Source]) -> Collection:
    """Scan `sources`, resolve every reference, vet every target; `config.strict` makes warnings errors."""
    root = Path(os.path.abspath(config.root))
    result = Collection(root)
    packages = package_folders(sources)
    collector = _Collector(result, config, packages)
    for source in sort_sources(sources):
        result.modules += 1
        scanned = scan_file(source.path, functools.partial(result.display, source.path))
        result.diagnostics.extend(scanned.diagnostics)
        for call in scanned.calls:
            result.references += 1
            collector.reference(source, call)
    if config.exports is not None:
        collector.exports(config.exports, sources)
    result.diagnostics.extend(_bundle_size(result, config.limits))
    result.diagnostics.sort(key=lambda d: (d.path, d.line or 0, d.column or 0))
    result.diagnostics = apply_strict(bounded(result.diagnostics), config.strict)
    return result


@dataclass
class ProjectCheck:
    config: FlueConfig
    sources: list[Source]
    collection: Collection


def check_project(root: Path) -> ProjectCheck:
    """Scan and collect exactly as a build of `root` would; raises `ConfigError` on bad configuration."""
    root = Path(os.path.abspath(root))
    pyproject = read_pyproject(root)
    config = load_config(root, pyproject)
    sources = project_sources(root, pyproject, config)
    return ProjectCheck(config, sources, collect(config, sources))


class _Collector:
    def __init__(self, result: Collection, config: FlueConfig, packages: dict[str, Path]) -> None:
        self.result = result
        self.root = result.root
        self.allow = config.allow
        self.limits = config.limits
        self.packages = packages

    def reference(self, source: Source, call: Call) -> None:
        where = self.result.display(source.path)

        def report(key: str, **values: Any) -> None:
            self.result.diagnostics.append(diagnostic(key, where, call.line, call.column, **values))

        bundle = source.bundle_package()
        if bundle is None:
            report("FLU407", module=source.module, kind=call.kind)
            return
        target = self._resolve(source, call, report)
        if target is None:
            return
        package, folder = bundle
        refs = self.result.bundles.setdefault(package, BundleRefs(package, folder))
        refs.references.setdefault(source.module, {})[call.spec] = target

    def exports(self, specs: Sequence[str], sources: Sequence[Source]) -> None:
        """Vet and bundle every exported target, referenced or not, as a reference of the bundle package
        holding it; and give every bundle package of the build a manifest, so each records the exports."""
        self.result.exports = tuple(specs)
        pyproject = self.root / PYPROJECT
        text = _read_text(pyproject)
        for spec in specs:
            line, column = _position(text, spec)
            call = Call(export_kind(spec), spec, line, column)

            def report(key: str, line: int = line, column: int = column, **values: Any) -> None:
                self.result.diagnostics.append(diagnostic(key, PYPROJECT, line, column, **values))

            self._export(call, report)
        for source in sources:
            bundle = source.bundle_package()
            if bundle is not None:
                self.result.bundles.setdefault(bundle[0], BundleRefs(*bundle))

    def _export(self, call: Call, report: _Report) -> None:
        segments = call.spec.split("/")
        holder = next(
            (depth for depth in range(len(segments) - 1, 0, -1) if ".".join(segments[:depth]) in self.packages), None
        )
        bundle = next(
            (
                (name, self.packages[name])
                for name in (".".join(segments[:depth]) for depth in range(1, len(segments)))
                if name in self.packages and (self.packages[name] / INIT).is_file()
            ),
            None,
        )
        if holder is None or bundle is None:
            where = piece("FLU414 no package" if holder is None else "FLU414 no bundle")
            packages = [piece("FLU414 package", name=name.replace(".", "/")) for name in sorted(self.packages)[:5]]
            report("FLU414", spec=call.spec, where=where, packages=", ".join(packages) or piece("FLU414 example"))
            return
        path = self.packages[".".join(segments[:holder])].joinpath(*segments[holder:])
        target = self._local(None, call, path, report)
        if target is None:
            return
        refs = self.result.bundles.setdefault(bundle[0], BundleRefs(*bundle))
        refs.references.setdefault(bundle[0], {}).setdefault(call.spec, target)

    # resolution -------------------------------------------------------------------

    def _resolve(self, source: Source, call: Call, report: _Report) -> Resolved | None:
        spec = call.spec
        segments = spec.split("/")
        if segments[0] in (".", ".."):
            path = Path(os.path.normpath(os.path.join(source.path.parent, spec)))
            if not is_inside(self.root, path):
                report("FLU406", spec=spec, path=path, root=self.root)
                return None
            return self._local(source.path, call, path, report)
        for depth in range(len(segments) - 1, 0, -1):
            folder = self.packages.get(".".join(segments[:depth]))
            if folder is not None:
                return self._local(source.path, call, folder.joinpath(*segments[depth:]), report)
        beside = source.path.parent.joinpath(*segments)
        if (beside.parent if call.kind == "skill" else beside).exists():
            locations = _package_locations(segments[0])
            if locations is None or not _holds(call, locations):
                report("FLU415", spec=spec, top=segments[0], beside=self.result.display(beside), kind=call.kind)
                return None
        return self._external(call, report)

    def _local(self, module: Path | None, call: Call, path: Path, report: _Report) -> Resolved | None:
        """A target inside the project: checked, vetted, bundled. `module`: the referencing module's file."""
        shown = self.result.display(path.parent if call.kind == "skill" else path)
        link = symlink_on_path(self.root, path.parent if call.kind == "skill" else path)
        if link is not None:
            report("FLU301 reference", spec=call.spec, link=self.result.display(link))
            return None
        if call.kind == "markdown":
            if not os.path.lexists(path):
                report("FLU404 markdown", shown=shown, spec=call.spec, hint=self._missing_hint(module, call))
                return None
            if path not in self.result.markdown:
                text = vet_markdown(path, shown, self.allow, self.limits)
                self.result.markdown[path] = text
                self.result.diagnostics.extend(text.diagnostics)
            return Resolved("markdown", call.spec, path)
        folder = path.parent
        if not folder.is_dir():
            report("FLU404 skill", shown=shown, spec=call.spec, hint=self._missing_hint(module, call))
            return None
        if (folder / INIT).exists() or (module is not None and is_inside(folder, module)):
            report("FLU408", shown=shown)
            return None
        if folder not in self.result.skills:
            vetted = vet_skill(folder, display=shown, allow=self.allow, limits=self.limits)
            self.result.skills[folder] = vetted
            self.result.diagnostics.extend(vetted.diagnostics)
        return Resolved("skill", call.spec, folder)

    def _missing_hint(self, module: Path | None, call: Call) -> str:
        """ "did you mean" the spec of the closest existing path (`nearest_path`), else how specs resolve."""
        segments = call.spec.split("/")
        if segments[0] in (".", ".."):
            fixed = nearest_path(os.fspath(module.parent), segments) if module is not None else None
        else:
            depth = next((d for d in range(len(segments) - 1, 0, -1) if ".".join(segments[:d]) in self.packages), 0)
            folder = self.packages.get(".".join(segments[:depth]))
            fixed = None if folder is None else nearest_path(os.fspath(folder), segments[depth:])
            fixed = None if fixed is None else [*segments[:depth], *fixed]
        if fixed is not None:
            return piece("FLU404 did you mean", spec="/".join(fixed))
        return piece("FLU404 relative" if call.spec.startswith(".") else "FLU404 package")

    def _external(self, call: Call, report: _Report) -> Resolved | None:
        """A package spec naming another distribution: validated here when importable (an export of it,
        when it declares exports), never bundled."""
        top, *rest = call.spec.split("/")
        locations = _package_locations(top)
        if locations is None:
            report("FLU405", top=top, spec=call.spec)
            return Resolved("package", call.spec)
        bundle = bundle_folder(call.spec, locations)
        exports = producer_exports(bundle)
        if exports is not None and call.spec not in exports:
            key, values = not_exported(call.spec, exports)
            report(key, **values)
            return None
        relative = Path(*rest)
        wanted = relative.parent if call.kind == "skill" else relative
        for location in locations:
            path = location / wanted
            if call.kind == "skill" and path.is_dir():
                if path not in self.result.skills:
                    vetted = vet_skill(path, display=str(path), allow=self.allow, limits=self.limits)
                    self.result.skills[path] = vetted
                    self.result.diagnostics.extend(vetted.diagnostics)
                return Resolved("package", call.spec)
            if call.kind == "markdown" and os.path.lexists(path):
                if path not in self.result.markdown:
                    text = vet_markdown(path, str(path), self.allow, self.limits)
                    self.result.markdown[path] = text
                    self.result.diagnostics.extend(text.diagnostics)
                return Resolved("package", call.spec)
        if bundle is not None and (bundle / BUNDLE_DIR / MANIFEST_FILE).is_file():
            return Resolved("package", call.spec)  # installed from a wheel built with the hook: its own build vetted it
        report("FLU404 package", top=top, rest="/".join(rest), location=locations[0])
        return Resolved("package", call.spec)


def _holds(call: Call, locations: Sequence[Path]) -> bool:
    """Whether the importable package `locations` are of has what package spec `call` names, on disk or in a
    bundle (a folder named like the spec's first segment on `sys.path` is a namespace package, often by chance)."""
    top, *rest = call.spec.split("/")
    wanted = Path(*rest).parent if call.kind == "skill" else Path(*rest)
    if any((location / wanted).exists() for location in locations):
        return True
    bundle = bundle_folder(call.spec, locations)
    return bundle is not None and (bundle / BUNDLE_DIR / MANIFEST_FILE).is_file()


def bundle_folder(spec: str, locations: Sequence[Path]) -> Path | None:
    """Where the bundle of package spec `spec` would be: the folder of the outermost regular package on its
    path (namespace portions skipped, as the run time does), found among the top package's `locations`."""
    segments = spec.split("/")
    for location in locations:
        folder = location
        for segment in segments[1:]:
            if (folder / INIT).is_file():
                return folder
            folder = folder / segment
            if not folder.is_dir():
                break
    return None


def producer_exports(bundle: Path | None) -> tuple[str, ...] | None:
    """The exports of the distribution whose bundle package is at `bundle`, as the run time reads them: from
    its manifest, or, for a package read from its source tree (an editable install), from its project's
    `[tool.flue]`; None when it declares none."""
    if bundle is None:
        return None
    manifest = bundle / BUNDLE_DIR / MANIFEST_FILE
    if not manifest.is_file():
        return project_config(bundle).exports
    try:
        return Manifest.loads(manifest.read_bytes()).exports
    except (OSError, MountError):
        return None  # a damaged bundle: the run time refuses it with a MountError


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _position(text: str, spec: str) -> tuple[int, int]:
    """Line and column (1-based) of `spec` written as a TOML string in `text`, else of the `exports` key."""
    found = [text.find(f"{quote}{spec}{quote}") for quote in ('"', "'")]
    index = max(found) if min(found) < 0 else min(found)
    if index < 0:
        key = re.search(r"^[ \t]*exports[ \t]*=", text, re.MULTILINE)
        index = key.start() if key else 0
    return text.count("\n", 0, index) + 1, index - (text.rfind("\n", 0, index) + 1) + 1


def _bundle_size(result: Collection, limits: Limits) -> list[Diagnostic]:
    """FLU311 when the bundles of this build add up to more than `limits.bundle_size` bytes.

    Each bundle package holds each of its skills and markdown files once; a single skill
    or file over the limit was refused when it was vetted, so it is not reported twice.
    """
    if any(d.code == "FLU311" for d in result.diagnostics):
        return []
    total = 0
    sizes: dict[Path, int] = {}
    for refs in result.bundles.values():
        targets = {t.path: t.kind for module in refs.references.values() for t in module.values() if t.path is not None}
        for path, kind in targets.items():
            if kind == "skill" and path in result.skills:
                size = sum(f.size for f in result.skills[path].files)
            elif kind == "markdown" and path in result.markdown:
                size = result.markdown[path].size
            else:
                continue
            sizes[path] = sizes.get(path, 0) + size
            total += size
    if total <= limits.bundle_size:
        return []
    largest = sorted(sizes, key=lambda p: -sizes[p])[:3]
    shown = ", ".join(f"{result.display(p)} ({format_size(sizes[p])})" for p in largest)
    return [
        diagnostic(
            "FLU311 bundles", PYPROJECT, total=format_size(total), limit=format_size(limits.bundle_size), largest=shown
        )
    ]


def symlink_on_path(root: Path, path: Path) -> Path | None:
    """The first symbolic link between `root` (excluded) and `path` (included), if any."""
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return None
    current = root
    for part in parts:
        current = current / part
        try:
            if stat.S_ISLNK(os.lstat(current).st_mode):
                return current
        except OSError:
            return None
    return None


def _package_locations(top: str) -> list[Path] | None:
    """The folders of importable package `top`, without importing it; None when it is not importable."""
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return [Path(location) for location in spec.submodule_search_locations]


__all__ = ["BundleRefs", "Collection", "Resolved", "collect"]
