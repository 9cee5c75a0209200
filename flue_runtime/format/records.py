"""Plain records shared by the build and the run time: a skill's fields and its files."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

__all__ = ["ListedFile", "PackedFile", "SKILL_FILE", "SkillMetadata", "content_id", "is_content_id"]


SKILL_FILE = "SKILL.md"

_EMPTY: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class PackedFile:
    """A vetted file: its POSIX path inside the skill, size and SHA-256 of its bytes."""

    path: str
    size: int
    sha256: str
    #: CRC-32 of the bytes, known where they were read (the vetting), 0 elsewhere (a manifest):
    #: the build's audit compares it with a wheel's entries without inflating them.
    crc32: int = field(default=0, compare=False)

    def matches(self, data: bytes) -> bool:
        """Whether `data` are this file's bytes: the size first (cheap), then the digest."""
        return len(data) == self.size and hashlib.sha256(data).hexdigest() == self.sha256


@dataclass(frozen=True, slots=True)
class ListedFile:
    """A file as a skill source lists it (`flue_runtime.SkillSource.listing`), before any vetting.

    `size` is the byte count the source promises: the limits are applied to it before a byte is read, and bytes
    read later must have exactly that length. `sha256` (64 lowercase hex digits) is optional: a file listed with
    one is read only when first used and checked against it then; a file without one is read, hashed and
    scanned when the skill is loaded, and checked against that hash at every later read.
    """

    path: str
    size: int
    sha256: str | None = None


@dataclass(frozen=True, slots=True)
class SkillMetadata:
    """The frontmatter fields of a valid skill, as the catalog and the manifest carry them."""

    name: str
    description: str
    license: str | None = None
    compatibility: str | None = None
    metadata: Mapping[str, str] = field(default_factory=lambda: _EMPTY, hash=False)
    allowed_tools: str | None = None

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


_CONTENT_ID = re.compile("[0-9a-f]{16}")


def is_content_id(text: object) -> bool:
    """The form `content_id` gives (a bundle's folder names and manifest keys): 16 lowercase hex digits."""
    return isinstance(text, str) and _CONTENT_ID.fullmatch(text) is not None


def content_id(files: Iterable[PackedFile]) -> str:
    """The same files (paths and bytes) give the same id, wherever and however they were listed."""
    digest = hashlib.sha256()
    for entry in sorted(files, key=lambda f: f.path):
        digest.update(f"{entry.path}\0{entry.sha256}\n".encode())
    return digest.hexdigest()[:16]
