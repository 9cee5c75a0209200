"""Sandboxes: the folder an agent's file tools work in, on disk or in memory.

Sandbox paths are POSIX and rooted at the sandbox: `/notes.md`, `notes.md` and
`./notes.md` name the same file. Nothing outside the root is reachable: `..` is refused,
and on disk a symlink that resolves outside the root is refused too. Files are opened as
streams (`open_read`), so a tool reading a page of a huge file never loads all of it.
A write creates or replaces a regular file, never anything else, and never lands in one of
the folders it is told to keep out of (the folders of skills the application mounted from
disk), nor where the interpreter that runs scripts loads code from when it starts
(`disk_write.startup_places`). Only a `LocalSandbox` made with `allow_exec=True` lets a skill's scripts run.
"""

from __future__ import annotations

import io
import os
import stat
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Protocol

from flue_runtime.agents.disk_write import write_file
from flue_runtime.errors import SandboxError, UnsafeFileError
from flue_runtime.format.paths import MAX_PATH_BYTES, skill_path
from flue_runtime.format.safe_read import open_regular
from flue_runtime.format.skill_folder import VettedSkill, vet_tree
from flue_runtime.format.trees import MemoryTree
from flue_runtime.format.vet_cache import VetCache

__all__ = ["Entry", "LocalSandbox", "MemorySandbox", "Sandbox", "sandbox_path"]


#: Verdicts on skill folders in any local sandbox, kept while each folder is unchanged: the
#: workspace's skills are vetted at every prompt (absolute paths, so every sandbox shares it).
_VETTED = VetCache()


@dataclass(frozen=True)
class Entry:
    name: str
    is_dir: bool
    size: int = 0
    is_link: bool = False


def sandbox_path(path: str) -> str:
    """`path` as a clean path relative to the sandbox root ('' for the root itself)."""
    if not isinstance(path, str):
        raise SandboxError(f"a path must be a string, not {type(path).__name__}")
    if len(path) > MAX_PATH_BYTES:  # before anything else reads it, or a message shows it
        raise SandboxError(
            f"a path of {len(path):,} characters is refused: a path holds at most {MAX_PATH_BYTES:,} bytes"
        )
    trimmed = path.strip()
    while trimmed.startswith("./"):
        trimmed = trimmed[2:]
    trimmed = trimmed.lstrip("/").rstrip("/")
    if trimmed in ("", "."):
        return ""
    parts = [p for p in trimmed.split("/") if p != "."]
    try:
        return skill_path("/".join(parts))
    except ValueError as exc:
        raise SandboxError(str(exc).replace("relative to the skill folder", "inside the sandbox")) from exc


class Sandbox(Protocol):
    """What the file tools and workspace discovery need from a sandbox."""

    #: Whether skills' scripts may run here (`run_skill_script`); only a `LocalSandbox` can allow it.
    allow_exec: bool

    def describe(self) -> str: ...
    def read_bytes(self, path: str) -> bytes: ...
    def open_read(self, path: str) -> tuple[BinaryIO, int]:
        """A regular file opened for reading, and its size."""

    def is_executable(self, path: str) -> bool: ...
    def write_bytes(self, path: str, data: bytes, *, keep_out: Collection[Path] = ()) -> None:
        """Create or replace the regular file at `path`; `SandboxError` if it lands in a folder of `keep_out`."""

    def list(self, path: str) -> list[Entry]: ...
    def is_dir(self, path: str) -> bool: ...
    def vet(self, path: str) -> VettedSkill: ...


