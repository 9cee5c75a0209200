"""`SkillReference`: one mounted skill, whatever it was loaded from.

The metadata is known up front (from a bundle's manifest, a vetted folder, `define_skill`,
or a source `load_skill` vetted); the instructions and support files are read only when
asked for, through a `MountedSource`. Reads go through the skill's own file list, so a
path that is not one of its files can never reach the file system.

A reference never changes; `current()` gives the skill as it is now, which differs only
for a source that can change under it (a folder being edited, in dev mode): such a source
defines `current()` too.
"""

from __future__ import annotations

import io
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING, BinaryIO, Literal

if TYPE_CHECKING:  # annotations only: mounting a bundle never needs pathlib
    from pathlib import Path

from flue_runtime.errors import SkillError, SkillNotFoundError
from flue_runtime.format.paths import skill_path, some_paths
from flue_runtime.format.records import SKILL_FILE, ListedFile, PackedFile, SkillMetadata, content_id

__all__ = ["Kind", "MountedSource", "SkillReference"]


#: Where a skill comes from, as an approval policy and every record see it: `bundle` (an installed distribution's
#: manifest), `folder` (a source folder in dev mode), `defined` (`define_skill`), `source` (a `SkillSource` through
#: `load_skill`: a remote MCP server, an adapter, a user's own), `workspace` (found in the sandbox).
Kind = Literal["bundle", "folder", "defined", "source", "workspace"]


class MountedSource(ABC):
    """Where a vetted skill's bytes live: a bundle (its manifest checked when parsed), a folder on disk (walked by
    the packing rules), `define_skill`, a workspace folder, or a user's `SkillSource` after `load_skill` vetted it.

    The only kind of source a `SkillReference` holds: a skill reaches the harness, MCP or an adapter only through
    one of flue's own loaders, so only through the build's rules. Each is also a `SkillSource` (`name`,
    `describe`, `listing`, `read`), so `load_skill` can vet any of them anew.

    The contract, as `importlib.resources.abc.Traversable` declares its own: the abstract members every source
    defines, and every other member a source may offer, declared here with its default, which a source overrides
    when it has more to say. Its origin is `kind` and `identity` (with `describe()`, the words for people): every
    record, tag, path and approval keeps them.
    """

    #: Re-read the instructions on every access (a folder being edited) rather than once.
    live: bool = False

    @property
    @abstractmethod
    def name(self) -> str:
        """The skill's name at its source: its folder's name, which its SKILL.md's `name` equals."""

    @abstractmethod
    def files(self) -> tuple[PackedFile, ...]:
        """Every file of the skill, SKILL.md included, sorted by path, as vetted."""

    @abstractmethod
    def read(self, path: str) -> bytes:
        """The bytes of one of `files()`; the path is already checked."""

    @abstractmethod
    def instructions(self) -> str:
        """The body of SKILL.md."""

    @abstractmethod
    def describe(self) -> str:
        """Where the skill comes from, for messages."""

    @property
    def kind(self) -> Kind:
        """Where the skill comes from, as an approval policy sees it (`Kind`): a user's source unless its loader
        says otherwise."""
        return "source"

    @property
    def identity(self) -> str | None:
        """The key of the party that serves the skill (a remote MCP server's: lowercase letters, digits, `-`), in
        every path where its files appear (the virtual tree's `/.flue/remote/<identity>/<name>/`,
        `mount.vfs.identity_of`; its script copies, `agents.scripts.materialise`) and every approval; None for a
        skill the application has itself."""
        return None

    @property
    def uri(self) -> str | None:
        """The skill's own address as a URI, where it has one (a remote skill's `skill://…/SKILL.md`: telemetry's
        `gen_ai.skill.source.uri`)."""
        return None

    @property
    def directory(self) -> Path | None:
        """The folder on disk the files are read from as they are now (dev mode; the model's write tools keep out
        of it), else None."""
        return None

    @property
    def verdict(self) -> tuple[PackedFile, ...]:
        """The files as the vetting recorded them: what `run_skill_script` may run. `files()`, unless the file list
        can change after it was vetted (a folder in dev mode keeps the vetting's own)."""
        return self.files()

    def open(self, path: str) -> tuple[BinaryIO, int]:
        """One of `files()` as a stream, and its size: its bytes in memory, unless the source can hand out a stream
        (a workspace skill's file, read in pages: a page costs the memory of the page)."""
        data = self.read(path)
        return io.BytesIO(data), len(data)

    def current(self) -> SkillReference | None:
        """The skill as it is now, vetted again, for a source that can change under it (a folder being edited);
        None for one that cannot."""
        return None

    def is_executable(self, path: str) -> bool:
        """Whether one of `files()` carries an executable bit where it is installed (scripts keep it)."""
        return False

    def listing(self) -> tuple[ListedFile, ...]:
        """`files()` as a `SkillSource` lists them: with their sizes and digests."""
        return tuple(ListedFile(f.path, f.size, f.sha256) for f in self.files())


