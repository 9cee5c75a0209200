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
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path

from flue_runtime.errors import SkillPathError
from flue_runtime.format.diagnostics import Diagnostic, printable
from flue_runtime.format.frontmatter import FRONTMATTER_LIMIT
from flue_runtime.format.paths import skill_path
from flue_runtime.format.records import PackedFile as PackedFile

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

_CHUNK = 1 << 20
_UNITS = {"b": 1, "kib": 1024, "mib": 1024**2, "gib": 1024**3}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMG]iB|B)?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Limits:
    """What one skill (and one build) may hold; `[tool.flue]` overrides each, build and dev mode alike."""

    frontmatter_size: int = FRONTMATTER_LIMIT
    skill_files: int = MAX_SKILL_FILES
    bundle_size: int = MAX_BUNDLE_SIZE


DEFAULT_LIMITS = Limits()


def parse_size(value: object) -> int | None:
    """A byte count from `[tool.flue]`: an integer, or a string like "64 KiB" or "1.5 GiB"; None if neither."""
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


def _any_of(patterns: tuple[str, ...]) -> re.Pattern[str]:
    """One regex matching what `fnmatch.fnmatchcase` matches for any of `patterns` (one match per name, not one per pattern)."""
    return re.compile("|".join(fnmatch.translate(pattern) for pattern in patterns))


_NOISE_FILE = _any_of(NOISE_FILES)
_SECRET_FILE = _any_of(SECRET_FILES)


def is_noise_file(name: str) -> bool:
    return _NOISE_FILE.match(name) is not None


def is_secret_file(name: str) -> bool:
    return _SECRET_FILE.match(name.lower()) is not None


def is_secret_dir(name: str) -> bool:
    return name.lower() in SECRET_DIRS


@dataclass
class Walk:
    """What may be packed from a directory, and every problem met on the way."""

    files: list[PackedFile] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: True when the walk stopped early, at the file-count limit: `files` is incomplete.
    stopped: bool = False


def walk(
    root: Path,
    *,
    display: str | None = None,
    allow: Collection[Path] = (),
    large_file: int = LARGE_FILE,
    limits: Limits = DEFAULT_LIMITS,
) -> Walk:
    """Vet every entry under `root`; files come back sorted by path.

    `allow` holds absolute paths of files a project lets through although they look like
    secrets; each one packed that way gets a warning so the build log says so.
    `display` is how `root` is shown in diagnostics (default: as given).

    The walk is iterative (any nesting depth the OS allows) and bounded: it stops at
    `limits.skill_files` files (FLU310), and once the files add up to more than
    `limits.bundle_size` bytes it reads no more of them (FLU311), so a hostile folder
    costs time in proportion to the limits, not to its size.
    """
    shown_root = display if display is not None else str(root)
    allowed = {os.path.normcase(os.path.abspath(p)) for p in allow}
    result = Walk()
    count = 0
    total = 0

    def shown(rel: str) -> str:
        return f"{shown_root}/{rel}" if rel else shown_root

    def report(code: str, rel: str, message: str, hint: str) -> None:
        result.diagnostics.append(Diagnostic.make(code, shown(rel), message, hint))

    pending = [""]
    while pending:
        rel_dir = pending.pop()
        # Plain strings below: a pathlib object per entry cost a tenth of vetting 10,000 files.
        folder = os.path.join(root, rel_dir) if rel_dir else os.fspath(root)
        try:
            with os.scandir(folder) as entries:
                names = sorted(entry.name for entry in entries)
        except OSError as exc:
            report(
                "FLU308", rel_dir, f"cannot list this folder: {exc.strerror or exc}", "make it readable, or remove it"
            )
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
                    "percent-encoded or look-alike dots and slashes, and valid UTF-8",
                )
                continue
            full = os.path.join(folder, name)
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
                    report(
                        "FLU304",
                        rel,
                        f"`{name}/` skipped: tool output, not part of a skill",
                        f"delete `{name}/` from the skill folder",
                    )
                elif is_secret_dir(name) and not _is_allowed(full, allowed):
                    report(
                        "FLU302",
                        rel,
                        f"`{name}/` holds credentials; refused",
                        f"move `{name}/` out of the skill folder (add it to [tool.flue] allow only if it is test data)",
                    )
                elif rel.count("/") + 1 > MAX_FOLDER_DEPTH:
                    report(
                        "FLU313",
                        rel,
                        f"folder nested more than {MAX_FOLDER_DEPTH} levels deep inside the skill; refused",
                        "flatten the folder tree: installers (pip, setuptools on Python 3.11) cannot write "
                        "paths nested about 1,000 levels deep, and no skill needs more than a few",
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
            if total + info.st_size > limits.bundle_size:
                total += info.st_size  # over the limit: refused anyway, so the rest is not read
                continue
            try:
                size, digest, has_key = _read(full)
            except OSError as exc:
                report("FLU308", rel, f"cannot read: {exc.strerror or exc}", "make it readable, or remove it")
                continue
            total += size
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


def read_regular(path: Path) -> bytes:
    """The bytes of a regular file, never through a link and never blocking on a FIFO; `OSError` otherwise."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise OSError(f"{path} is not a regular file")
        return handle.read()


def _read(path: str | Path) -> tuple[int, str, bool]:
    """Size, SHA-256 and whether a PEM private key appears, in one pass over the bytes."""
    import hashlib

    digest = hashlib.sha256()
    size = 0
    has_key = False
    tail = b""
    # O_NONBLOCK: a FIFO swapped in after lstat must not hang the build.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    try:  # plain os.read on the descriptor: a buffered file object per file cost a quarter of the reading
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is no longer a regular file")
        while chunk := os.read(fd, _CHUNK):
            digest.update(chunk)
            size += len(chunk)
            if not has_key:
                window = tail + chunk
                has_key = PRIVATE_KEY.search(window) is not None
                tail = window[-64:]
    finally:
        os.close(fd)
    return size, digest.hexdigest(), has_key


def _is_allowed(path: str | Path, allowed: set[str]) -> bool:
    return bool(allowed) and os.path.normcase(os.path.abspath(path)) in allowed


def _link_target(path: str | Path) -> str:
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
