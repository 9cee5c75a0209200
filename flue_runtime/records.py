"""Plain records shared by the build and the run time: a skill's fields and its files.

They sit on a bundled skill's mount path (resolve → bundled → manifest → reference), so
this module imports nothing heavy: no dataclasses (which pulls in inspect, ast and dis),
no diagnostics, no YAML. Each record is immutable, compared and hashed by its fields,
and shown like a dataclass.
"""

from __future__ import annotations

from types import MappingProxyType

TYPE_CHECKING = False  # typing stays off the mount path (see flue_runtime/__init__.py)
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Mapping, NoReturn

SKILL_FILE = "SKILL.md"

_EMPTY: Mapping[str, str] = MappingProxyType({})


class Record:
    """An immutable record: `_fields` in order; equal, hashed and shown by them."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"cannot assign to field {name!r}: {type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"cannot delete field {name!r}: {type(self).__name__} is immutable")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__name__}({shown})"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return type(self), self._values()


class PackedFile(Record):
    """A vetted file: its POSIX path inside the skill, size and SHA-256 of its bytes."""

    __slots__ = ("path", "size", "sha256")
    _fields = __slots__

    path: str
    size: int
    sha256: str

    def __init__(self, path: str, size: int, sha256: str) -> None:
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "size", size)
        object.__setattr__(self, "sha256", sha256)


class SkillMetadata(Record):
    """The frontmatter fields of a valid skill, as the catalog and the manifest carry them."""

    __slots__ = ("name", "description", "license", "compatibility", "metadata", "allowed_tools")
    _fields = __slots__

    name: str
    description: str
    license: str | None
    compatibility: str | None
    metadata: Mapping[str, str]
    allowed_tools: str | None

    def __init__(
        self,
        name: str,
        description: str,
        license: str | None = None,
        compatibility: str | None = None,
        metadata: Mapping[str, str] = _EMPTY,
        allowed_tools: str | None = None,
    ) -> None:
        set_ = object.__setattr__
        set_(self, "name", name)
        set_(self, "description", description)
        set_(self, "license", license)
        set_(self, "compatibility", compatibility)
        set_(self, "metadata", metadata)
        set_(self, "allowed_tools", allowed_tools)

    def to_dict(self) -> dict[str, Any]:
        """The spec's own field names, without the absent optional ones."""
        data: dict[str, Any] = {"name": self.name, "description": self.description}
        for key, value in (("license", self.license), ("compatibility", self.compatibility)):
            if value is not None:
                data[key] = value
        if self.metadata:
            data["metadata"] = dict(self.metadata)
        if self.allowed_tools is not None:
            data["allowed-tools"] = self.allowed_tools
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SkillMetadata:
        extra = data.get("metadata")
        return cls(
            data["name"],
            data["description"],
            data.get("license"),
            data.get("compatibility"),
            MappingProxyType(dict(extra)) if extra else _EMPTY,
            data.get("allowed-tools"),
        )

