"""The skill source protocol, and `load_skill`: the one way a skill from anywhere else gets mounted.

A `SkillSource` is anything that can name a skill, list its files and hand out their
bytes: a database row, a remote server, a provider of another framework. It decides
nothing about trust. `load_skill` vets what it lists by the build's own rules (the walk
of `format.vetting` over a `ListedTree`, SKILL.md by `format.validate`), exactly as a
folder on disk is vetted, and returns a `SkillReference` whose every later read is
checked against what was vetted. A source never gets a skill mounted another way: a
`SkillReference` holds only a `MountedSource`, which only flue's loaders make.

What is vetted when:

- at load, from the listing alone: the skill's name (the name rule), every path (the
  path rule, names no run time could serve, secret file and folder names, noise, depth),
  the number of files and their listed sizes against the limits; nothing is read for a
  file the limits or the name rules refuse.
- at load, from the bytes: SKILL.md (always read: frontmatter, the name equal to the
  source's `name`, a private key), and every file listed without a SHA-256 (or all of
  them with `eager=True`): its size and digest against the listing, a private key.
- at every read: the bytes against the size and SHA-256 recorded at load; a file first
  read then (listed with a digest, not eager) is scanned for a private key then.

A failure is a `SkillError` naming the source (its `describe()`): at load nothing is
mounted; at read the file is refused, never served.
"""

from __future__ import annotations

import errno
import re
import threading
import warnings
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from flue_runtime.errors import SkillError, SkillPathError, SkillWarning
from flue_runtime.format.diagnostics import Diagnostic, cut, diagnostic, has_errors
from flue_runtime.format.hidden_text import hidden_diagnostics
from flue_runtime.format.paths import skill_path
from flue_runtime.format.records import SKILL_FILE, ListedFile, PackedFile, SkillMetadata
from flue_runtime.format.safe_read import inspect_bytes
from flue_runtime.format.secrets import found_secrets
from flue_runtime.format.skill_folder import vet_tree
from flue_runtime.format.trees import ListedTree, listing_mismatch
from flue_runtime.format.validate import check_fields
from flue_runtime.format.vetting import DEFAULT_LIMITS, Limits, unreadable, walk
from flue_runtime.mount.reference import MountedSource, SkillReference

__all__ = ["SkillSource", "fetch", "load_skill", "shown_as", "vet_catalog", "vet_listing", "vet_source"]


_SHA256 = re.compile("[0-9a-f]{64}")
#: How much of a source's `describe()` a message shows.
_DESCRIBED = 300


@runtime_checkable
class SkillSource(Protocol):
    """One skill's files, from anywhere: what a user implements to mount skills flue did not bundle.

    Pass it to `load_skill`, which vets it by the build's rules and returns the `SkillReference` to give
    `use_skill`, an MCP server or an adapter. Every source flue has (a bundle, a folder, `define_skill`, a
    workspace folder, a distribution's raw skill folder) implements it too.

    Optional: `is_executable(path) -> bool`, whether a file keeps an executable bit (default: none does).
    A source that waits on a network or a database bounds its own waits (a timeout): `load_skill` and
    reads run its methods as they are.
    """

    @property
    def name(self) -> str:
        """The skill's name: its folder's name at the source, which its SKILL.md's `name` must equal."""
        ...

    def describe(self) -> str:
        """Where the skill comes from, in a few words: every error about it starts with this."""
        ...

    def listing(self) -> Iterable[ListedFile]:
        """Every file of the skill, SKILL.md included: its relative POSIX path, its size in bytes and, when known,
        its SHA-256 (a file listed with one is fetched only when first read)."""
        ...

    def read(self, path: str) -> bytes:
        """The bytes of one listed file (SKILL.md is read once, at load; others may be read again, from any thread)."""
        ...


def load_skill(source: SkillSource, *, eager: bool = False, limits: Limits = DEFAULT_LIMITS) -> SkillReference:
    """Vet `source` by the build's rules and mount it: the skill as a `SkillReference`.

    `eager`: read and scan every file now, even those listed with a SHA-256 (for a source that is cheap to
    read, such as a folder on this machine). `limits`: the build's defaults unless given. Raises
    `SkillError` naming the source and every problem; a warning the build would print (noise left out,
    a large file) is a `SkillWarning`.
    """
    skill, notes = vet_source(source, eager=eager, limits=limits)
    for note in notes:
        warnings.warn(note, SkillWarning, stacklevel=2)
    return skill


