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

A failure is a `SkillSourceError` naming the source (its `describe()`): at load nothing is
mounted; at read the file is refused, never served.
"""

from __future__ import annotations

import errno
import re
import threading
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol, runtime_checkable

from flue_runtime.errors import SkillPathError, SkillSourceError, SkillWarning
from flue_runtime.format.diagnostics import Diagnostic
from flue_runtime.format.paths import skill_path
from flue_runtime.format.records import SKILL_FILE, ListedFile, PackedFile
from flue_runtime.format.safe_read import inspect_bytes
from flue_runtime.format.secrets import found_secret
from flue_runtime.format.skill_folder import vet_tree
from flue_runtime.format.trees import ListedTree, listing_mismatch
from flue_runtime.format.validate import check_fields
from flue_runtime.format.vetting import DEFAULT_LIMITS, Limits, unreadable
from flue_runtime.mount.reference import MountedSource, SkillReference

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
    `SkillSourceError` naming the source and every problem; a warning the build would print (noise left out,
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
        raise SkillSourceError(
            f"SkillReference {source.name!r}", reason="is mounted already; pass it to use_skill() as it is"
        )
    shown = shown_as(source)
    name = _call(shown, "name", lambda: source.name)
    problems = [
        d for d in check_fields({"name": name, "description": "-"}, shown, None) if d.is_error and d.field == "name"
    ]
    if problems:
        raise SkillSourceError(shown, problems)
    listing, problems = _listing(source, shown, limits)
    if problems:
        raise SkillSourceError(shown, problems)
    tree = ListedTree(listing, lambda path: fetch(source, shown, path), eager=eager)
    vetted = vet_tree(tree, Path(str(name)), display=shown, limits=limits)
    if not vetted.ok or vetted.metadata is None:
        raise SkillSourceError(shown, vetted.diagnostics)
    notes = [f"{d.location}: {d.code} {d.message}" for d in vetted.diagnostics]
    loaded = _LoadedSource(
        source, shown, vetted.metadata.name, vetted.files, tree.kept[SKILL_FILE], vetted.body_offset, tree.unscanned
    )
    return SkillReference(vetted.metadata, loaded, known_id=vetted.id), notes


def shown_as(source: object) -> str:
    """What a source says of itself, on one bounded line (its class name when it says nothing usable)."""
    try:
        text = source.describe()  # type: ignore[attr-defined]
    except Exception:
        text = None
    if not isinstance(text, str) or not text.strip():
        return f"{type(source).__name__} source"
    text = " ".join(text.split())
    return text if len(text) <= _DESCRIBED else text[: _DESCRIBED - 1] + "…"


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
    """`get()`, or a `SkillSourceError` naming the source when it raises (the caller checks the value)."""
    try:
        return get()
    except Exception as exc:
        raise SkillSourceError(shown, reason=f"its {what} cannot be read: {type(exc).__name__}: {exc}") from None


def _listing(source: SkillSource, shown: str, limits: Limits) -> tuple[dict[str, ListedFile], list[Diagnostic]]:
    """The listing, each entry's form checked (path rule, size, digest, no duplicate, no file that is also a
    folder), read no further than one entry past the file limit (the walk says FLU310)."""
    problems: list[Diagnostic] = []

    def problem(path: str, message: str, hint: str, code: str = "FLU309") -> None:
        where = f"{shown}/{path}" if path else shown
        problems.append(Diagnostic.make(code, where, message, hint))

    found: dict[str, ListedFile] = {}
    try:
        for count, entry in enumerate(source.listing()):
            if count > limits.skill_files:
                break
            if not isinstance(entry, ListedFile):
                problem(
                    "", f"listing() gave {type(entry).__name__}, not ListedFile", "list ListedFile(path, size, sha256)"
                )
                continue
            try:
                path = skill_path(entry.path)
            except SkillPathError as exc:
                problem(
                    "",
                    f"listed path {exc.path[:200]!r} refused: {exc.reason}",
                    "list paths relative to the skill folder",
                )
                continue
            if isinstance(entry.size, bool) or not isinstance(entry.size, int) or entry.size < 0:
                problem(path, f"listed size {entry.size!r} is not a byte count", "list each file's size in bytes")
            elif entry.sha256 is not None and not (isinstance(entry.sha256, str) and _SHA256.fullmatch(entry.sha256)):
                problem(path, "listed SHA-256 is not 64 lowercase hex digits", "list the hex digest, or None")
            elif path in found:
                problem(path, "listed twice", "list each file once")
            else:
                found[path] = entry
    except Exception as exc:
        problems.append(unreadable(shown, OSError(errno.EIO, f"{type(exc).__name__}: {exc}"), "list the skill's files"))
    for path in sorted(found):
        parent = path.rpartition("/")[0]
        while parent:
            if parent in found:
                problem(parent, "listed as a file and as the folder of other files", "list each path once")
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
            raise SkillSourceError(self._shown, [unreadable(self._where(path), exc)]) from None
        with self._lock:
            scan = path in self._unscanned
        found = inspect_bytes(data, digest=True, scan=scan) if len(data) == packed.size else None
        problem = listing_mismatch(listed, data, found.sha256 if found else "")
        if problem:
            raise SkillSourceError(
                self._shown,
                [
                    Diagnostic.make(
                        "FLU308",
                        self._where(path),
                        f"{problem}: refused",
                        "the source changed since it was loaded; load it again",
                    )
                ],
            )
        assert found is not None
        if found.secret is not None:
            raise SkillSourceError(self._shown, [found_secret(self._where(path), found.secret, in_project=False)])
        if scan:
            with self._lock:
                self._unscanned.discard(path)
        return data

    def instructions(self) -> str:
        return self._skill_md[self._body_offset :].decode("utf-8")

    def is_executable(self, path: str) -> bool:
        check = getattr(self._source, "is_executable", None)
        if check is None:
            return False
        try:
            return check(path) is True
        except Exception:
            return False

    def describe(self) -> str:
        return self._shown

    def _where(self, path: str) -> str:
        return f"{self._shown}/{path}"
