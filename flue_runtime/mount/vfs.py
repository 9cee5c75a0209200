"""The read-only virtual tree under `/.flue/` over a set of mounted skills.

A skill's files appear at `/.flue/skills/<name>/<path>`; a skill served by another party (a remote MCP server,
whose source names its `identity`) at `/.flue/remote/<identity>/<name>/<path>`, so its virtual paths encode the
server it came from, as every path where a remote skill's files appear must (SEP-2640), and a path of one server's
skill can never be taken for another's or a local one's. Everything under `/.flue/` belongs to this tree: nothing
there is read from the sandbox, and nothing can be written.

Paths are checked strictly (`paths.skill_path`) and looked up in each skill's own file
list; nothing here touches the file system by path.

A model reads these errors: each names what to send instead as a bare virtual path or a skill
name it can use as it stands (a close file, the folder's files, a real example), and quotes
what it sent (`'...'`), so the advice is never confused with the echo.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import BinaryIO, NoReturn

from flue_runtime.errors import FlueError, MountError, SkillNotFoundError, SkillPathError
from flue_runtime.format.diagnostics import quoted
from flue_runtime.format.paths import MAX_PATH_BYTES, skill_path, some_paths
from flue_runtime.format.records import SKILL_FILE
from flue_runtime.mount.reference import SkillReference

__all__ = [
    "FLUE_ROOT",
    "REMOTE_ROOT",
    "SKILLS_ROOT",
    "SkillTree",
    "VirtualEntry",
    "checked_identity",
    "identity_of",
    "skill_folder",
]


FLUE_ROOT = "/.flue"
SKILLS_ROOT = "/.flue/skills"
REMOTE_ROOT = "/.flue/remote"
_ROOT = ".flue"
#: The sections under /.flue: they are folders even when empty.
_SECTIONS = ("skills", "remote")
_IDENTITY = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
#: A path is compared with at most this many files for a "did you mean" (difflib weighs each).
_COMPARED = 5000
#: Paths longer than this get no "did you mean": no file name is near them.
_COMPARED_LENGTH = 1024


def identity_of(skill: SkillReference) -> str | None:
    """The key of the server a skill is served by (its source's `identity`, see `MountedSource`), None for a skill
    the application has itself: the one reading of it, for every path where the skill's files appear (this tree,
    script copies). A key that is not a folder name is a `FlueError`."""
    identity = skill.source.identity
    return None if identity is None else checked_identity(identity)


def checked_identity(identity: object) -> str:
    """`identity` when it can name a folder (lowercase letters, digits, `-`: a server's identity); else `FlueError`."""
    if not (isinstance(identity, str) and _IDENTITY.fullmatch(identity)):
        raise FlueError(f"{identity!r} is not a server's identity: not a folder name (lowercase letters, digits, -)")
    return identity


def skill_folder(skill: SkillReference) -> str:
    """Where skill `skill`'s files appear to a model, relative to /.flue: `skills/<name>` or, for a skill served by
    a remote server, `remote/<identity>/<name>`."""
    identity = identity_of(skill)
    return f"skills/{skill.name}" if identity is None else f"remote/{identity}/{skill.name}"


@dataclass(frozen=True)
class VirtualEntry:
    name: str
    is_dir: bool
    size: int = 0


class SkillTree:
    """Mounted skills as a read-only tree of folders and files under /.flue."""

    def __init__(self, skills: Iterable[SkillReference]) -> None:
        self._skills: dict[str, SkillReference] = {}
        self._folders: dict[str, str] = {}  # a skill's name: its folder, relative to /.flue
        for skill in skills:
            if skill.name in self._skills:
                raise FlueError(f"two mounted skills are named {skill.name!r}; mount each name once")
            self._skills[skill.name] = skill
            self._folders[skill.name] = skill_folder(skill)
        self._by_folder = {folder: self._skills[name] for name, folder in self._folders.items()}

    @staticmethod
    def _root(path: str) -> tuple[bool, str]:
        """Whether `path` names /.flue as a sandbox reads paths, and the rest after it.

        The sandbox takes `/x`, `x`, `./x` and `.//x` for the same file, so every spelling of the
        root counts here too (empty and `.` segments before `.flue` and before the section after it are
        skipped): otherwise `./.flue/skills/...` would reach the sandbox, and a model could write a file
        there and read it back as if it were a skill's. The rest is returned as written (trailing slashes
        dropped), for the strict check.
        """
        parts = path.strip().split("/")
        found: list[str] = []
        index = 0
        while index < len(parts) and len(found) < 2:
            if parts[index] not in ("", "."):
                found.append(parts[index])
            index += 1
        if not found or found[0] != _ROOT:
            return False, ""
        return True, "/".join(found[1:] + parts[index:]).rstrip("/")

    @classmethod
    def is_skill_path(cls, path: str) -> bool:
        """Whether `path` points into /.flue (with or without the leading slash, `./` and the like)."""
        return cls._root(path)[0]

    @property
    def names(self) -> list[str]:
        """The mounted skills' names, in mount order."""
        return list(self._skills)

    def path(self, name: str, inner: str = "") -> str:
        """Where mounted skill `name`'s file `inner` (its folder, for '') appears to a model."""
        folder = f"{FLUE_ROOT}/{self._folders[name]}"
        return f"{folder}/{inner}" if inner else folder

    def _split(self, path: str) -> tuple[SkillReference | None, str]:
        """The skill and the path inside it; (None, folder) for a folder above the skills' own (relative to /.flue:
        '' for /.flue itself, `skills`, `remote`, `remote/<identity>`)."""
        if len(path) > MAX_PATH_BYTES:  # before a message shows it
            raise SkillPathError(
                path,
                f"is {len(path):,} characters long; a path holds at most {MAX_PATH_BYTES:,} bytes",
                self._use_instead(),
            )
        inside, rest = self._root(path)
        if not inside:
            raise SkillPathError(path, f"not under {FLUE_ROOT}/", self._use_instead())
        if not rest:
            return None, ""
        try:
            clean = skill_path(rest)
        except SkillPathError as exc:
            raise SkillPathError(path, exc.reason, self._use_instead(self._named(rest))) from None
        parts = clean.split("/")
        for depth in (2, 3):
            skill = self._by_folder.get("/".join(parts[:depth]))
            if skill is not None:
                return skill, "/".join(parts[depth:])
        if clean in _SECTIONS or any(folder.startswith(clean + "/") for folder in self._by_folder):
            return None, clean
        name = self._named(clean)
        inner = "/".join(parts[3 if parts[0] == "remote" else 2 :])
        raise SkillNotFoundError(f"no mounted skill at {quoted(path)}; {self._unknown(name, inner)}")

    @staticmethod
    def _named(rest: str) -> str:
        """The skill name a path relative to /.flue means to name (`skills/<name>/...`, `remote/<id>/<name>/...`)."""
        parts = rest.split("/")
        index = 2 if parts[0] == "remote" else 1
        return parts[index] if len(parts) > index else ""

    def _use_instead(self, name: str = "") -> str:
        return f"use a file's path as activate_skill lists it, like {self.example(name)}"

    def example(self, name: str = "") -> str:
        """A real file's virtual path, for advice: a support file of skill `name` if it has one, else of the first
        skill that has one, else a SKILL.md."""
        order = ([self._skills[name]] if name in self._skills else []) + list(self._skills.values())
        for skill in order:
            for entry in skill.files:
                if entry.path != SKILL_FILE:
                    return self.path(skill.name, entry.path)
        return self.path(order[0].name, SKILL_FILE) if order else f"{SKILLS_ROOT}/<skill>/<path>"

    def _unknown(self, name: str, inner: str) -> str:
        """Advice for a path naming no mounted skill: the file where skills have it, else in the closest skill."""
        if name in self._skills:  # (under another folder: a remote skill's path names its server)
            return f"skill {name!r} is at {self.path(name)}: read {self.path(name, inner or SKILL_FILE)}"
        found = self.holding(inner, self._skills) if inner else []
        if found:
            return f"did you mean {' or '.join(found)}?"
        close = difflib.get_close_matches(name[:128], list(self._skills), n=1)  # (no name is longer)
        if not close:
            return f"available skills: {some_paths(self.names)} (activate_skill lists each one's files)"
        near = self.closest(inner, close) if inner else []
        if near:
            return f"did you mean {' or '.join(near)}?"
        return f"did you mean skill {close[0]!r}? Its files: {some_paths(self.files_of(close[0]))}"

    def has(self, name: str, inner: str) -> bool:
        """Whether mounted skill `name` has the file `inner`."""
        skill = self._skills.get(name)
        return skill is not None and any(entry.path == inner for entry in skill.files)

    def holding(self, inner: str, names: Iterable[str]) -> list[str]:
        """The virtual paths of the file `inner` in each of the skills `names` that has it."""
        return [self.path(name, inner) for name in names if self.has(name, inner)]

    def closest(self, inner: str, names: Iterable[str], n: int = 3) -> list[str]:
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
        return [self.path(name, path) for path in found for name in where[path]]

    def close(self, inner: str, names: Iterable[str], n: int = 3) -> list[str]:
        """Deprecated (until 0.3): `closest`, whose name this read as closing the tree."""
        import warnings

        warnings.warn("SkillTree.close() is SkillTree.closest() (close goes in 0.3)", DeprecationWarning, stacklevel=2)
        return self.closest(inner, names, n)

    def files_of(self, name: str, folder: str = "") -> list[str]:
        """The virtual paths of skill `name`'s files (under `folder`)."""
        prefix = f"{folder}/" if folder else ""
        return [self.path(name, e.path) for e in self._skills[name].files if e.path.startswith(prefix)]

    def _missing(self, skill: SkillReference, inner: str) -> SkillNotFoundError:
        """A file skill `skill` does not have, and the ones it does."""
        close = self.closest(inner, [skill.name])
        advice = (
            f"did you mean {' or '.join(close)}?" if close else f"its files: {some_paths(self.files_of(skill.name))}"
        )
        return SkillNotFoundError(f"skill {skill.name!r} has no file {inner!r}; {advice}")

    def read(self, path: str) -> bytes:
        skill, inner = self._file(path)
        return skill.read_bytes(inner)

    def open(self, path: str) -> tuple[BinaryIO, int]:
        """The file at `path` as a stream and its size, for a reader that pages (see `SkillReference.open`)."""
        skill, inner = self._file(path)
        return skill.open(inner)

    def folder(self, path: str) -> tuple[str, str] | None:
        """(skill name, folder inside the skill, '' for its own) when `path` is a folder of a mounted skill; None for
        anything else (a file, a folder above the skills' own, nothing: reading it says which)."""
        try:
            skill, inner = self._split(path)
        except FlueError:
            return None
        if skill is None or (inner and not self._is_folder(skill, inner)):
            return None
        return skill.name, inner

    def file(self, path: str) -> tuple[SkillReference, str]:
        """The skill and the path inside it of the file at `path` (`SkillNotFoundError` when none is there)."""
        return self._file(path)

    def _file(self, path: str) -> tuple[SkillReference, str]:
        skill, inner = self._split(path)
        if skill is None:
            below = self._below(inner)
            raise SkillNotFoundError(
                f"{quoted(path)} is a folder of the mounted skills ({some_paths([e.name for e in below])}); "
                f"read a skill's file, like {self.example()}"
            )
        if not inner or self._is_folder(skill, inner):
            raise SkillNotFoundError(
                f"{quoted(path)} is a folder of skill {skill.name!r}; read one of its files: "
                f"{some_paths(self.files_of(skill.name, inner))}"
            )
        if not self.has(skill.name, inner):
            raise self._missing(skill, inner)
        return skill, inner

    def _below(self, folder: str) -> list[VirtualEntry]:
        """The folders right below `folder` (relative to /.flue) on the way to the skills' own."""
        prefix = f"{folder}/" if folder else ""
        heads = dict.fromkeys(f[len(prefix) :].split("/", 1)[0] for f in self._by_folder if f.startswith(prefix))
        if not folder:
            heads = dict.fromkeys(["skills", *heads])
        return [VirtualEntry(head, True) for head in heads]

    def stat(self, path: str) -> VirtualEntry:
        skill, inner = self._split(path)
        if skill is None:
            return VirtualEntry(inner.rpartition("/")[2] or _ROOT, True)
        if not inner or self._is_folder(skill, inner):
            return VirtualEntry(inner.rpartition("/")[2] or skill.name, True)
        for entry in skill.files:
            if entry.path == inner:
                return VirtualEntry(inner.rpartition("/")[2], False, entry.size)
        raise self._missing(skill, inner)

    def owner(self, path: str) -> tuple[SkillReference | None, str]:
        """The skill whose folder holds `path` and the path in it; (None, folder) above the skills' folders."""
        return self._split(path)

    def list(self, path: str = SKILLS_ROOT) -> list[VirtualEntry]:
        skill, inner = self._split(path)
        if skill is None:
            return self._below(inner)
        if inner and not self._is_folder(skill, inner):
            raise SkillNotFoundError(f"{path} is not a folder of skill {skill.name!r}")
        prefix = f"{inner}/" if inner else ""
        found: dict[str, VirtualEntry] = {}
        for entry in skill.files:
            if entry.path.startswith(prefix):
                head, _, rest = entry.path[len(prefix) :].partition("/")
                found[head] = VirtualEntry(head, True) if rest else VirtualEntry(head, False, entry.size)
        return [found[name] for name in sorted(found)]

    @property
    def mounted(self) -> bool:
        """Whether any skill is mounted (the sandbox's root then shows `.flue`)."""
        return bool(self._skills)

    @staticmethod
    def _is_folder(skill: SkillReference, inner: str) -> bool:
        return any(f.path.startswith(inner + "/") for f in skill.files)

    def write(self, path: str, data: bytes) -> NoReturn:
        raise MountError(f"{path}: skill files under {FLUE_ROOT} are read-only; write somewhere else in the sandbox")

    def remove(self, path: str) -> NoReturn:
        raise MountError(f"{path}: skill files under {FLUE_ROOT} are read-only; they cannot be deleted")

    def rename(self, source: str, target: str) -> NoReturn:
        raise MountError(f"{source}: skill files under {FLUE_ROOT} are read-only; they cannot be renamed")
