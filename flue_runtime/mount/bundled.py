"""Skills bundled into an installed package: its manifest, loaded once, and files read on demand.

A module's *bundle package* is the outermost regular package on its dotted path
(docs/internals.md). Its `_flue_skills/manifest.json` is read once per process, so knowing
every skill's metadata costs one JSON load: no YAML, no jsonschema, no directory listing.
Skill files are read only when asked for and checked against the size and SHA-256 the build
recorded. Every read, of the manifest or a file, is one bounded read (`_read`): the size on
record comes first (from a folder `read_regular`: non-blocking, a regular file only, so a FIFO
put in a file's place is refused at once; from a zipped wheel its index, `mount.zipped`), and
no read takes more than the limit plus one byte.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import sys
import threading
from dataclasses import dataclass
from importlib.machinery import ModuleSpec
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: importing importlib.resources would weigh on the mount path (tempfile, zipfile)
    from importlib.resources.abc import Traversable

from flue_runtime.errors import MountError, UnsafeFileError
from flue_runtime.format.manifest import (
    BUNDLE_DIR,
    MANIFEST_FILE,
    MANIFEST_LIMIT,
    Manifest,
    MarkdownEntry,
    SkillEntry,
)
from flue_runtime.format.records import SKILL_FILE, PackedFile
from flue_runtime.format.safe_read import read_regular
from flue_runtime.mount.reference import Kind, MountedSource, SkillReference

__all__ = [
    "BundleSource",
    "InstalledBundle",
    "bundle_of",
    "bundle_package",
    "clear_caches",
    "is_regular_package",
    "module_spec",
]


_lock = threading.RLock()  # re-entrant: reading a bundle may import its package, whose code may call skill()
_bundles: dict[str, InstalledBundle | None] = {}
_bundle_names: dict[str, str | None] = {}


def module_spec(name: str) -> ModuleSpec | None:
    """The import spec of `name`: from `sys.modules` when imported, else found without running it."""
    module = sys.modules.get(name)
    spec = getattr(module, "__spec__", None) if module is not None else None
    if spec is not None:
        return spec  # type: ignore[no-any-return]
    from importlib.util import find_spec

    try:
        return find_spec(name)
    except (ImportError, ValueError):
        return None


def is_regular_package(spec: ModuleSpec | None) -> bool:
    """A package with an `__init__` (a namespace package has no origin)."""
    return (
        spec is not None
        and spec.submodule_search_locations is not None
        and spec.origin is not None
        and spec.origin != "namespace"
    )


def bundle_package(module: str) -> str | None:
    """The outermost regular package on `module`'s dotted path, or None (a top-level module)."""
    try:
        return _bundle_names[module]
    except KeyError:
        pass
    parts = module.split(".")
    found = None
    for depth in range(1, len(parts) + 1):
        name = ".".join(parts[:depth])
        if is_regular_package(module_spec(name)):
            found = name
            break
    _bundle_names[module] = found
    return found


def bundle_of(package: str) -> InstalledBundle | None:
    """The bundle of `package` (loaded once), or None when it has no manifest."""
    try:
        return _bundles[package]
    except KeyError:
        pass
    with _lock:
        if package not in _bundles:
            location = _location(package)
            data = _manifest_bytes(package, location)
            _bundles[package] = None if data is None else InstalledBundle(package, _parse(package, data), location)
        return _bundles[package]


def clear_caches() -> None:
    """Forget every manifest and bundle package seen so far (tests, or after installing packages)."""
    with _lock:
        _bundles.clear()
        _bundle_names.clear()
    from flue_runtime.mount.zipped import forget

    forget()


def _manifest_bytes(package: str, location: _Location | None) -> bytes | None:
    """The manifest's bytes, its size on record checked against `MANIFEST_LIMIT` before anything is read or
    inflated; None when the package has none."""
    shown = f"of {package!r}" if location is None else os.path.join(location.folder, BUNDLE_DIR, MANIFEST_FILE)
    try:
        return _read(package, location, f"{BUNDLE_DIR}/{MANIFEST_FILE}", MANIFEST_LIMIT)
    except (FileNotFoundError, KeyError):
        return None
    except UnsafeFileError as exc:
        raise MountError(f"cannot read the skill bundle manifest {shown}: it {exc.reason}") from None
    except OSError as exc:
        raise MountError(f"cannot read the skill bundle manifest {shown}: {exc.strerror or exc}") from None


