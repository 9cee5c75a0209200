"""The packing rules: which entries of a skill directory are noise, which are secrets.

Shared by the build (what goes into a wheel), the CLI and the run time's dev mode
(what a skill read from disk may expose), so the three can never disagree.
"""

from __future__ import annotations

import fnmatch

#: Directories skipped with a warning: they belong to tools, never to a skill.
NOISE_DIRS = frozenset(
    {".git", "node_modules", "dist", "build", "__pycache__", ".venv", ".tox", ".cache", ".mypy_cache", ".pytest_cache"}
)
#: File patterns skipped with a warning: compiled files, OS litter, editor swap files.
NOISE_FILES = ("*.pyc", ".DS_Store", "*.swp", "*.swo", "*~", ".#*", "#*#")


def is_noise_dir(name: str) -> bool:
    return name in NOISE_DIRS


def is_noise_file(name: str) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in NOISE_FILES)
