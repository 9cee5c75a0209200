"""The packing rules: what of a skill directory may leave the developer's machine.

Shared by the build (what goes into a wheel), the CLI and the run time's dev mode (what
a skill read from disk may expose), so the three can never disagree. Every entry is
examined with `lstat` and never followed: a symbolic link anywhere is an error.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Collection

from .diagnostics import Diagnostic

if TYPE_CHECKING:  # pragma: no cover  (pathlib and hashlib stay out of a bundled skill's import path)
    from pathlib import Path

#: Directories skipped with a warning: they belong to tools, never to a skill.
NOISE_DIRS = frozenset(
    {".git", "node_modules", "dist", "build", "__pycache__", ".venv", ".tox", ".cache", ".mypy_cache", ".pytest_cache"}
)
#: File patterns skipped with a warning: compiled files, OS litter, editor swap files.
NOISE_FILES = ("*.pyc", ".DS_Store", "*.swp", "*.swo", "*~", ".#*", "#*#", ".git")

#: File names refused as secrets (matched case-insensitively).
SECRET_FILES = (
    ".env",
    ".env.*",
    ".dev.vars",
    ".dev.vars.*",
    ".netrc",
    "_netrc",
    ".npmrc",
    ".pypirc",
    "credentials.json",
    "*.key",
    "*.pem",
    "*.p12",
    "*.pfx",
    "secret",
    "secrets",
    "secret.*",
    "secrets.*",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
)
#: Directories refused whole as secrets (matched case-insensitively).
SECRET_DIRS = frozenset({".aws", ".ssh", ".gnupg"})
#: A PEM private-key block anywhere in a file's bytes.
PRIVATE_KEY = re.compile(rb"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")

#: Files larger than this are packed with a warning.
LARGE_FILE = 1024 * 1024

_CHUNK = 1 << 20


def is_noise_dir(name: str) -> bool:
    return name in NOISE_DIRS


def is_noise_file(name: str) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in NOISE_FILES)


def is_secret_file(name: str) -> bool:
    lowered = name.lower()
    return any(fnmatch.fnmatchcase(lowered, pattern) for pattern in SECRET_FILES)


def is_secret_dir(name: str) -> bool:
    return name.lower() in SECRET_DIRS


@dataclass(frozen=True)
class PackedFile:
    """A vetted file: its POSIX path inside the skill, size and SHA-256 of its bytes."""

    path: str
    size: int
    sha256: str


@dataclass
class Walk:
    """What may be packed from a directory, and every problem met on the way."""

    files: list[PackedFile] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


def walk(
    root: Path,
    *,
    display: str | None = None,
    allow: Collection[Path] = (),
    large_file: int = LARGE_FILE,
) -> Walk:
    """Vet every entry under `root`; files come back sorted by path.

    `allow` holds absolute paths of files a project lets through although they look like
    secrets; each one packed that way gets a warning so the build log says so.
    `display` is how `root` is shown in diagnostics (default: as given).
    """
    shown_root = display if display is not None else str(root)
    allowed = {os.path.normcase(os.path.abspath(p)) for p in allow}
    result = Walk()

    def shown(rel: str) -> str:
        return f"{shown_root}/{rel}" if rel else shown_root

    def report(code: str, rel: str, message: str, hint: str) -> None:
        result.diagnostics.append(Diagnostic.make(code, shown(rel), message, hint))

    pending = [""]
    while pending:
        rel_dir = pending.pop()
        folder = root / rel_dir if rel_dir else root
        try:
            with os.scandir(folder) as entries:
                names = sorted(entry.name for entry in entries)
        except OSError as exc:
            report("FLU308", rel_dir, f"cannot list this folder: {exc.strerror or exc}", "make it readable, or remove it")
            continue
        subdirs: list[str] = []
        for name in names:
            rel = f"{rel_dir}/{name}" if rel_dir else name
            full = folder / name
            try:
                info = os.lstat(full)
            except OSError as exc:
                report("FLU308", rel, f"cannot stat: {exc.strerror or exc}", "make it readable, or remove it")
                continue
            if stat.S_ISLNK(info.st_mode):
                target = _link_target(full)
                report(
                    "FLU301",
                    rel,
                    f"symbolic link{target} refused: a link is never followed into a bundle",
                    "replace the link with a copy of the file or folder it points to",
                )
                continue
            if stat.S_ISDIR(info.st_mode):
                if is_noise_dir(name):
                    report("FLU304", rel, f"`{name}/` skipped: tool output, not part of a skill", f"delete `{name}/` from the skill folder")
                elif is_secret_dir(name) and not _is_allowed(full, allowed):
                    report(
                        "FLU302",
                        rel,
                        f"`{name}/` holds credentials; refused",
                        f"move `{name}/` out of the skill folder (add it to [tool.flue] allow only if it is test data)",
                    )
                else:
                    subdirs.append(rel)
                continue
            if not stat.S_ISREG(info.st_mode):
                report(
                    "FLU307",
                    rel,
                    f"not a regular file ({_kind(info.st_mode)}); refused",
                    "a skill holds only regular files and folders; remove it",
                )
                continue
            if is_noise_file(name):
                report("FLU304", rel, f"`{name}` skipped: editor, OS, VCS or compiler litter", f"delete `{name}`")
                continue
            allowed_here = _is_allowed(full, allowed)
            if is_secret_file(name) and not allowed_here:
                report(
                    "FLU302",
                    rel,
                    f"`{name}` looks like a secret; refused",
                    "move it out of the skill folder; if it is harmless (an example, a test key), "
                    "list its path, relative to the project root, in [tool.flue] allow",
                )
                continue
            try:
                size, digest, has_key = _read(full)
            except OSError as exc:
                report("FLU308", rel, f"cannot read: {exc.strerror or exc}", "make it readable, or remove it")
                continue
            if has_key and not allowed_here:
                report(
                    "FLU303",
                    rel,
                    "holds a PEM private key; refused",
                    "remove the key from the file; never ship private keys inside a package",
                )
                continue
            if allowed_here and (is_secret_file(name) or has_key):
                report(
                    "FLU306",
                    rel,
                    "packed although it looks like a secret: allowed by [tool.flue] allow",
                    "remove it from [tool.flue] allow if this is not intended",
                )
            if size > large_file:
                report(
                    "FLU305",
                    rel,
                    f"large file packed ({size / (1024 * 1024):.1f} MiB)",
                    "large assets make every install slower; keep them out of skills if the agent does not need them",
                )
            result.files.append(PackedFile(rel, size, digest))
        pending.extend(reversed(subdirs))
    result.files.sort(key=lambda f: f.path)
    return result


def _read(path: Path) -> tuple[int, str, bool]:
    """Size, SHA-256 and whether a PEM private key appears, in one pass over the bytes."""
    import hashlib

    digest = hashlib.sha256()
    size = 0
    has_key = False
    tail = b""
    # O_NONBLOCK: a FIFO swapped in after lstat must not hang the build.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise OSError(f"{path} is no longer a regular file")
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
            size += len(chunk)
            if not has_key:
                window = tail + chunk
                has_key = PRIVATE_KEY.search(window) is not None
                tail = window[-64:]
    return size, digest.hexdigest(), has_key


def _is_allowed(path: Path, allowed: set[str]) -> bool:
    return bool(allowed) and os.path.normcase(os.path.abspath(path)) in allowed


def _link_target(path: Path) -> str:
    try:
        return f" to `{os.readlink(path)}`"
    except OSError:
        return ""


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a special file"