def _read(package: str, location: _Location | None, path: str, limit: int) -> bytes:
    """The bytes of `package`'s file at `path` (POSIX, relative to the package), refused (FLU311) when its
    size on record is over `limit` before anything is read or inflated, never more than `limit + 1` bytes
    read; `FileNotFoundError` or `KeyError` when it is not there."""
    if location is not None:
        full = os.path.join(location.folder, *path.split("/"))
        if location.archive is None:
            return read_regular(full, limit=limit, follow=True).data or b""
        from flue_runtime.mount.zipped import archive  # only for a zipped wheel: mounting from a folder skips it

        return archive(location.archive).read_limited(_relative(location.archive, full), limit)
    node = _root(package)
    for segment in path.split("/"):
        node = node / segment
    try:
        with node.open("rb") as handle:
            data = bytes(handle.read(limit + 1))
    except (OSError, KeyError):
        raise
    except Exception as exc:  # whatever a foreign loader's reader raises (zlib.error, BadZipFile...)
        raise MountError(
            f"{package.replace('.', '/')}/{path}: cannot be read ({type(exc).__name__}: {exc}); "
            f"reinstall {package.split('.')[0]!r}"
        ) from None
    if len(data) > limit:
        raise UnsafeFileError(path, "FLU311", f"holds over {limit:,} bytes")
    return data


def _relative(archive: str, full: str) -> str:
    """The member name of `full` (a path inside the archive's file) in the zip."""
    return os.path.relpath(full, archive).replace(os.sep, "/")


@dataclass(frozen=True, slots=True)
class _Location:
    """Where a package's files are, when its loader reads them by path."""

    #: The package's folder: on disk, or inside the zip archive.
    folder: str
    #: The zip archive of a zipped package (zipimporter), None for a folder.
    archive: str | None


def _location(package: str) -> _Location | None:
    """Where `package`'s files are, when its loader reads them by path: a plain folder
    (SourceFileLoader) or a zipped wheel (zipimporter); None for any other loader."""
    spec = module_spec(package)
    if spec is None:
        return None
    get_data = getattr(spec.loader, "get_data", None)
    if spec.origin and spec.has_location and callable(get_data):
        archive = getattr(spec.loader, "archive", None)
        return _Location(os.path.dirname(spec.origin), archive if isinstance(archive, str) else None)
    return None


def _parse(package: str, data: bytes) -> Manifest:
    """The manifest, checked (`Manifest.loads`): a `MountError` naming it otherwise."""
    return Manifest.loads(data, f"{package.replace('.', '/')}/{BUNDLE_DIR}/{MANIFEST_FILE}")


def _root(package: str) -> Traversable:
    from importlib.resources import files

    return files(package)