@dataclass(frozen=True, eq=False)
class SkillReference:
    """An immutable handle on one skill; equal and hashed by its content id and the name it is mounted under.

    Made by flue's loaders only (`skill()`, `define_skill()`, `load_skill()`, `skills_of()`): its source must
    be a `MountedSource`, so every skill a host sees went through the build's rules.
    """

    fields: SkillMetadata
    source: MountedSource = field(repr=False)
    #: The content id when the caller already knows it (a bundle's manifest, a vetted folder).
    known_id: str | None = field(default=None, repr=False)
    #: The skill's own name (its SKILL.md's) when it is mounted under another (`renamed`), else None.
    alias_of: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.source, MountedSource):
            raise SkillError(
                source=type(self.source).__name__,
                reason="a SkillReference holds only a source flue has vetted; pass a SkillSource to "
                "flue_runtime.load_skill(source), which vets it by the build's rules and returns the reference",
            )

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
        every problem when it no longer passes the rules), under the same alias. The harness asks at every
        render and activation."""
        fresh = self.source.current()
        if fresh is None:
            return self
        return fresh if self.alias_of is None else fresh.renamed(self.name)

    def renamed(self, name: str) -> SkillReference:
        """This skill mounted under another name (what `use_skill(ref, name=...)` mounts): its catalog line, its
        tools and its files under `/.flue/skills/<name>/` (a remote skill's `/.flue/remote/<server>/<name>/`) use
        `name`; its instructions and files are unchanged, SKILL.md too (its frontmatter still says the skill's own
        name, `alias_of`). `name` must pass the skill name rule (`SkillError` with FLU202/FLU203/FLU204 otherwise)."""
        from flue_runtime.format.validate import check_fields  # (only when renaming: the mount path stays light)

        original = self.alias_of or self.name
        problems = [
            d
            for d in check_fields({"name": name, "description": self.description}, f"name {name!r}", None)
            if d.is_error and d.field == "name"
        ]
        if problems:
            raise SkillError(problems, f"cannot mount skill {original!r} under another name")
        if name == self.name:
            return self
        return SkillReference(
            replace(self.fields, name=name), self.source, self.known_id, None if name == original else original
        )

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
        return self.source.verdict

    @property
    def folder(self) -> Path | None:
        """The folder on disk the skill's files are read from as they are now (dev mode), else None."""
        return self.source.directory

    @property
    def resources(self) -> tuple[str, ...]:
        """Relative paths of the support files (everything but SKILL.md), sorted."""
        return tuple(f.path for f in self.source.files() if f.path != SKILL_FILE)

    def read_bytes(self, path: str) -> bytes:
        return self.source.read(self._listed(path))

    def open(self, path: str) -> tuple[BinaryIO, int]:
        """One of the skill's files as a stream and its size, as its source hands it out (`MountedSource.open`: a
        workspace skill's file read in pages, any other's bytes in memory)."""
        return self.source.open(self._listed(path))

    def _listed(self, path: str) -> str:
        clean = skill_path(path)
        if not any(f.path == clean for f in self.source.files()):
            raise SkillNotFoundError(
                f"skill {self.name!r} has no file {clean!r}; its files: "
                f"{some_paths([f.path for f in self.source.files()])}"
            )
        return clean

    def is_executable(self, path: str) -> bool:
        """Whether the file at `path` is executable as installed (a wheel keeps a script's executable bit)."""
        clean = skill_path(path)
        if not any(f.path == clean for f in self.source.files()):
            raise SkillNotFoundError(f"skill {self.name!r} has no file {clean!r}")
        return self.source.is_executable(clean)

    def read_text(self, path: str, encoding: str = "utf-8") -> str:
        return self.read_bytes(path).decode(encoding)

    # --- identity -----------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SkillReference):
            return NotImplemented
        return self.id == other.id and self.name == other.name

    def __hash__(self) -> int:
        return hash((self.id, self.name))

    def __repr__(self) -> str:
        alias = "" if self.alias_of is None else f", alias_of={self.alias_of!r}"
        return f"SkillReference(name={self.name!r}{alias}, id={self.id!r}, origin={self.origin!r})"
