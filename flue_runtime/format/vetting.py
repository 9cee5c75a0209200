"""The packing rules: what of a skill folder may leave the developer's machine.

One walk for every surface: the build (what goes into a wheel), the CLI, the run time's
dev mode, workspace skills, sandboxes and `define_skill(files=...)`, so they can never
disagree. It reads a `Tree` (a folder on disk or files in memory); every entry is
examined with `lstat` and never followed: a symbolic link anywhere is an error. Noise
folders (`node_modules/`, `.venv/`, ...) are skipped with a warning and never entered:
what is in them is tool output, never packed, and a build's audit proves none of it
reaches an artifact (`flue_build.inventory`). What a secret is lives in `secrets`, how a
file is read in `safe_read`.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
import stat
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from flue_runtime.errors import SkillPathError, UnsafeFileError
from flue_runtime.format.diagnostics import Diagnostic, printable
from flue_runtime.format.frontmatter import FRONTMATTER_LIMIT
from flue_runtime.format.paths import skill_path
from flue_runtime.format.records import PackedFile as PackedFile
from flue_runtime.format.safe_read import kind
from flue_runtime.format.secrets import (
    NAME_CACHE,
    allowed_secret,
    found_secret,
    is_secret_dir,
    is_secret_file,
    secret_file,
    secret_folder,
)
from flue_runtime.format.trees import Tree

#: Directories skipped with a warning: they belong to tools, never to a skill.
NOISE_DIRS = frozenset(
    {".git", "node_modules", "dist", "build", "__pycache__", ".venv", ".tox", ".cache", ".mypy_cache", ".pytest_cache"}
)
#: File patterns skipped with a warning: compiled files, OS litter, editor swap files.
NOISE_FILES = ("*.pyc", ".DS_Store", "*.swp", "*.swo", "*~", ".#*", "#*#", ".git")

#: Files larger than this are packed with a warning.
LARGE_FILE = 1024 * 1024

#: At most this many files in one skill (`[tool.flue] max-skill-files`). Real skills hold a
#: handful; 10,000 is two orders of magnitude more, and it bounds the walk, the manifest
#: (a line per file) and what pip writes at install time.
MAX_SKILL_FILES = 10_000
#: At most this many bytes of skill files and markdown targets in one build's bundles, and
#: so in any one skill (`[tool.flue] max-bundle-size`): the public package index refuses
#: files over 100 MB unless a project asks for more, and every install downloads it all.
MAX_BUNDLE_SIZE = 100 * 1024 * 1024

#: Folders nested deeper than this inside a skill are refused (fixed). Python 3.11's
#: os.makedirs, pathlib and distutils recurse once per level, so pip and setuptools fail
#: on paths about 1,000 levels deep; real skills nest a few levels, vendored trees a dozen.
MAX_FOLDER_DEPTH = 64

#: The units a size in `[tool.flue]` may use, any case: binary (KiB = 1024 bytes) and decimal (kB = 1000 bytes).
_UNITS = {"b": 1, "kib": 1024, "mib": 1024**2, "gib": 1024**3, "kb": 1000, "mb": 1000**2, "gb": 1000**3}
SIZE_UNITS = "B, KiB, MiB, GiB, kB, MB, GB"
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMG]i?B|B)?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Limits:
    """What one skill (and one build) may hold; `[tool.flue]` overrides each, build and dev mode alike."""

    frontmatter_size: int = FRONTMATTER_LIMIT
    skill_files: int = MAX_SKILL_FILES
    bundle_size: int = MAX_BUNDLE_SIZE


DEFAULT_LIMITS = Limits()


def parse_size(value: object) -> int | None:
    """A byte count from `[tool.flue]`: an integer, or a string like "64 KiB", "1.5 GiB" or "10 MB"; None if neither."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        match = _SIZE.match(value)
        if match:
            return int(float(match.group(1)) * _UNITS[(match.group(2) or "b").lower()])
    return None


def format_size(size: int) -> str:
    """`size` bytes the way limits are written: 64 KiB, 100 MiB, 1.5 GiB, 512 B."""
    for unit, factor in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if size >= factor:
            amount = size / factor
            return f"{amount:.0f} {unit}" if amount == int(amount) else f"{amount:.1f} {unit}"
    return f"{size} B"


