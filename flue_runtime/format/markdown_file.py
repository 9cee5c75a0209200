"""Vet one `markdown()` target: a regular UTF-8 text file, not a link, not a secret.

The same packing rules as a skill folder's files, applied to a single file; the build
packs what this accepts, and the run time's dev mode serves the same from disk.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from flue_runtime.format.diagnostics import Diagnostic, has_errors
from flue_runtime.format.frontmatter import decode
from flue_runtime.format.vetting import DEFAULT_LIMITS, LARGE_FILE, PRIVATE_KEY, Limits, format_size, is_secret_file


@dataclass(frozen=True)
class MarkdownFile:
    """A vetted markdown target: its size and SHA-256, and every problem found."""

    path: Path
    size: int
    sha256: str
    diagnostics: tuple[Diagnostic, ...]
    #: The text without a leading BOM; None when the file was refused.
    text: str | None = None

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)

    @property
    def id(self) -> str:
        """Content-derived: the same text gets the same id wherever it lives."""
        return self.sha256[:16]


def vet_markdown(
    path: Path, display: str, allow: Collection[Path] = (), limits: Limits = DEFAULT_LIMITS
) -> MarkdownFile:
    problems: list[Diagnostic] = []

    def done(size: int = 0, digest: str = "", text: str | None = None) -> MarkdownFile:
        return MarkdownFile(path, size, digest, tuple(problems), text)

    def report(code: str, message: str, hint: str) -> None:
        problems.append(Diagnostic.make(code, display, message, hint))

    try:
        info = os.lstat(path)
    except OSError as exc:
        report("FLU308", f"cannot stat: {exc.strerror or exc}", "make it readable")
        return done()
    if stat.S_ISLNK(info.st_mode):
        report(
            "FLU301",
            "symbolic link refused: a link is never followed into a bundle",
            "replace the link with a copy of the file",
        )
        return done()
    if not stat.S_ISREG(info.st_mode):
        report("FLU307", "not a regular file; refused", "point markdown() at a regular .md file")
        return done()
    if info.st_size > limits.bundle_size:  # refused by its size alone: never read into memory
        report(
            "FLU311",
            f"{format_size(info.st_size)}, over the {format_size(limits.bundle_size)} limit; refused",
            "keep markdown() targets small: they are read whole (or raise [tool.flue] max-bundle-size)",
        )
        return done()
    allowed = os.path.normcase(os.path.abspath(path)) in {os.path.normcase(os.path.abspath(p)) for p in allow}
    secret_name = is_secret_file(path.name)
    if secret_name and not allowed:
        report(
            "FLU302",
            f"`{path.name}` looks like a secret; refused",
            "rename it, or list it in [tool.flue] allow if it is harmless",
        )
        return done()
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        report("FLU308", f"cannot read: {exc.strerror or exc}", "make it readable")
        return done()
    has_key = PRIVATE_KEY.search(data) is not None
    if has_key and not allowed:
        report("FLU303", "holds a PEM private key; refused", "remove the key from the file")
        return done()
    if allowed and (secret_name or has_key):
        report(
            "FLU306",
            "packed although it looks like a secret: allowed by [tool.flue] allow",
            "remove it from [tool.flue] allow if this is not intended",
        )
    text, decoded = decode(data, display)
    problems.extend(decoded)
    if len(data) > LARGE_FILE:
        report(
            "FLU305",
            f"large file packed ({len(data) / (1024 * 1024):.1f} MiB)",
            "keep markdown() targets small: they are read whole",
        )
    return done(len(data), hashlib.sha256(data).hexdigest(), text)