class InstalledBundle:
    """One package's bundle: its manifest, and the skills and markdown files it holds."""

    def __init__(
        self,
        package: str,
        manifest: Manifest,
        location: _Location | None = None,
    ) -> None:
        self.package = package
        self.manifest = manifest
        self._root: Traversable | None = None
        self._location = location
        self._references: dict[str, SkillReference] = {}
        self._paths: dict[str, tuple[str, str]] | None = None

    def __repr__(self) -> str:
        return f"InstalledBundle({self.package!r})"

    def where(self, path: str = "") -> str:
        """A bundle path as shown in messages: `package/_flue_skills/...`."""
        return f"{self.package.replace('.', '/')}/{path or BUNDLE_DIR}"

    def read_checked(self, path: str, size: int, sha256: str) -> bytes:
        """The bytes of a file of the bundle (`path`: POSIX, relative to the package), refusing
        bytes that differ from what the build recorded. At most `size + 1` bytes are read,
        and a file that is not regular (a FIFO put in its place) is refused without blocking."""
        try:
            data = _read(self.package, self._location, path, size)
        except UnsafeFileError as exc:
            if exc.code != "FLU311":
                raise MountError(
                    f"{self.where(path)}: {exc.reason}; refused: reinstall {self.package.split('.')[0]!r}"
                ) from None
            data = b""  # larger than recorded: it differs
        except (OSError, KeyError) as exc:
            raise MountError(
                f"{self.where(path)}: missing from the installed package ({type(exc).__name__}); "
                f"the installation is incomplete: reinstall {self.package.split('.')[0]!r}"
            ) from None
        if len(data) != size or hashlib.sha256(data).hexdigest() != sha256:
            raise MountError(
                f"{self.where(path)}: differs from the bundle manifest (changed after the build); "
                f"reinstall {self.package.split('.')[0]!r}"
            )
        return data

    def is_executable(self, path: str) -> bool:
        """Whether the installed file at `path` has an executable bit: on disk its mode, in a zipped
        wheel on sys.path the mode its zip entry records (a loader that reads no paths tells none)."""
        if self._location is None:
            return False
        full = os.path.join(self._location.folder, *path.split("/"))
        if self._location.archive is None:
            return bool(os.stat(full).st_mode & 0o111)
        from flue_runtime.mount.zipped import archive

        return bool(archive(self._location.archive).mode(_relative(self._location.archive, full)) & 0o111)

    # --- skills and markdown -----------------------------------------------------------

    def skill(self, id: str) -> SkillReference:
        """The reference for skill `id` of this bundle, made once and shared."""
        ref = self._references.get(id)
        if ref is None:
            entry = self.skill_entry(id)
            ref = self._references.setdefault(
                id, SkillReference(entry.metadata, BundleSource(self, entry), known_id=entry.id)
            )
        return ref

    def markdown_entry(self, id: str) -> MarkdownEntry:
        try:
            return self.manifest.markdown(id)
        except KeyError:
            raise MountError(
                f"{self.where()}: the manifest names markdown {id!r} but does not list it; reinstall"
            ) from None

    def markdown_text(self, entry: MarkdownEntry) -> str:
        data = self.read_checked(entry.path, entry.size, entry.sha256)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MountError(f"{self.where(entry.path)}: not UTF-8 ({exc})") from None
        return text[1:] if text.startswith("\ufeff") else text

    def skill_entry(self, id: str) -> SkillEntry:
        try:
            return self.manifest.skill(id)
        except KeyError:
            raise MountError(
                f"{self.where()}: the manifest names skill {id!r} but does not list it; reinstall"
            ) from None

    # --- package specs ---------------------------------------------------------------

    def lookup(self, path: str) -> tuple[str, str] | None:
        """What the bundle holds at `path` (relative to the package): ("skill"|"markdown", id), or None.

        A package spec names a file by where it sits in the package's source; the manifest
        records references per module, so the index is rebuilt from them once, on first use.
        """
        if self._paths is None:
            self._paths = self._index()
        return self._paths.get(path)

    def paths(self, kind: str) -> list[str]:
        """Every path a package spec can name in this bundle, for `kind` ("skill" or "markdown")."""
        if self._paths is None:
            self._paths = self._index()
        return sorted(path for path, (found, _) in self._paths.items() if found == kind)

    def _index(self) -> dict[str, tuple[str, str]]:
        prefix = self.package.replace(".", "/") + "/"
        index: dict[str, tuple[str, str]] = {}
        for module in self.manifest.modules():
            base: str | None = None
            for spec, ref in self.manifest.references_of(module).items():
                if ref.kind == "package":
                    continue
                if spec.startswith(("./", "../")):
                    if base is None:
                        base = self._module_folder(module)
                    target = posixpath.normpath(posixpath.join(base, spec))
                elif spec.startswith(prefix):
                    target = spec[len(prefix) :]
                else:
                    continue
                if target.startswith("../") or target == "..":
                    continue  # outside the package: not reachable by a package spec
                if ref.kind == "skill":
                    target = posixpath.dirname(target)
                index.setdefault(target, (ref.kind, ref.target))
        return index

    def _module_folder(self, module: str) -> str:
        """The folder of `module`, relative to the bundle package ("" for the package itself)."""
        inner = module.split(".")[len(self.package.split(".")) :]
        if not inner:
            return "."
        if self._root is None:
            self._root = _root(self.package)
        node = self._root
        for part in inner:
            node = node / part
        is_package = (node / "__init__.py").is_file()
        folder = inner if is_package else inner[:-1]
        return "/".join(folder) or "."


class BundleSource(MountedSource):
    """A bundled skill's files, read through the package's loader and checked on every read."""

    kind: Kind = "bundle"

    def __init__(self, bundle: InstalledBundle, entry: SkillEntry) -> None:
        self._bundle = bundle
        self._entry = entry
        self._by_path: dict[str, PackedFile] | None = None

    @property
    def name(self) -> str:
        return self._entry.metadata.name

    def files(self) -> tuple[PackedFile, ...]:
        return self._entry.files

    def read(self, path: str) -> bytes:
        if self._by_path is None:
            self._by_path = {f.path: f for f in self._entry.files}
        packed = self._by_path[path]
        return self._bundle.read_checked(f"{self._entry.directory}/{path}", packed.size, packed.sha256)

    def instructions(self) -> str:
        data = self.read(SKILL_FILE)
        try:
            return data[self._entry.body_offset :].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MountError(f"{self.describe()}: SKILL.md body is not UTF-8 ({exc})") from None

    def is_executable(self, path: str) -> bool:
        return self._bundle.is_executable(f"{self._entry.directory}/{path}")

    def describe(self) -> str:
        return f"{self._bundle.where(self._entry.directory)} (bundled in {self._bundle.package!r})"
