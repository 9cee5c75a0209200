"""Where a folder lies on disk, and the one way the model's tools write a file into a `LocalSandbox`.

Whether a place lies inside a folder is decided by what the file system says, not by how
the path is spelled: the device and inode of the place and of each of its real ancestors,
reached through `..` from an open descriptor. A symbolic link, `..`, letter case or Unicode
normalisation (on a file system that folds them) cannot dodge the check, and neither can a
folder swapped for a link while a write is under way: the folders are walked by descriptor,
never following a link, after the one `realpath` that follows the links inside the sandbox.

A write never opens the file it replaces: the bytes go into a new file in the same folder,
which is then renamed over the old one. So a FIFO, socket or device in the way is refused at
once (never waited on, never written to), a file hard-linked from elsewhere (say, from a
skill's folder) is replaced here rather than changed there, and a failed write leaves the
old file as it was.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Collection, Iterator
from pathlib import Path

from flue_runtime.errors import SandboxError
from flue_runtime.format.safe_read import kind

__all__ = ["Identity", "identity", "inside", "overlap", "write_file"]


Identity = tuple[int, int]
_DIRECTORY = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NONBLOCK", 0)  # never waits on a FIFO
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def identity(path: str | os.PathLike[str]) -> Identity | None:
    """The device and inode of what `path` names (links followed), or None when it cannot be reached."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return info.st_dev, info.st_ino


def _chain(fd: int) -> Iterator[Identity]:
    """The identity of the folder open at `fd`, then of each folder above it, up to the file system's root."""
    current = os.dup(fd)
    try:
        info = os.fstat(current)
        while True:
            yield info.st_dev, info.st_ino
            parent = os.open("..", _DIRECTORY, dir_fd=current)
            above = os.fstat(parent)
            os.close(current)
            current = parent
            if (above.st_dev, above.st_ino) == (info.st_dev, info.st_ino):
                return  # the root is its own parent
            info = above
    finally:
        os.close(current)


def inside(folder: str | os.PathLike[str], others: Collection[str | os.PathLike[str]]) -> str | None:
    """The first of `others` that the folder `folder` is or lies inside (as the file system says), or None."""
    wanted = {found: os.fspath(other) for other in others if (found := identity(other)) is not None}
    if not wanted:
        return None
    try:
        fd = os.open(folder, _DIRECTORY)
    except OSError:
        return None  # not a folder (any more): nothing lies inside it
    try:
        return next((wanted[place] for place in _chain(fd) if place in wanted), None)
    finally:
        os.close(fd)


def overlap(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether folder `a` lies inside folder `b`, or `b` inside `a` (either may be the other)."""
    return inside(a, [b]) is not None or inside(b, [a]) is not None


def write_file(root: Path, relative: str, data: bytes, keep_out: Collection[Path] = ()) -> None:
    """Write `data` to `relative` (a clean sandbox path, not '') under the folder `root`, creating folders.

    `SandboxError` when the place resolves outside `root`, lies inside one of `keep_out`, or
    holds a folder, FIFO, socket or device; nothing is written then.
    """
    shown = relative
    real = os.path.realpath(root.joinpath(*relative.split("/")))  # links inside the sandbox are followed, once
    base = str(root)
    if real == base or not real.startswith(base.rstrip(os.sep) + os.sep):
        if real == base:
            raise SandboxError(f"{shown!r} is the sandbox root (through a symbolic link); name a file")
        raise SandboxError(f"{shown!r} resolves outside the sandbox (a symbolic link?); refused")
    *folders, name = os.path.relpath(real, base).split(os.sep)
    fd = os.open(base, _DIRECTORY)
    try:
        missing = len(folders)
        for index, part in enumerate(folders):
            try:
                below = os.open(part, _DIRECTORY | _NOFOLLOW, dir_fd=fd)
            except FileNotFoundError:
                missing = index
                break
            except NotADirectoryError:
                raise SandboxError(
                    f"{'/'.join(folders[: index + 1])!r} is a file, so {shown!r} cannot be created under it"
                ) from None
            except OSError as exc:
                raise _changed(shown, exc) from None
            os.close(fd)
            fd = below
        _check_place(fd, base, keep_out, shown)
        for part in folders[missing:]:
            try:
                os.mkdir(part, 0o777, dir_fd=fd)
            except FileExistsError:
                pass  # made meanwhile: opened below without following a link, like any other
            try:
                below = os.open(part, _DIRECTORY | _NOFOLLOW, dir_fd=fd)
            except OSError as exc:
                raise _changed(shown, exc) from None
            os.close(fd)
            fd = below
        _replace(fd, name, data, shown)
    finally:
        os.close(fd)


def _check_place(fd: int, root: str, keep_out: Collection[Path], shown: str) -> None:
    """The folder open at `fd` must lie inside `root` and outside every folder of `keep_out`."""
    kept = {found: folder for folder in keep_out if (found := identity(folder)) is not None}
    sandbox = identity(root)
    reached = False
    for place in _chain(fd):
        folder = kept.get(place)
        if folder is not None:
            raise SandboxError(
                f"{shown!r} lies inside {folder}, the folder of a skill the application mounted from disk: "
                "the model's tools never write there (its files are what was vetted, and scripts may run from "
                "them); write somewhere else in the sandbox"
            )
        reached = reached or place == sandbox
    if not reached:
        raise SandboxError(f"{shown!r} resolves outside the sandbox (a folder changed while it was written); refused")


def _replace(fd: int, name: str, data: bytes, shown: str) -> None:
    """`data` into a new file next to `name` in the folder open at `fd`, renamed over `name`."""
    try:
        existing: os.stat_result | None = os.stat(name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        existing = None
    if existing is not None and stat.S_ISDIR(existing.st_mode):
        raise SandboxError(f"{shown!r} is a folder")
    if existing is not None and not stat.S_ISREG(existing.st_mode) and not stat.S_ISLNK(existing.st_mode):
        raise SandboxError(
            f"{shown!r} is not a regular file ({kind(existing.st_mode)}): write only creates or replaces "
            "regular files; write somewhere else"
        )
    temporary = f".{name[:200]}.{os.urandom(6).hex()}.flue-write"
    out = os.open(temporary, _CREATE, 0o666, dir_fd=fd)  # the umask applies, as to any new file
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(out, view) :]
            if existing is not None and stat.S_ISREG(existing.st_mode):
                os.fchmod(out, stat.S_IMODE(existing.st_mode))  # a replaced file keeps its mode
        finally:
            os.close(out)
        os.replace(temporary, name, src_dir_fd=fd, dst_dir_fd=fd)
    except BaseException:
        try:
            os.unlink(temporary, dir_fd=fd)
        except OSError:
            pass
        raise


def _changed(shown: str, exc: OSError) -> SandboxError:
    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
        return SandboxError(f"{shown!r}: a folder on its way changed while it was written (a symbolic link?); refused")
    return SandboxError(f"cannot write {shown!r}: {exc.strerror or exc}")
