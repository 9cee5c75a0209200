"""`SkillReference`: one mounted skill, whatever it was loaded from.

The metadata is known up front (from a bundle's manifest, a vetted folder, or
`define_skill`); the instructions and support files are read only when asked for,
through a `SkillSource`. Reads go through the skill's own file list, so a path that is
not one of its files can never reach the file system.

A reference never changes; `current()` gives the skill as it is now, which differs only
for a source that can change under it (a folder being edited, in dev mode): such a source
defines `current()` too.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING, BinaryIO, Protocol, cast

if TYPE_CHECKING:  # annotations only: mounting a bundle never needs pathlib
    from pathlib import Path

from flue_runtime.errors import ResourceNotFoundError
from flue_runtime.format.paths import skill_path, some_paths
from flue_runtime.format.records import SKILL_FILE, PackedFile, SkillMetadata, content_id


class SkillSource(Protocol):
    """Where a skill's bytes live: a bundle, a folder on disk, memory.

    Optional members: a source read live from a folder on disk names it `directory` (the
    model's write tools keep out of it); one whose file list can change after it was vetted
    keeps the vetting's own as `verdict` (what `run_skill_script` may run); one that can hand
    out a file as a stream has `open(path) -> (binary file, size)`, so a page of a large file
    costs the memory of the page.
    """

    #: Re-read the instructions on every access (a folder being edited) rather than once.
    live: bool

    def files(self) -> tuple[PackedFile, ...]:
        """Every file of the skill, SKILL.md included, sorted by path."""

    def read(self, path: str) -> bytes:
        """The bytes of one of `files()`; the path is already checked."""

    def instructions(self) -> str:
        """The body of SKILL.md."""

    def is_executable(self, path: str) -> bool:
        """Whether one of `files()` carries an executable bit where it is installed (scripts keep it)."""

    def describe(self) -> str:
        """Where the skill comes from, for messages."""


@dataclass(frozen=True, eq=False)
class SkillReference:
    """An immutable handle on one skill; equal and hashed by its content id."""

    fields: SkillMetadata
    source: SkillSource = field(repr=False)
    #: The content id when the caller already knows it (a bundle's manifest, a vetted folder).
    known_id: str | None = field(default=None, repr=False)

    # --- metadata ---------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.fields.name

    @property
    def description(self) -> str:
        return self.fields.description

    @property
    def license(self) -> str | None:
        return self.fields.license

    @property
    def compatibility(self) -> str | None:
        return self.fields.compatibility

    @property
    def metadata(self) -> Mapping[str, str]:
        return MappingProxyType(dict(self.fields.metadata))

    @property
    def allowed_tools(self) -> tuple[str, ...]:
        """The `allowed-tools` entries; carried for the agent's host, never enforced here."""
        return tuple((self.fields.allowed_tools or "").split())

    @cached_property
    def id(self) -> str:
        """A content id: the same files (paths and bytes) give the same id."""
        return self.known_id or content_id(self.source.files())

    @property
    def origin(self) -> str:
        return self.source.describe()

    def current(self) -> SkillReference:
        """The skill as it is now: this reference, unless its source can change (a folder in dev mode), which is
        vetted again and comes back with its metadata and file list as they are now (`SkillError` naming
        every problem when it no longer passes the rules). The harness asks at every render and activation."""
        refresh: Callable[[], SkillReference] | None = getattr(self.source, "current", None)
        return self if refresh is None else refresh()

    # --- content ------------------------------------------------------------------------

    @property
    def instructions(self) -> str:
        """The body of SKILL.md, read on first access (on every access for a folder in dev mode)."""
        if self.source.live:
            return self.source.instructions()
        return self._instructions

    @cached_property
    def _instructions(self) -> str:
        return self.source.instructions()

    @property
    def files(self) -> tuple[PackedFile, ...]:
        return self.source.files()

    @property
    def verdict(self) -> tuple[PackedFile, ...]:
        """The files (paths, sizes, SHA-256) as recorded when the skill was vetted: the only bytes a script of
        it may run from. A bundle's manifest; a folder in dev mode, the file list of the resolution that vetted it."""
        recorded = getattr(self.source, "verdict", None)
        return recorded if isinstance(recorded, tuple) else self.source.files()

    @property
    def folder(self) -> Path | None:
        """The folder on disk the skill's files are read from as they are now (dev mode), else None."""
        return cast("Path | None", getattr(self.source, "directory", None))

    @property
    def resources(self) -> tuple[str, ...]:
        """Relative paths of the support files (everything but SKILL.md), sorted."""
        return tuple(f.path for f in self.source.files() if f.path != SKILL_FILE)

    def read_bytes(self, path: str) -> bytes:
        return self.source.read(self._listed(path))

    def open(self, path: str) -> tuple[BinaryIO, int]:
        """One of the skill's files as a stream and its size: from the source's own `open` when it has one (a
        workspace skill's file, read in pages), else its bytes in memory."""
        clean = self._listed(path)
        opener = getattr(self.source, "open", None)
        if callable(opener):
            handle, size = opener(clean)
            return handle, size
        data = self.source.read(clean)
        return io.BytesIO(data), len(data)

    def _listed(self, path: str) -> str:
        clean = skill_path(path)
        if not any(f.path == clean for f in self.source.files()):
            raise ResourceNotFoundError(
                f"skill {self.name!r} has no file {clean!r}; its files: "
                f"{some_paths([f.path for f in self.source.files()])}"
            )
        return clean

    def is_executable(self, path: str) -> bool:
        """Whether the file at `path` is executable as installed (a wheel keeps a script's executable bit)."""
        clean = skill_path(path)
        if not any(f.path == clean for f in self.source.files()):
            raise ResourceNotFoundError(f"skill {self.name!r} has no file {clean!r}")
        return self.source.is_executable(clean)

    def read_text(self, path: str, encoding: str = "utf-8") -> str:
        return self.read_bytes(path).decode(encoding)

    # --- identity -----------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SkillReference):
            return NotImplemented
        return self.id == other.id

    def __hash__(self) -> int:
        return hash(self.id)

    def __repr__(self) -> str:
        return f"SkillReference(name={self.name!r}, id={self.id!r}, origin={self.origin!r})"