def vet_source(
    source: SkillSource, *, eager: bool = False, limits: Limits = DEFAULT_LIMITS
) -> tuple[SkillReference, list[str]]:
    """`load_skill` without warning: the reference and the warnings the vetting gave, as lines (for a caller that
    reports them its own way, such as the CLI)."""
    if isinstance(source, SkillReference):
        raise SkillError(
            source=f"SkillReference {source.name!r}", reason="is mounted already; pass it to use_skill() as it is"
        )
    shown = shown_as(source)
    name = _call(shown, "name", lambda: source.name)
    problems = [
        d for d in check_fields({"name": name, "description": "-"}, shown, None) if d.is_error and d.field == "name"
    ]
    if problems:
        raise SkillError(problems, shown)
    listing, problems = _listing(source, shown, limits)
    if problems:
        raise SkillError(problems, shown)
    tree = ListedTree(listing, lambda path: fetch(source, shown, path), eager=eager)
    vetted = vet_tree(tree, Path(str(name)), display=shown, limits=limits)
    if not vetted.ok or vetted.metadata is None:
        raise SkillError(vetted.diagnostics, shown)
    notes = [f"{d.location}: {d.code} {d.message}" for d in vetted.diagnostics]
    loaded = _LoadedSource(
        source, shown, vetted.metadata.name, vetted.files, tree.kept[SKILL_FILE], vetted.body_offset, tree.unscanned
    )
    return SkillReference(vetted.metadata, loaded, known_id=vetted.id), notes


def vet_listing(
    source: SkillSource, fields: Mapping[str, Any], *, limits: Limits = DEFAULT_LIMITS
) -> tuple[SkillMetadata, tuple[PackedFile, ...], list[str]]:
    """What can be vetted of a skill before a byte of it is read, for a source whose listing carries SKILL.md's
    frontmatter (`fields`: a Skills extension entry's): the name rule, every listed path and size against the
    limits (the walk of `vet_source`, reading nothing: every file must be listed with a SHA-256), and the catalog
    fields (`name`, `description`, `license`, `compatibility`, `metadata`'s string values) by the skill rules.
    `allowed-tools` is never taken from a listing: a source that lists its frontmatter is a remote one, whose
    grants a host ignores (SEP-2640, "No implicit permission grants").

    Returns the metadata, the file list and the walk's warnings; `SkillError` naming every problem. The
    skill is not loaded: `vet_source` does that at first need, reading SKILL.md, and the caller compares what it
    finds with what this returned."""
    shown = shown_as(source)
    name = _call(shown, "name", lambda: source.name)
    listing, problems = _listing(source, shown, limits)
    if problems:
        raise SkillError(problems, shown)
    unhashed = sorted(path for path, listed in listing.items() if listed.sha256 is None)
    if unhashed:
        raise SkillError(source=shown, reason=f"{unhashed[0]} is listed without a SHA-256: it cannot be vetted unread")
    walked = walk(ListedTree(listing, lambda path: fetch(source, shown, path)), display=shown, limits=limits)
    catalog, problems = _catalog(shown, str(name), fields)
    diagnostics = [*walked.diagnostics, *problems]
    if SKILL_FILE not in listing:
        diagnostics.append(diagnostic("FLU101 missing", shown, name=str(name)))
    if has_errors(diagnostics):
        raise SkillError([d for d in diagnostics if d.is_error], shown)
    nested = [  # (as `vet_tree` says it: a SKILL.md inside the skill is a file of it)
        diagnostic("FLU212", f"{shown}/{f.path}", inner=f.path.rsplit("/", 2)[-2], outer=str(name), display=shown)
        for f in walked.files
        if f.path.endswith(f"/{SKILL_FILE}")
    ]
    notes = [f"{d.location}: {d.code} {d.message}" for d in [*walked.diagnostics, *nested]]
    return SkillMetadata.from_dict(catalog), tuple(walked.files), notes


def vet_catalog(source: SkillSource, fields: Mapping[str, Any]) -> SkillMetadata:
    """The catalog fields of a listing (`vet_listing`'s) for a source that cannot list its files before it is
    loaded (a Skills extension entry whose resources are "dynamic"): its name and the fields by the skill rules,
    nothing read. `SkillError` naming every problem; `vet_source` loads the skill at first need."""
    shown = shown_as(source)
    name = _call(shown, "name", lambda: source.name)
    catalog, problems = _catalog(shown, str(name), fields)
    if problems:
        raise SkillError(problems, shown)
    return SkillMetadata.from_dict(catalog)


