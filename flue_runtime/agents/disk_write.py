"""Where a folder lies on disk, and the one way the model's tools write a file into a `LocalSandbox`.

Whether a place lies inside a folder is decided by what the file system says, not by how
the path is spelled: the device and inode of the place and of each of its real ancestors,
reached through `..` from an open descriptor. A symbolic link, `..`, letter case or Unicode
normalisation (on a file system that folds them) cannot dodge the check, and neither can a
folder swapped for a link while a write is under way: the folders are walked by descriptor,
never following a link, after the one `realpath` that follows the links inside the sandbox.

Nor does a write land where Python loads code from when it starts (`startup_places`): a skill's
script runs under `sys.executable -I`, which runs every `.pth` file in its site-packages, imports
`sitecustomize` and `usercustomize` from any folder on its `sys.path`, and byte code from
`__pycache__`, before the script's first line. Every file in the interpreter's virtual environment,
standard library and site-packages is refused; in the other folders on its `sys.path` (a source
folder an editable install puts there, which may be the sandbox itself), those start-up files and
byte code are.

A write never opens the file it replaces: the bytes go into a new file in the same folder,
which is then renamed over the old one. So a FIFO, socket or device in the way is refused at
once (never waited on, never written to), a file hard-linked from elsewhere (say, from a
skill's folder) is replaced here rather than changed there, and a failed write leaves the
old file as it was.
"""

from __future__ import annotations

import errno
import functools
import inspect
import json
import os
import stat
import subprocess
import sys
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flue_runtime.errors import SandboxError
from flue_runtime.format.safe_read import kind

__all__ = ["Identity", "StartupPlaces", "inside", "overlap", "startup_places", "write_file"]


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
        chain = list(_chain(fd))
        _check_place(chain, base, keep_out, shown)
        _check_startup(chain, real, len(folders) - missing + 1, shown)
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


def _check_place(chain: list[Identity], root: str, keep_out: Collection[Path], shown: str) -> None:
    """The folder whose `chain` this is (its identity, then each folder's above it) must lie inside `root` and
    outside every folder of `keep_out`."""
    kept = {found: folder for folder in keep_out if (found := identity(folder)) is not None}
    sandbox = identity(root)
    reached = False
    for place in chain:
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


# --- where Python loads code from when it starts -----------------------------------------------------

#: What an interpreter with `site` imports from any folder on its `sys.path` when it starts (a module or a package).
_CUSTOMIZE = ("sitecustomize", "usercustomize")


@dataclass(frozen=True)
class StartupPlaces:
    """Where the interpreter that runs skills' scripts loads code from when it starts, each folder by identity:
    `folders`, every file of which it may load (its virtual environment, standard library, site-packages); `path`,
    the other folders on its `sys.path` (start-up files and byte code in them); `names`, what it looks for that is
    not there yet, by the folder it would be made in (a zip or a folder on `sys.path`, a `pyvenv.cfg` beside the
    executable or one folder up, which would change the interpreter's home)."""

    folders: dict[Identity, str]
    path: dict[Identity, str]
    names: dict[Identity, set[str]]


@functools.cache
def startup_places() -> StartupPlaces:
    """The places of `sys.executable -I`, the interpreter `run_skill_script` starts, asked of it once per process
    (this process may have started otherwise: with `-S`, or with `sys.path` changed since); this process's own
    places when it cannot be asked (then no script can run either)."""
    try:
        code = f"{inspect.getsource(_probe)}\nimport json\nprint(json.dumps(_probe()))"
        done = subprocess.run(
            [sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60, check=True
        )
        found = json.loads(done.stdout)
    except (OSError, ValueError, subprocess.SubprocessError):
        found = _probe()
    return _places(found)


def _probe() -> dict[str, Any]:
    """What an interpreter says of itself: its virtual environment, executable, `sys.path` and the folders of its
    site-packages and standard library (run in the interpreter asked, from its source: standard library only)."""
    import site
    import sys
    import sysconfig

    paths = sysconfig.get_paths()
    library = [paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")]
    return {
        "venv": [sys.prefix, sys.exec_prefix] if sys.prefix != sys.base_prefix else [],
        "executable": sys.executable,
        "path": [entry for entry in sys.path if entry],
        "code": [*site.getsitepackages(), site.getusersitepackages(), *library],
    }


def _places(found: dict[str, Any]) -> StartupPlaces:
    folders = {place: str(f) for f in [*found["venv"], *found["code"]] if (place := identity(f)) is not None}
    path: dict[Identity, str] = {}
    names: dict[Identity, set[str]] = {}
    executable = os.path.dirname(str(found["executable"]))
    wanted = [os.path.join(executable, "pyvenv.cfg"), os.path.join(os.path.dirname(executable), "pyvenv.cfg")]
    for entry in [str(e) for e in found["path"]]:
        place = identity(entry) if os.path.isdir(entry) else None
        if place is None:
            wanted.append(entry)
        elif place not in folders:
            path[place] = entry
    for entry in wanted:  # each by its first part that is not there yet, in the folder it would be made in
        parent, name = os.path.split(os.path.abspath(entry))
        while parent != os.path.dirname(parent) and identity(parent) is None:
            parent, name = os.path.split(parent)
        place = identity(parent)
        if place is not None:
            names.setdefault(place, set()).add(name)
    return StartupPlaces(folders, path, names)


def _check_startup(chain: list[Identity], real: str, depth: int, shown: str) -> None:
    """The file `real` (its last `depth` parts below the first folder of `chain`) must be nowhere `startup_places`
    names: each folder of the chain is judged by what lies below it."""
    places = startup_places()
    parts = real.split(os.sep)[1:]
    for up, place in enumerate(chain):
        why = _startup_problem(places, place, parts[max(0, len(parts) - depth - up) :])
        if why is not None:
            raise SandboxError(
                f"{shown!r} is {why}, where Python loads code from when it starts: a skill's script would run it "
                "before its own first line, so the model's tools never write there; write somewhere else in the "
                "sandbox"
            )


def _startup_problem(places: StartupPlaces, place: Identity, parts: list[str]) -> str | None:
    """Why writing `parts` below the folder `place` would plant start-up code, or None."""
    if place in places.folders:
        return f"inside {places.folders[place]}"
    if parts[0] in places.names.get(place, ()):
        return "a file the interpreter looks for"
    if place not in places.path:
        return None
    top = parts[0]
    if top.endswith(".pth") or top.partition(".")[0] in _CUSTOMIZE:
        return f"a start-up file in {places.path[place]}, a folder on the interpreter's sys.path"
    if "__pycache__" in parts[:-1] or parts[-1].endswith((".pyc", ".pyo")):
        return f"byte code under {places.path[place]}, a folder on the interpreter's sys.path"
    return None


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