@functools.lru_cache(maxsize=NAME_CACHE)
def name_problem(name: str) -> str:
    """Why the run time could never serve a file or folder called `name`, or "" when it could."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "not valid UTF-8"
    try:
        skill_path(name)
    except SkillPathError as exc:
        return exc.reason
    return ""


def is_noise_dir(name: str) -> bool:
    return name in NOISE_DIRS


_NOISE_FILE = re.compile("|".join(fnmatch.translate(pattern) for pattern in NOISE_FILES))


@functools.lru_cache(maxsize=NAME_CACHE)
def is_noise_file(name: str) -> bool:
    return _NOISE_FILE.match(name) is not None


@dataclass
class Walk:
    """What may be packed from a tree, and every problem met on the way."""

    files: list[PackedFile] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: The bytes of the files the caller asked to keep, read in the vetting pass.
    kept: dict[str, bytes] = field(default_factory=dict)
    #: True when the walk stopped early, at the file-count limit: `files` is incomplete.
    stopped: bool = False


def walk(
    tree: Tree,
    *,
    display: str,
    allow: Collection[str] | None = None,
    large_file: int = LARGE_FILE,
    limits: Limits = DEFAULT_LIMITS,
    keep: Collection[str] = (),
) -> Walk:
    """Vet every entry of `tree`; files come back sorted by path.

    `allow` holds the paths (relative to the tree) of files and folders a project lets
    through although they look like secrets; each one packed that way gets a warning so
    the build log says so. None: the tree belongs to no project, so there is no allow list
    (and the hints say what to do instead). `display` is how the tree's root is shown in diagnostics.
    `keep` names the files whose bytes the caller wants back (`Walk.kept`), read in the
    same pass that hashes and scans them.

    Noise (tool output, caches, editor litter) is skipped with a warning: a noise folder is
    never entered, so what it holds (`node_modules/.bin` links, a `node_modules/.env`) is
    neither vetted nor packed. A noise file's name is checked as a secret's first: a
    secret's backup (`.env~`) is refused, not skipped.

    The walk is iterative (any nesting depth the OS allows) and bounded: it stops at
    `limits.skill_files` files (FLU310), and once the files add up to more than
    `limits.bundle_size` bytes it reads no more of them (FLU311), so a hostile folder
    costs time in proportion to the limits, not to its size.
    """
    result = Walk()
    count = 0
    total = 0
    in_project = allow is not None
    allow = allow or ()

    def shown(rel: str) -> str:
        return f"{display}/{rel}" if rel else display

    def report(code: str, rel: str, message: str, hint: str) -> None:
        result.diagnostics.append(Diagnostic.make(code, shown(rel), message, hint))

    pending: list[str] = [""]
    while pending:
        rel_dir = pending.pop()
        try:
            names = sorted(tree.names(rel_dir))
        except OSError as exc:
            result.diagnostics.append(unreadable(shown(rel_dir), exc, "list this folder"))
            continue
        subdirs: list[str] = []
        for name in names:
            rel = f"{rel_dir}/{name}" if rel_dir else name
            problem = name_problem(name)
            if problem:
                report(
                    "FLU309",
                    rel,
                    f"name refused ({problem}): no path to it could ever be read at run time",
                    "rename it to plain text: no control characters (newlines, tabs), backslashes, "
                    "percent-encoded or look-alike dots and slashes, valid UTF-8, at most 255 bytes",
                )
                continue
            try:
                info = tree.stat(rel)
            except OSError as exc:
                result.diagnostics.append(unreadable(shown(rel), exc, "stat"))
                continue
            if stat.S_ISLNK(info.mode):
                result.diagnostics.append(link_refused(shown(rel), tree.link_target(rel)))
                continue
            if stat.S_ISDIR(info.mode):
                if is_secret_dir(name) and rel not in allow:
                    result.diagnostics.append(secret_folder(shown(rel), name, in_project=in_project))
                elif rel.count("/") + 1 > MAX_FOLDER_DEPTH:
                    report(
                        "FLU313",
                        rel,
                        f"folder nested more than {MAX_FOLDER_DEPTH} levels deep inside the skill; refused",
                        "flatten the folder tree: installers (pip, setuptools on Python 3.11) cannot write "
                        "paths nested about 1,000 levels deep, and no skill needs more than a few",
                    )
                elif is_noise_dir(name):
                    report(
                        "FLU304",
                        rel,
                        f"`{name}/` skipped: tool output, not part of a skill",
                        f"delete `{name}/` from the skill folder",
                    )
                else:
                    subdirs.append(rel)
                continue
            if not stat.S_ISREG(info.mode):
                result.diagnostics.append(not_regular(shown(rel), info.mode))
                continue
            allowed_here = rel in allow
            secret_name = is_secret_file(name, rel_dir.rpartition("/")[2])
            if secret_name and not allowed_here:
                result.diagnostics.append(secret_file(shown(rel), name, in_project=in_project))
                continue
            if is_noise_file(name):
                report("FLU304", rel, f"`{name}` skipped: editor, OS, VCS or compiler litter", f"delete `{name}`")
                continue
            count += 1
            if count > limits.skill_files:
                report(
                    "FLU310",
                    "",
                    f"more than {limits.skill_files:,} files in one skill; refused (the walk stopped at {printable(rel)})",
                    "a skill is instructions and a few support files: leave out what the agent does not read, "
                    f"or raise the limit in pyproject.toml: [tool.flue] max-skill-files = {_suggest(count, limits.skill_files)}",
                )
                result.stopped = True
                pending.clear()
                break
            if total + info.size > limits.bundle_size:
                total += info.size  # over the limit: refused anyway, so the rest is not read
                continue
            try:
                found = tree.read(rel, limit=limits.bundle_size - total, keep=rel in keep)
            except UnsafeFileError as exc:
                if exc.code == "FLU311":  # grew since the lstat: over the limit after all
                    total = limits.bundle_size + 1
                else:
                    result.diagnostics.append(refused(shown(rel), exc))
                continue
            except OSError as exc:
                result.diagnostics.append(unreadable(shown(rel), exc))
                continue
            total += found.size
            if found.secret is not None and not allowed_here:
                result.diagnostics.append(found_secret(shown(rel), found.secret, in_project=in_project))
                continue
            if allowed_here and (secret_name or found.secret is not None):
                result.diagnostics.append(allowed_secret(shown(rel), found.secret))
            if found.size > large_file:
                report(
                    "FLU305",
                    rel,
                    f"large file packed ({found.size / (1024 * 1024):.1f} MiB)",
                    "large assets make every install slower; keep them out of skills if the agent does not need them",
                )
            if info.nlink > 1:
                result.diagnostics.append(hard_linked(shown(rel), info.nlink))
            if found.data is not None:
                result.kept[rel] = found.data
            result.files.append(PackedFile(rel, found.size, found.sha256, found.crc32))
        if not result.stopped:
            pending.extend(reversed(subdirs))
    if total > limits.bundle_size:
        report(
            "FLU311",
            "",
            f"skill files add up to {format_size(total)}, over the {format_size(limits.bundle_size)} limit; refused",
            "large data does not belong in a skill every install downloads; leave it out, or raise the limit in "
            f'pyproject.toml: [tool.flue] max-bundle-size = "{format_size(_suggest(total, limits.bundle_size))}"',
        )
    result.files.sort(key=lambda f: f.path)
    _case_clashes(result, shown)
    return result


def hard_linked(shown: str, names: int) -> Diagnostic:
    """FLU314: a file with `names` > 1 hard links (`st_nlink`): its bytes can change from outside the skill."""
    return Diagnostic.make(
        "FLU314",
        shown,
        f"hard-linked file packed: {names} names share these bytes, so a change made through "
        "another name, outside the skill too, changes what ships",
        "replace it with a copy of its own (`cp --remove-destination SOURCE FILE`); strict mode refuses it",
    )


def allowed_paths(root: str | os.PathLike[str], allow: Collection[str | os.PathLike[str]]) -> frozenset[str]:
    """The paths of `allow` (absolute, or relative to the working folder) that lie under `root`,
    relative to it and POSIX: what `walk` takes."""
    base = os.path.abspath(root)
    found = set()
    for path in allow:
        relative = os.path.relpath(os.path.abspath(path), base)
        if relative != os.curdir and not relative.startswith(os.pardir):
            found.add(relative.replace(os.sep, "/"))
    return frozenset(found)


def _suggest(found: int, limit: int) -> int:
    """A round limit above `found`, for hints."""
    step = limit
    while step * 2 <= found:
        step *= 2
    return step * 2


def _case_clashes(result: Walk, shown: Callable[[str], str]) -> None:
    """Warn about files whose paths differ only in case: one overwrites the other on macOS and Windows."""
    seen: dict[str, str] = {}
    for entry in result.files:
        key = entry.path.casefold()
        first = seen.setdefault(key, entry.path)
        if first != entry.path:
            result.diagnostics.append(
                Diagnostic.make(
                    "FLU312",
                    shown(entry.path),
                    f"`{printable(entry.path)}` and `{printable(first)}` differ only in case: installed on a "
                    "case-insensitive file system (macOS, Windows), one overwrites the other",
                    "rename one of them",
                )
            )


# --- what an entry that cannot be packed gets: one text and hint each ---------------------


def link_refused(shown: str, target: str = "") -> Diagnostic:
    """FLU301: an entry that is a symbolic link (`target`: where it points, when known)."""
    to = f" to `{target}`" if target else ""
    return Diagnostic.make(
        "FLU301",
        shown,
        f"symbolic link{to} refused: a link is never followed into a bundle",
        "replace the link with a copy of the file or folder it points to",
    )


def not_regular(shown: str, mode: int | None = None) -> Diagnostic:
    """FLU307: a FIFO, socket or device (`mode` from `lstat`/`fstat`, when known)."""
    what = f" ({kind(mode)})" if mode is not None else ""
    return Diagnostic.make(
        "FLU307",
        shown,
        f"not a regular file{what}; refused",
        "only regular files and folders are read or packed; remove it",
    )


def unreadable(shown: str, exc: OSError, action: str = "read") -> Diagnostic:
    """FLU308: the OS refused to `action` (read, stat, list) the entry."""
    return Diagnostic.make("FLU308", shown, f"cannot {action}: {exc.strerror or exc}", "make it readable, or remove it")


def refused(shown: str, exc: UnsafeFileError | OSError) -> Diagnostic:
    """The diagnostic of a failed `read_regular` (a read over its limit is the caller's to word)."""
    if isinstance(exc, UnsafeFileError):
        if exc.code == "FLU301":
            return link_refused(shown)
        if exc.code == "FLU307":
            return not_regular(shown, exc.mode)
        return Diagnostic.make(
            "FLU311",
            shown,
            f"{exc.reason}; refused",
            "keep large data out of skills, or raise the limit: [tool.flue] max-bundle-size",
        )
    return unreadable(shown, exc)
