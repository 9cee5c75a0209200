"""The read-only virtual tree `/.flue/skills/<name>/<path>` over a set of mounted skills.

Paths are checked strictly (`paths.skill_path`) and looked up in each skill's own file
list; nothing here touches the file system by path, and nothing can be written.

A model reads these errors: each names what to send instead as a bare virtual path or a skill
name it can use as it stands (a close file, the folder's files, a real example), and quotes
what it sent (`'...'`), so the advice is never confused with the echo.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import BinaryIO, NoReturn

from flue_runtime.errors import FlueError, ReadOnlyError, ResourceNotFoundError, SkillPathError
from flue_runtime.format.paths import MAX_PATH_BYTES, skill_path, some_paths
from flue_runtime.format.records import SKILL_FILE
from flue_runtime.mount.reference import SkillReference

__all__ = ["SKILLS_ROOT", "SkillTree", "VirtualEntry", "shown_path", "virtual_path"]


SKILLS_ROOT = "/.flue/skills"
_ROOT_PARTS = (".flue", "skills")
#: A path is compared with at most this many files for a "did you mean" (difflib weighs each).
_COMPARED = 5000
#: Paths longer than this get no "did you mean": no file name is near them.
_COMPARED_LENGTH = 1024


def virtual_path(name: str, inner: str = "") -> str:
    """Where skill `name`'s file `inner` (its folder, for '') appears to a model."""
    return f"{SKILLS_ROOT}/{name}/{inner}" if inner else f"{SKILLS_ROOT}/{name}"


def shown_path(path: str) -> str:
    """`path` as an error quotes what the model sent: `repr`, cut when long."""
    return repr(path) if len(path) <= 300 else f"{path[:200]!r}... ({len(path):,} characters)"


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

    @property
    def names(self) -> list[str]:
        """The mounted skills' names, in mount order."""
        return list(self._skills)

    def _split(self, path: str) -> tuple[SkillReference | None, str]:
        """The skill and the path inside it; (None, '') for the root of the tree."""
        if len(path) > MAX_PATH_BYTES:  # before a message shows it
            raise SkillPathError(
                path,
                f"is {len(path):,} characters long; a path holds at most {MAX_PATH_BYTES:,} bytes",
                self._use_instead(),
            )
        inside, rest = self._root(path)
        if not inside:
            raise SkillPathError(path, f"not under {SKILLS_ROOT}/", self._use_instead())
        if not rest:
            return None, ""
        try:
            clean = skill_path(rest)
        except SkillPathError as exc:
            raise SkillPathError(path, exc.reason, self._use_instead(rest.partition("/")[0])) from None
        name, _, inner = clean.partition("/")
        skill = self._skills.get(name)
        if skill is None:
            raise ResourceNotFoundError(
                f"no mounted skill named {name!r} under {SKILLS_ROOT}; {self._unknown(name, inner)}"
            )
        return skill, inner

    def _use_instead(self, name: str = "") -> str:
        return f"use a file's path as activate_skill lists it, like {self.example(name)}"

    def example(self, name: str = "") -> str:
        """A real file's virtual path, for advice: a support file of skill `name` if it has one, else of the first
        skill that has one, else a SKILL.md."""
        order = ([self._skills[name]] if name in self._skills else []) + list(self._skills.values())
        for skill in order:
            for entry in skill.files:
                if entry.path != SKILL_FILE:
                    return virtual_path(skill.name, entry.path)
        return virtual_path(order[0].name, SKILL_FILE) if order else f"{SKILLS_ROOT}/<skill>/<path>"

    def _unknown(self, name: str, inner: str) -> str:
        """Advice for a path naming no mounted skill: the file where skills have it, else in the closest skill."""
        found = self.holding(inner, self._skills) if inner else []
        if found:
            return f"did you mean {' or '.join(found)}?"
        close = difflib.get_close_matches(name[:128], list(self._skills), n=1)  # (no name is longer)
        if not close:
            return f"available skills: {some_paths(self.names)} (activate_skill lists each one's files)"
        near = self.close(inner, close) if inner else []
        if near:
            return f"did you mean {' or '.join(near)}?"
        return f"did you mean skill {close[0]!r}? Its files: {some_paths(self.files_of(close[0]))}"

    def has(self, name: str, inner: str) -> bool:
        """Whether mounted skill `name` has the file `inner`."""
        skill = self._skills.get(name)
        return skill is not None and any(entry.path == inner for entry in skill.files)

    def holding(self, inner: str, names: Iterable[str]) -> list[str]:
        """The virtual paths of the file `inner` in each of the skills `names` that has it."""
        return [virtual_path(name, inner) for name in names if self.has(name, inner)]

    def close(self, inner: str, names: Iterable[str], n: int = 3) -> list[str]:
        """The virtual paths of the files of skills `names` whose paths are closest to `inner`: the `n` closest
        paths, in each skill that has one."""
        if len(inner) > _COMPARED_LENGTH:
            return []
        where: dict[str, list[str]] = {}  # a file's path: the skills that have it
        for name in names:
            for entry in self._skills[name].files if name in self._skills else ():
                if len(where) >= _COMPARED:
                    break
                where.setdefault(entry.path, []).append(name)
        found = difflib.get_close_matches(inner, list(where), n=n)
        return [virtual_path(name, path) for path in found for name in where[path]]

    def files_of(self, name: str, folder: str = "") -> list[str]:
        """The virtual paths of skill `name`'s files (under `folder`)."""
        prefix = f"{folder}/" if folder else ""
        return [virtual_path(name, e.path) for e in self._skills[name].files if e.path.startswith(prefix)]

    def _missing(self, skill: SkillReference, inner: str) -> ResourceNotFoundError:
        """A file skill `skill` does not have, and the ones it does."""
        close = self.close(inner, [skill.name])
        advice = (
            f"did you mean {' or '.join(close)}?" if close else f"its files: {some_paths(self.files_of(skill.name))}"
        )
        return ResourceNotFoundError(f"skill {skill.name!r} has no file {inner!r}; {advice}")

    def read(self, path: str) -> bytes:
        skill, inner = self._file(path)
        return skill.read_bytes(inner)

    def open(self, path: str) -> tuple[BinaryIO, int]:
        """The file at `path` as a stream and its size, for a reader that pages (see `SkillReference.open`)."""
        skill, inner = self._file(path)
        return skill.open(inner)

    def file(self, path: str) -> tuple[SkillReference, str]:
        """The skill and the path inside it of the file at `path` (`ResourceNotFoundError` when none is there)."""
        return self._file(path)

    def _file(self, path: str) -> tuple[SkillReference, str]:
        skill, inner = self._split(path)
        if skill is None:
            raise ResourceNotFoundError(
                f"{shown_path(path)} is the folder of all mounted skills ({some_paths(self.names)}); read a skill's "
                f"file, like {self.example()}"
            )
        if not inner or self._is_folder(skill, inner):
            raise ResourceNotFoundError(
                f"{shown_path(path)} is a folder of skill {skill.name!r}; read one of its files: "
                f"{some_paths(self.files_of(skill.name, inner))}"
            )
        if not self.has(skill.name, inner):
            raise self._missing(skill, inner)
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
        raise self._missing(skill, inner)

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
