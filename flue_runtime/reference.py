"""`SkillReference`: one mounted skill, whatever it was loaded from.

The metadata is known up front (from a bundle's manifest, a vetted folder, or
`define_skill`); the instructions and support files are read only when asked for,
through a `SkillSource`. Reads go through the skill's own file list, so a path that is
not one of its files can never reach the file system.
"""

from __future__ import annotations

from types import MappingProxyType

from .errors import FlueError
from .records import SKILL_FILE

TYPE_CHECKING = False  # typing stays off the mount path (see flue_runtime/__init__.py)
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Mapping, NoReturn, Protocol

    from .records import PackedFile, SkillMetadata

    class SkillSource(Protocol):
        """Where a skill's bytes live: a bundle, a folder on disk, memory."""

        #: Re-read the instructions on every access (a folder being edited) rather than once.
        live: bool

        def files(self) -> tuple[PackedFile, ...]:
            """Every file of the skill, SKILL.md included, sorted by path."""

        def read(self, path: str) -> bytes:
            """The bytes of one of `files()`; the path is already checked."""

        def instructions(self) -> str:
            """The body of SKILL.md."""

        def describe(self) -> str:
            """Where the skill comes from, for messages."""


class ResourceNotFoundError(FlueError, LookupError):
    """A clean path that is not one of the skill's files."""


class SkillReference:
    """An immutable handle on one skill; equal and hashed by its content id."""

    __slots__ = ("_metadata", "_source", "_instructions", "_id")

    _metadata: SkillMetadata
    _source: SkillSource
    _instructions: str | None
    _id: str | None

    def __init__(self, metadata: SkillMetadata, source: SkillSource, id: str | None = None) -> None:
        object.__setattr__(self, "_metadata", metadata)
        object.__setattr__(self, "_source", source)
        object.__setattr__(self, "_instructions", None)
        object.__setattr__(self, "_id", id)

    def __setattr__(self, name: str, value: Any) -> NoReturn:
        raise AttributeError(f"SkillReference is immutable; cannot set {name!r}")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"SkillReference is immutable; cannot delete {name!r}")

    # --- metadata ---------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self._metadata.name

    @property
    def description(self) -> str:
        return self._metadata.description

    @property
    def license(self) -> str | None:
        return self._metadata.license

    @property
    def compatibility(self) -> str | None:
        return self._metadata.compatibility

    @property
    def metadata(self) -> Mapping[str, str]:
        return MappingProxyType(dict(self._metadata.metadata))

    @property
    def allowed_tools(self) -> tuple[str, ...]:
        """The `allowed-tools` entries; carried for the agent's host, never enforced here."""
        return tuple((self._metadata.allowed_tools or "").split())

    @property
    def fields(self) -> SkillMetadata:
        return self._metadata

    @property
    def id(self) -> str:
        """A content id: the same files (paths and bytes) give the same id."""
        if self._id is None:
            from .skilldir import content_id

            object.__setattr__(self, "_id", content_id(self._source.files()))
        assert self._id is not None
        return self._id

    @property
    def origin(self) -> str:
        return self._source.describe()

    # --- content ------------------------------------------------------------------------

    @property
    def instructions(self) -> str:
        """The body of SKILL.md, read on first access (on every access for a folder in dev mode)."""
        if self._source.live:
            return self._source.instructions()
        if self._instructions is None:
            object.__setattr__(self, "_instructions", self._source.instructions())
        assert self._instructions is not None
        return self._instructions

    @property
    def files(self) -> tuple[PackedFile, ...]:
        return self._source.files()

    @property
    def resources(self) -> tuple[str, ...]:
        """Relative paths of the support files (everything but SKILL.md), sorted."""
        return tuple(f.path for f in self._source.files() if f.path != SKILL_FILE)

    def read_bytes(self, path: str) -> bytes:
        from .paths import skill_path  # re and unicodedata: loaded on the first read, not at mount

        clean = skill_path(path)
        if not any(f.path == clean for f in self._source.files()):
            raise ResourceNotFoundError(
                f"skill {self.name!r} has no file {clean!r}; its files: {', '.join(f.path for f in self._source.files())}"
            )
        return self._source.read(clean)

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
