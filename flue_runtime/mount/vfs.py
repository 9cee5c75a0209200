"""The read-only virtual tree `/.flue/skills/<name>/<path>` over a set of mounted skills.

Paths are checked strictly (`paths.skill_path`) and looked up in each skill's own file
list; nothing here touches the file system by path, and nothing can be written.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import BinaryIO, NoReturn

from flue_runtime.errors import FlueError, ReadOnlyError, ResourceNotFoundError, SkillPathError
from flue_runtime.format.paths import MAX_PATH_BYTES, skill_path, some_paths
from flue_runtime.mount.reference import SkillReference

__all__ = ["SKILLS_ROOT", "SkillTree", "VirtualEntry"]


SKILLS_ROOT = "/.flue/skills"
_ROOT_PARTS = (".flue", "skills")


@dataclass(frozen=True)
class VirtualEntry:
    name: str
    is_dir: bool
    size: int = 0


class SkillTree:
    """Mounted skills as a read-only tree of folders and files."""

    def __init__(self, skills: Iterable[SkillReference]) -> None:
        self._skills: dict[str, SkillReference] = {}
        for skill in skills:
            if skill.name in self._skills:
                raise FlueError(f"two mounted skills are named {skill.name!r}; mount each name once")
            self._skills[skill.name] = skill

    @staticmethod
    def _root(path: str) -> tuple[bool, str]:
        """Whether `path` names /.flue/skills as a sandbox reads paths, and the rest after it.

        The sandbox takes `/x`, `x`, `./x` and `.//x` for the same file, so every spelling of the
        root counts here too (empty and `.` segments before `skills` are skipped): otherwise
        `./.flue/skills/...` would reach the sandbox, and a model could write a file there and read
        it back as if it were a skill's. The rest is returned as written (trailing slashes
        dropped), for the strict check.
        """
        parts = path.strip().split("/")
        found: list[str] = []
        index = 0
        while index < len(parts) and len(found) < len(_ROOT_PARTS):
            if parts[index] not in ("", "."):
                found.append(parts[index])
            index += 1
        return tuple(found) == _ROOT_PARTS, "/".join(parts[index:]).rstrip("/")

    @classmethod
    def is_skill_path(cls, path: str) -> bool:
        """Whether `path` points into /.flue/skills (with or without the leading slash, `./` and the like)."""
        return cls._root(path)[0]

    def _split(self, path: str) -> tuple[SkillReference | None, str]:
        """The skill and the path inside it; (None, '') for the root of the tree."""
        if len(path) > MAX_PATH_BYTES:  # before a message shows it
            raise SkillPathError(
                path, f"is {len(path):,} characters long; a path holds at most {MAX_PATH_BYTES:,} bytes"
            )
        inside, rest = self._root(path)
        if not inside:
            raise SkillPathError(path, f"not under {SKILLS_ROOT}/")
        if not rest:
            return None, ""
        clean = skill_path(rest)
        name, _, inner = clean.partition("/")
        skill = self._skills.get(name)
        if skill is None:
            mounted = some_paths(list(self._skills))
            raise ResourceNotFoundError(f"no mounted skill named {name!r} under {SKILLS_ROOT} (mounted: {mounted})")
        return skill, inner

    def read(self, path: str) -> bytes:
        skill, inner = self._file(path)
        return skill.read_bytes(inner)

    def open(self, path: str) -> tuple[BinaryIO, int]:
        """The file at `path` as a stream and its size, for a reader that pages (see `SkillReference.open`)."""
        skill, inner = self._file(path)
        return skill.open(inner)

    def _file(self, path: str) -> tuple[SkillReference, str]:
        skill, inner = self._split(path)
        if skill is None or not inner or self._is_folder(skill, inner):
            raise ResourceNotFoundError(f"{path} is a folder; list it, or read one of its files")
        return skill, inner

    def stat(self, path: str) -> VirtualEntry:
        skill, inner = self._split(path)
        if skill is None:
            return VirtualEntry("skills", True)
        if not inner or self._is_folder(skill, inner):
            return VirtualEntry(inner.rpartition("/")[2] or skill.name, True)
        for entry in skill.files:
            if entry.path == inner:
                return VirtualEntry(inner.rpartition("/")[2], False, entry.size)
        raise ResourceNotFoundError(f"skill {skill.name!r} has no file {inner!r}")

    def list(self, path: str = SKILLS_ROOT) -> list[VirtualEntry]:
        skill, inner = self._split(path)
        if skill is None:
            return [VirtualEntry(name, True) for name in self._skills]
        if inner and not self._is_folder(skill, inner):
            raise ResourceNotFoundError(f"{path} is not a folder of skill {skill.name!r}")
        prefix = f"{inner}/" if inner else ""
        found: dict[str, VirtualEntry] = {}
        for entry in skill.files:
            if entry.path.startswith(prefix):
                head, _, rest = entry.path[len(prefix) :].partition("/")
                found[head] = VirtualEntry(head, True) if rest else VirtualEntry(head, False, entry.size)
        return [found[name] for name in sorted(found)]

    @staticmethod
    def _is_folder(skill: SkillReference, inner: str) -> bool:
        return any(f.path.startswith(inner + "/") for f in skill.files)

    def write(self, path: str, data: bytes) -> NoReturn:
        raise ReadOnlyError(
            f"{path}: skill files under {SKILLS_ROOT} are read-only; write somewhere else in the sandbox"
        )

    def remove(self, path: str) -> NoReturn:
        raise ReadOnlyError(f"{path}: skill files under {SKILLS_ROOT} are read-only; they cannot be deleted")

    def rename(self, source: str, target: str) -> NoReturn:
        raise ReadOnlyError(f"{source}: skill files under {SKILLS_ROOT} are read-only; they cannot be renamed")
