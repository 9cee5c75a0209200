"""`os.walk` without recursion: Python 3.11's `os.walk` recurses once per folder level, so a
tree nested deeper than the recursion limit (about 1,000 levels) raised RecursionError."""

from __future__ import annotations

import os
from collections.abc import Iterator

__all__ = ["make_dirs", "walk_tree"]


def walk_tree(top: str | os.PathLike[str]) -> Iterator[tuple[str, list[str], list[str]]]:
    """Like `os.walk(top)`: top-down, links to folders listed but never entered, unreadable folders
    skipped; prune by editing the yielded folder list in place."""
    pending = [os.fspath(top)]
    while pending:
        folder = pending.pop()
        dirs: list[str] = []
        files: list[str] = []
        links: set[str] = set()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    if is_dir:
                        dirs.append(entry.name)
                        if entry.is_symlink():
                            links.add(entry.name)
                    else:
                        files.append(entry.name)
        except OSError:
            continue
        yield folder, dirs, files
        pending.extend(os.path.join(folder, name) for name in reversed(dirs) if name not in links)


def make_dirs(path: str | os.PathLike[str]) -> None:
    """`os.makedirs(path, exist_ok=True)` without recursion (it recurses once per missing level)."""
    missing = []
    current = os.fspath(path)
    while not os.path.isdir(current):
        missing.append(current)
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder)
        except FileExistsError:
            if not os.path.isdir(folder):
                raise
