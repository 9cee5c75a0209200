"""Vet one `markdown()` target: a regular UTF-8 text file, not a link, not a secret, holding none.

The same packing rules as a skill folder's files, applied to a single file; the build
packs what this accepts, and the run time's dev mode serves the same from disk.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from flue_runtime.errors import UnsafeFileError
from flue_runtime.format.diagnostics import Diagnostic, bounded, diagnostic, has_errors
from flue_runtime.format.frontmatter import decode_text
from flue_runtime.format.hidden_text import hidden_diagnostics
from flue_runtime.format.safe_read import read_regular
from flue_runtime.format.secrets import allowed_secret, found_secrets, is_secret_file, secret_file
from flue_runtime.format.vetting import (
    DEFAULT_LIMITS,
    LARGE_FILE,
    Limits,
    allowed_paths,
    format_size,
    hard_linked,
    link_refused,
    not_regular,
    refused,
    unreadable,
)

__all__ = ["MarkdownFile", "too_large", "vet_markdown"]


@dataclass(frozen=True)
class MarkdownFile:
    """A vetted markdown target: its size and SHA-256, and every problem found."""

    path: Path
    size: int
    sha256: str
    diagnostics: tuple[Diagnostic, ...]
    #: The text without a leading BOM; None when the file was refused.
    text: str | None = None
    #: CRC-32 of the bytes (see `PackedFile.crc32`).
    crc32: int = 0

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)

    @property
    def id(self) -> str:
        """Content-derived: the same text gets the same id wherever it lives."""
        return self.sha256[:16]


def vet_markdown(
    path: Path, display: str, allow: Collection[str | os.PathLike[str]] | None = None, limits: Limits = DEFAULT_LIMITS
) -> MarkdownFile:
    """`path` held to the packing rules; `allow` as in `vet_skill` (None: the file belongs to no project)."""
    problems: list[Diagnostic] = []

    def done(size: int = 0, digest: str = "", text: str | None = None, crc32: int = 0) -> MarkdownFile:
        return MarkdownFile(path, size, digest, tuple(bounded(problems)), text, crc32)

    try:
        info = os.lstat(path)
    except OSError as exc:
        problems.append(unreadable(display, exc, "FLU308 stat"))
        return done()
    if stat.S_ISLNK(info.st_mode):
        problems.append(link_refused(display))
        return done()
    if not stat.S_ISREG(info.st_mode):
        problems.append(not_regular(display, info.st_mode))
        return done()
    if info.st_size > limits.bundle_size:  # refused by its size alone: never opened, never read into memory
        problems.append(too_large(display, info.st_size, limits))
        return done()
    in_project = allow is not None
    allowed = path.name in allowed_paths(path.parent, allow or ())
    secret_name = is_secret_file(path.name, path.parent.name)
    if secret_name and not allowed:
        problems.append(secret_file(display, path.name, in_project=in_project))
        return done()
    try:
        found = read_regular(path, limit=limits.bundle_size, digest=True, scan=True)
    except UnsafeFileError as exc:
        grown = exc.code == "FLU311"  # grew past the limit since the lstat
        problems.append(too_large(display, limits.bundle_size + 1, limits) if grown else refused(display, exc))
        return done()
    except OSError as exc:
        problems.append(unreadable(display, exc))
        return done()
    if found.secrets and not allowed:
        problems.extend(found_secrets(display, found.secrets, in_project=in_project))
        return done()
    if found.hidden is not None:  # FLU317 (refused), FLU318: prompt text, as a skill's files are
        problems.extend(hidden_diagnostics(display, found.hidden))
        if found.hidden.refused:
            return done()
    if allowed and (secret_name or found.secrets):
        problems.append(allowed_secret(display, found.secrets[0] if found.secrets else None))
    if info.st_nlink > 1:
        problems.append(hard_linked(display, info.st_nlink))
    data = found.data or b""
    text, decoded = decode_text(data, display)
    problems.extend(decoded)
    if found.size > LARGE_FILE:
        problems.append(diagnostic("FLU305 markdown", display, mib=found.size / (1024 * 1024)))
    return done(found.size, found.sha256, text, found.crc32)


def too_large(display: str, size: int, limits: Limits) -> Diagnostic:
    return diagnostic("FLU311 markdown", display, size=format_size(size), limit=format_size(limits.bundle_size))
