"""Paths inside a skill: one strict form, so nothing a model or a caller writes can leave the skill.

A skill path is relative and POSIX: segments separated by `/`, none empty, `.` or `..`;
no backslash, NUL or control character; no percent-encoded separator or dot (also
double-encoded); nothing that Unicode compatibility folding turns into a separator or
a dot; no longer than a POSIX file system takes (`MAX_PATH_BYTES`, `MAX_NAME_BYTES`), so a
sandbox in memory holds no path a disk could not, and no message echoes a path longer.
Lookups then go through the skill's own file list, never through the file system.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Sequence

from flue_runtime.errors import SkillPathError

__all__ = ["LISTED_PATHS", "MAX_NAME_BYTES", "MAX_PATH_BYTES", "display_path", "is_inside", "skill_path", "some_paths"]


_ENCODED = re.compile(r"%(?:25)*(?:2e|2f|5c|00)", re.IGNORECASE)
_DRIVE = re.compile(r"^[A-Za-z]:")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
#: The longest path, and the longest name in it, in bytes of UTF-8: Linux's PATH_MAX and NAME_MAX.
MAX_PATH_BYTES = 4096
MAX_NAME_BYTES = 255
#: At most this many paths in a message that lists some (a skill's files, its scripts).
LISTED_PATHS = 20


def skill_path(path: object) -> str:
    """`path` unchanged if it is a clean relative skill path; `SkillPathError` otherwise."""
    if not isinstance(path, str):
        raise SkillPathError(repr(path), f"a path must be a string, not {type(path).__name__}")
    reason = _problem(path)
    if reason:
        raise SkillPathError(path, reason)
    return path


def _separators(text: str) -> int:
    return text.count(".") + text.count("/") + text.count("\\")


def _size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _problem(path: str) -> str:
    if not path:
        return "empty"
    if len(path) * 4 > MAX_PATH_BYTES and _size(path) > MAX_PATH_BYTES:  # (a character is 4 bytes at most)
        return f"is {_size(path):,} bytes long; a path holds at most {MAX_PATH_BYTES:,}"
    if "\x00" in path:
        return "holds a NUL byte"
    if _CONTROL.search(path):
        return "holds a control character"
    if "\\" in path:
        return "holds a backslash"
    if path.startswith("/") or _DRIVE.match(path):
        return "absolute"
    if _ENCODED.search(path):
        return "holds a percent-encoded dot, slash, backslash or NUL"
    if not path.isascii() and _separators(unicodedata.normalize("NFKC", path)) != _separators(path):
        return "holds a Unicode character that reads as a dot or a slash"  # (NFKC leaves ASCII as it is)
    for segment in path.split("/"):
        if segment in ("", ".", ".."):
            return "holds an empty, `.` or `..` segment"
        if len(segment) * 4 > MAX_NAME_BYTES and _size(segment) > MAX_NAME_BYTES:
            return f"holds a name of {_size(segment):,} bytes; a name holds at most {MAX_NAME_BYTES}"
    return ""


def some_paths(paths: Sequence[str]) -> str:
    """`paths` joined for a message: at most `LISTED_PATHS` of them, then how many more ("none" for none)."""
    from flue_runtime.format.diagnostics import cut  # (for a message only: mounting never loads it)

    shown = ", ".join(cut(p, 200) for p in paths[:LISTED_PATHS]) or "none"
    return shown if len(paths) <= LISTED_PATHS else f"{shown} and {len(paths) - LISTED_PATHS:,} more"


# --- paths on the build machine, as diagnostics show them ---------------------------------


def is_inside(folder: str | os.PathLike[str], path: str | os.PathLike[str]) -> bool:
    """Whether `path` is `folder` or below it, compared as written (no link resolved)."""
    from pathlib import PurePath  # the build's helper: mounting a bundle never needs pathlib (a costly import)

    return PurePath(path).is_relative_to(folder)


def display_path(path: str | os.PathLike[str], root: str | os.PathLike[str] | None = None) -> str:
    """`path` as diagnostics show it: relative to `root` (default: the working folder) and POSIX
    when inside it, as given otherwise."""
    text = os.fspath(path)
    base = os.fspath(root) if root is not None else os.getcwd()
    prefix = base.rstrip(os.sep) + os.sep
    if text.startswith(prefix) and ".." not in text:
        return text[len(prefix) :].replace(os.sep, "/")  # the common case, without relpath's cost per file
    try:
        relative = os.path.relpath(text, base)
    except ValueError:  # another drive on Windows
        return text
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return text
    return relative.replace(os.sep, "/")