class LocalSandbox:
    """A folder on disk. `allow_exec=True` lets skills' scripts run here, each for at most `exec_timeout` seconds.

    A skill the application mounts from a folder on disk (dev mode) whose folder lies inside
    this sandbox, or holds it, runs no script unless `exec_skills_inside=True` too: the model
    works in the sandbox, so the application says explicitly that it trusts such a folder.
    """

    def __init__(
        self,
        root: str | os.PathLike[str] = ".",
        *,
        allow_exec: bool = False,
        exec_timeout: float = 60.0,
        exec_skills_inside: bool = False,
    ) -> None:
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise SandboxError(f"sandbox root {self.root} is not a folder")
        for name, value in (("allow_exec", allow_exec), ("exec_skills_inside", exec_skills_inside)):
            if not isinstance(value, bool):
                raise SandboxError(f"{name} must be True or False, not {value!r}")
        if exec_skills_inside and not allow_exec:
            raise SandboxError("exec_skills_inside=True lets more scripts run; it needs allow_exec=True as well")
        if not exec_timeout > 0:
            raise SandboxError(f"exec_timeout must be a number of seconds above 0, not {exec_timeout!r}")
        self.allow_exec = allow_exec
        self.exec_timeout = float(exec_timeout)
        self.exec_skills_inside = exec_skills_inside

    def describe(self) -> str:
        return str(self.root)

    def _resolve(self, path: str, *, must_exist: bool = True) -> Path:
        rel = sandbox_path(path)
        full = self.root / rel if rel else self.root
        real, root = os.path.realpath(full), str(self.root)
        if real != root and not real.startswith(
            root.rstrip(os.sep) + os.sep
        ):  # (strings: pathlib's parents cost more than realpath)
            raise SandboxError(f"{path!r} resolves outside the sandbox (a symbolic link?); refused")
        if must_exist and not os.path.lexists(full):
            raise SandboxError(f"{path!r} does not exist in the sandbox")
        return full

    def read_bytes(self, path: str) -> bytes:
        handle, _ = self.open_read(path)
        with handle:
            return handle.read()

    def open_read(self, path: str) -> tuple[BinaryIO, int]:
        full = self._resolve(path)  # a link inside the sandbox is followed; one leading out is refused there
        try:
            fd, info = open_regular(full, follow=True)  # never waits on a FIFO: refuses it
        except IsADirectoryError:
            raise SandboxError(f"{path!r} is a folder; use ls to list it") from None
        except UnsafeFileError as exc:
            raise SandboxError(f"{path!r} {exc.reason}") from None
        return os.fdopen(fd, "rb"), info.st_size

    def is_executable(self, path: str) -> bool:
        return bool(os.stat(self._resolve(path)).st_mode & 0o111)

    def write_bytes(self, path: str, data: bytes, *, keep_out: Collection[Path] = ()) -> None:
        """Create or replace the regular file at `path` (see `disk_write`): never a FIFO, socket or
        device, never through a link leading out of the sandbox, never inside a folder of `keep_out`."""
        rel = sandbox_path(path)
        if not rel:
            raise SandboxError("cannot write to the sandbox root; name a file")
        try:
            write_file(self.root, rel, data, keep_out)
        except OSError as exc:
            raise SandboxError(f"cannot write {rel!r}: {exc.strerror or exc}") from None

    def list(self, path: str) -> list[Entry]:
        full = self._resolve(path)
        if not full.is_dir():
            raise SandboxError(f"{path!r} is not a folder")
        with os.scandir(full) as found:  # (no Path per entry: their making dominated listing a folder)
            children = sorted(found, key=lambda child: child.name)
        entries = []
        for child in children:
            info = child.stat(follow_symlinks=False)
            entries.append(Entry(child.name, stat.S_ISDIR(info.st_mode), info.st_size, stat.S_ISLNK(info.st_mode)))
        return entries

    def is_dir(self, path: str) -> bool:
        try:
            return self._resolve(path).is_dir()
        except SandboxError:
            return False

    def vet(self, path: str) -> VettedSkill:
        """The skill folder at `path` as `vet_skill` judges it (the verdict kept while the folder is unchanged)."""
        return _VETTED.vet(self._resolve(path), display=sandbox_path(path))


class MemorySandbox:
    """Files in memory: for tests, and agents that must not touch the disk (nothing runs here)."""

    allow_exec = False

    def __init__(self, files: Mapping[str, str | bytes] | None = None) -> None:
        self._files: dict[str, bytes] = {}
        self._folders: set[str] = set()  # every folder holding a file, at any depth
        for path, content in (files or {}).items():
            self.write_bytes(path, content.encode("utf-8") if isinstance(content, str) else bytes(content))

    def describe(self) -> str:
        return "memory"

    def read_bytes(self, path: str) -> bytes:
        rel = sandbox_path(path)
        if rel in self._files:
            return self._files[rel]
        if self.is_dir(rel):
            raise SandboxError(f"{path!r} is a folder; use ls to list it")
        raise SandboxError(f"{path!r} does not exist in the sandbox")

    def open_read(self, path: str) -> tuple[BinaryIO, int]:
        data = self.read_bytes(path)
        return io.BytesIO(data), len(data)

    def is_executable(self, path: str) -> bool:
        return False

    def write_bytes(self, path: str, data: bytes, *, keep_out: Collection[Path] = ()) -> None:
        """Keep `path`'s bytes (`keep_out`: folders on disk, which nothing in memory can reach)."""
        rel = sandbox_path(path)
        if not rel:
            raise SandboxError("cannot write to the sandbox root; name a file")
        if self.is_dir(rel):
            raise SandboxError(f"{path!r} is a folder")
        parents = []
        parent = rel.rpartition("/")[0]
        while parent:
            if parent in self._files:
                raise SandboxError(f"{parent!r} is a file, so {path!r} cannot be created under it")
            parents.append(parent)
            parent = parent.rpartition("/")[0]
        self._files[rel] = bytes(data)
        self._folders.update(parents)

    def list(self, path: str) -> list[Entry]:
        rel = sandbox_path(path)
        if rel and not self.is_dir(rel):
            raise SandboxError(f"{path!r} is not a folder")
        prefix = f"{rel}/" if rel else ""
        found: dict[str, Entry] = {}
        for name, data in self._files.items():
            if name.startswith(prefix):
                head, _, rest = name[len(prefix) :].partition("/")
                found[head] = Entry(head, True) if rest else Entry(head, False, len(data))
        return [found[k] for k in sorted(found)]

    def is_dir(self, path: str) -> bool:
        rel = sandbox_path(path)
        return rel == "" or rel in self._folders

    def vet(self, path: str) -> VettedSkill:
        """The skill folder at `path`, through the same walk as a folder on disk (held to the default limits)."""
        rel = sandbox_path(path)
        prefix = f"{rel}/"
        inside = {name[len(prefix) :]: data for name, data in self._files.items() if name.startswith(prefix)}
        return vet_tree(MemoryTree(inside), Path(rel), display=rel)