def _catalog(shown: str, name: str, fields: Mapping[str, Any]) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The catalog fields of a listed frontmatter, and their errors by the skill rules."""
    catalog = {key: fields[key] for key in ("name", "description", "license", "compatibility") if key in fields}
    extra = fields.get("metadata")
    if isinstance(extra, Mapping):  # (typed as JSON: `build: 7` is 7 there, "7" to the skill rules; strings only)
        catalog["metadata"] = {key: value for key, value in extra.items() if isinstance(value, str)}
    return catalog, [d for d in check_fields(catalog, f"{shown}/{SKILL_FILE}", name) if d.is_error]


def shown_as(source: object) -> str:
    """What a source says of itself, on one bounded line (its class name when it says nothing usable)."""
    try:
        text = source.describe()  # type: ignore[attr-defined]
    except Exception:
        text = None
    if not isinstance(text, str) or not text.strip():
        return f"{type(source).__name__} source"
    return cut(" ".join(text.split()), _DESCRIBED)


def fetch(source: SkillSource, shown: str, path: str) -> bytes:
    """`source.read(path)` as bytes; whatever the source raises, or a value that is not bytes, is an `OSError`
    naming it (which the walk reports as FLU308)."""
    try:
        data = source.read(path)
    except Exception as exc:
        raise OSError(errno.EIO, f"{type(exc).__name__}: {exc}") from None
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    raise OSError(errno.EIO, f"read() returned {type(data).__name__}, not bytes")


def _call(shown: str, what: str, get: Callable[[], object]) -> object:
    """`get()`, or a `SkillError` naming the source when it raises (the caller checks the value)."""
    try:
        return get()
    except Exception as exc:
        raise SkillError(source=shown, reason=f"its {what} cannot be read: {type(exc).__name__}: {exc}") from None


def _listing(source: SkillSource, shown: str, limits: Limits) -> tuple[dict[str, ListedFile], list[Diagnostic]]:
    """The listing, each entry's form checked (path rule, size, digest, no duplicate, no file that is also a
    folder), read no further than one entry past the file limit (the walk says FLU310)."""
    problems: list[Diagnostic] = []

    def at(path: str) -> str:
        return f"{shown}/{path}" if path else shown

    found: dict[str, ListedFile] = {}
    try:
        for count, entry in enumerate(source.listing()):
            if count > limits.skill_files:
                break
            if not isinstance(entry, ListedFile):
                problems.append(diagnostic("FLU309 listing", shown, type=type(entry).__name__))
                continue
            try:
                path = skill_path(entry.path)
            except SkillPathError as exc:
                problems.append(diagnostic("FLU309 listed path", shown, path=exc.path[:200], reason=exc.reason))
                continue
            if isinstance(entry.size, bool) or not isinstance(entry.size, int) or entry.size < 0:
                problems.append(diagnostic("FLU309 listed size", at(path), size=entry.size))
            elif entry.sha256 is not None and not (isinstance(entry.sha256, str) and _SHA256.fullmatch(entry.sha256)):
                problems.append(diagnostic("FLU309 listed digest", at(path)))
            elif path in found:
                problems.append(diagnostic("FLU309 listed twice", at(path)))
            else:
                found[path] = entry
    except Exception as exc:
        problems.append(unreadable(shown, OSError(errno.EIO, f"{type(exc).__name__}: {exc}"), "FLU308 list files"))
    for path in sorted(found):
        parent = path.rpartition("/")[0]
        while parent:
            if parent in found:
                problems.append(diagnostic("FLU309 file and folder", at(parent)))
                del found[parent]
            parent = parent.rpartition("/")[0]
    return found, problems


class _LoadedSource(MountedSource):
    """A user's source as `load_skill` vetted it: the file list of the vetting; SKILL.md as read at load; every
    other read checked against the recorded size and SHA-256 (and scanned, for a file not read at load)."""

    def __init__(
        self,
        source: SkillSource,
        shown: str,
        name: str,
        files: tuple[PackedFile, ...],
        skill_md: bytes,
        body_offset: int,
        unscanned: set[str],
    ) -> None:
        self._source = source
        self._shown = shown
        self._name = name
        self._files = files
        self._by_path = {f.path: f for f in files}
        self._skill_md = skill_md
        self._body_offset = body_offset
        self._unscanned = set(unscanned)
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._name

    def files(self) -> tuple[PackedFile, ...]:
        return self._files

    def read(self, path: str) -> bytes:
        if path == SKILL_FILE:
            return self._skill_md
        packed = self._by_path[path]
        listed = ListedFile(packed.path, packed.size, packed.sha256)
        try:
            data = fetch(self._source, self._shown, path)
        except OSError as exc:
            raise SkillError([unreadable(self._where(path), exc)], self._shown) from None
        with self._lock:
            scan = path in self._unscanned
        found = inspect_bytes(data, digest=True, scan=scan) if len(data) == packed.size else None
        problem = listing_mismatch(listed, data, found.sha256 if found else "")
        if problem:
            raise SkillError([diagnostic("FLU308 changed", self._where(path), problem=problem)], self._shown)
        assert found is not None
        if found.secrets:
            raise SkillError(found_secrets(self._where(path), found.secrets, in_project=False), self._shown)
        if found.hidden is not None and found.hidden.refused:
            raise SkillError(hidden_diagnostics(self._where(path), found.hidden), self._shown)
        if scan:
            with self._lock:
                self._unscanned.discard(path)
        return data

    def instructions(self) -> str:
        return self._skill_md[self._body_offset :].decode("utf-8")

    def is_executable(self, path: str) -> bool:
        try:  # (optional: a source without it keeps no executable bit)
            return self._source.is_executable(path) is True  # type: ignore[attr-defined]
        except Exception:
            return False

    def describe(self) -> str:
        return self._shown

    def _where(self, path: str) -> str:
        return f"{self._shown}/{path}"
