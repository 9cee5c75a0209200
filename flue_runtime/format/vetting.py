"""The packing rules: what of a skill folder may leave the developer's machine.

One walk for every surface: the build (what goes into a wheel), the CLI, the run time's
dev mode, workspace skills, sandboxes and `define_skill(files=...)`, so they can never
disagree. It reads a `Tree` (a folder on disk or files in memory); every entry is
examined with `lstat` and never followed: a symbolic link anywhere is an error. Noise
folders (`node_modules/`, `.venv/`, ...) are skipped with a warning and never entered:
what is in them is tool output, never packed, and a build's audit proves none of it
reaches an artifact (`flue_build.inventory`). What a secret is lives in `secrets`, what hidden
text is in `hidden_text`, how a file is read in `safe_read`.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
import stat
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from enum import Enum
from typing import NamedTuple

from flue_runtime.errors import SkillPathError, UnsafeFileError
from flue_runtime.format.diagnostics import Diagnostic, bounded, diagnostic, printable
from flue_runtime.format.frontmatter import FRONTMATTER_LIMIT
from flue_runtime.format.hidden_text import hidden_diagnostics
from flue_runtime.format.messages import piece
from flue_runtime.format.paths import skill_path
from flue_runtime.format.records import PackedFile as PackedFile
from flue_runtime.format.safe_read import FileBytes, kind
from flue_runtime.format.secrets import (
    NAME_CACHE,
    allowed_secret,
    found_secrets,
    is_env_template,
    is_secret_dir,
    is_secret_file,
    secret_file,
    secret_folder,
    template_refused,
    template_value,
)
from flue_runtime.format.trees import Stat, Tree

__all__ = [
    "DEFAULT_LIMITS",
    "LARGE_FILE",
    "Limits",
    "MAX_BUNDLE_SIZE",
    "MAX_FOLDER_DEPTH",
    "MAX_SKILL_FILES",
    "NOISE_DIRS",
    "NOISE_FILES",
    "SIZE_UNITS",
    "Walk",
    "allowed_paths",
    "format_size",
    "hard_linked",
    "is_noise_dir",
    "is_noise_file",
    "link_refused",
    "name_problem",
    "not_regular",
    "parse_size",
    "refused",
    "unreadable",
    "walk",
]


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
    costs time in proportion to the limits, not to its size. What becomes of each entry is
    decided by `ENTRY_STEPS`, in order.
    """
    walking = _Walking(tree, display, allow, large_file, limits, keep)
    pending: list[str] = [""]
    while pending and not walking.result.stopped:
        pending.extend(reversed(walking.folder(pending.pop())))
    return walking.finish()


class Action(Enum):
    """What the walk does with an entry."""

    KEEP = "keep"  # pack the file (with any warnings)
    SKIP = "skip"  # leave it out: noise (with a warning), or a file past the size limit (reported at the end)
    REFUSE = "refuse"  # leave it out, with an error
    DESCEND = "descend"  # a folder: walk what it holds
    STOP = "stop"  # the file-count limit: walk no further


class Verdict(NamedTuple):
    """What becomes of one entry, and what the walk reports about it."""

    action: Action
    diagnostics: tuple[Diagnostic, ...] = ()


def _refuse(diagnostic: Diagnostic) -> Verdict:
    return Verdict(Action.REFUSE, (diagnostic,))


_DESCEND = Verdict(Action.DESCEND)
_SKIP = Verdict(Action.SKIP)


@dataclass(slots=True)
class Entry:
    """One name in a folder of the tree, and what the steps before learned of it."""

    folder: str
    name: str
    #: The path from the tree's root.
    rel: str
    info: Stat = Stat(0, 0)
    #: The file's name looks like a secret's (whether or not `allow` lets it through).
    secret_name: bool = False
    #: The file is a `.env` template (`.env.example`): its values are judged once it is read.
    template: bool = False
    read: FileBytes = FileBytes(0)


class _Walking:
    """One walk's settings and running totals; the steps read and update them."""

    def __init__(
        self,
        tree: Tree,
        display: str,
        allow: Collection[str] | None,
        large_file: int,
        limits: Limits,
        keep: Collection[str],
    ) -> None:
        self.tree, self.display, self.large_file, self.limits, self.keep = tree, display, large_file, limits, keep
        self.in_project = allow is not None
        self.allow = allow or ()
        self.result = Walk()
        self.count = 0  # files met that may be packed
        self.total = 0  # their bytes

    def shown(self, rel: str) -> str:
        return f"{self.display}/{rel}" if rel else self.display

    def folder(self, rel_dir: str) -> list[str]:
        """Judge every entry of the folder `rel_dir`; returns its subfolders to walk (none once stopped)."""
        try:
            names = sorted(self.tree.names(rel_dir))
        except OSError as exc:
            self.result.diagnostics.append(unreadable(self.shown(rel_dir), exc, "FLU308 list folder"))
            return []
        subfolders: list[str] = []
        for name in names:
            entry = Entry(rel_dir, name, f"{rel_dir}/{name}" if rel_dir else name)
            action, diagnostics = _judge(ENTRY_STEPS, self, entry)
            self.result.diagnostics.extend(diagnostics)
            if action is Action.KEEP:
                self._pack(entry)
            elif action is Action.DESCEND:
                subfolders.append(entry.rel)
            elif action is Action.STOP:
                self.result.stopped = True
                return []
        return subfolders

    def _pack(self, entry: Entry) -> None:
        found = entry.read
        if found.data is not None:
            self.result.kept[entry.rel] = found.data
        self.result.files.append(PackedFile(entry.rel, found.size, found.sha256, found.crc32))

    def finish(self) -> Walk:
        """The checks of the whole tree, once every entry is judged: its size, and names that clash by case."""
        result = self.result
        if self.total > self.limits.bundle_size:
            limit = self.limits.bundle_size
            result.diagnostics.append(
                diagnostic(
                    "FLU311",
                    self.display,
                    total=format_size(self.total),
                    limit=format_size(limit),
                    suggested=format_size(_suggest(self.total, limit)),
                )
            )
        result.files.sort(key=lambda f: f.path)
        _case_clashes(result, self.shown)
        result.diagnostics = bounded(result.diagnostics)
        return result


#: One step of judging an entry: a verdict, or None to let the next step judge.
Step = Callable[[_Walking, Entry], "Verdict | None"]


def _judge(steps: tuple[Step, ...], walking: _Walking, entry: Entry) -> Verdict:
    """The verdict of the first step that has one (the last step of `ENTRY_STEPS` always does)."""
    for step in steps:
        verdict = step(walking, entry)
        if verdict is not None:
            return verdict
    return _DESCEND  # (only `FOLDER_STEPS` runs out of steps: a folder none refuses is walked)


# --- the steps, in the order `ENTRY_STEPS` lists them ---------------------------------------


def _unservable_name(walking: _Walking, entry: Entry) -> Verdict | None:
    """FLU309: a name no path read at run time could reach; judged before any system call on it."""
    problem = name_problem(entry.name)
    return _refuse(diagnostic("FLU309", walking.shown(entry.rel), problem=problem)) if problem else None


def _examined(walking: _Walking, entry: Entry) -> Verdict | None:
    """`lstat` the entry (never what a link points to); FLU308 when it cannot be."""
    try:
        entry.info = walking.tree.stat(entry.rel)
    except OSError as exc:
        return _refuse(unreadable(walking.shown(entry.rel), exc, "FLU308 stat"))
    return None


def _symbolic_link(walking: _Walking, entry: Entry) -> Verdict | None:
    """FLU301: a link is never followed, wherever it points."""
    if stat.S_ISLNK(entry.info.mode):
        return _refuse(link_refused(walking.shown(entry.rel), walking.tree.link_target(entry.rel)))
    return None


def _folder(walking: _Walking, entry: Entry) -> Verdict | None:
    """A folder is judged by `FOLDER_STEPS`; one none of them refuses or skips is walked."""
    return _judge(FOLDER_STEPS, walking, entry) if stat.S_ISDIR(entry.info.mode) else None


def _secret_folder(walking: _Walking, entry: Entry) -> Verdict | None:
    """FLU302: a folder of credentials (`.ssh/`, ...) unless `allow` lists it."""
    if is_secret_dir(entry.name) and entry.rel not in walking.allow:
        return _refuse(secret_folder(walking.shown(entry.rel), entry.name, in_project=walking.in_project))
    return None


def _too_deep(walking: _Walking, entry: Entry) -> Verdict | None:
    """FLU313: nested deeper than installers can write."""
    if entry.rel.count("/") + 1 > MAX_FOLDER_DEPTH:
        return _refuse(diagnostic("FLU313", walking.shown(entry.rel), limit=MAX_FOLDER_DEPTH))
    return None


def _noise_folder(walking: _Walking, entry: Entry) -> Verdict | None:
    """FLU304: tool output, skipped and never entered."""
    if is_noise_dir(entry.name):
        return Verdict(Action.SKIP, (diagnostic("FLU304 folder", walking.shown(entry.rel), name=entry.name),))
    return None


def _special_file(walking: _Walking, entry: Entry) -> Verdict | None:
    """FLU307: a FIFO, socket or device."""
    if not stat.S_ISREG(entry.info.mode):
        return _refuse(not_regular(walking.shown(entry.rel), entry.info.mode))
    return None


def _secret_name(walking: _Walking, entry: Entry) -> Verdict | None:
    """FLU302: a file named like a secret (`.env`, `id_rsa`, ...) unless `allow` lists it."""
    entry.secret_name = is_secret_file(entry.name, entry.folder.rpartition("/")[2])
    entry.template = not entry.secret_name and is_env_template(entry.name)
    if entry.secret_name and entry.rel not in walking.allow:
        return _refuse(secret_file(walking.shown(entry.rel), entry.name, in_project=walking.in_project))
    return None


def _noise_file(walking: _Walking, entry: Entry) -> Verdict | None:
    """FLU304: editor, OS, VCS or compiler litter, skipped (after the secret name: `.env~` is refused)."""
    if is_noise_file(entry.name):
        return Verdict(Action.SKIP, (diagnostic("FLU304 file", walking.shown(entry.rel), name=entry.name),))
    return None


def _file_count(walking: _Walking, entry: Entry) -> Verdict | None:
    """FLU310: one file more than `limits.skill_files`, and the walk stops."""
    walking.count += 1
    limit = walking.limits.skill_files
    if walking.count <= limit:
        return None
    stop = diagnostic(
        "FLU310",
        walking.display,
        limit=limit,
        path=printable(entry.rel),
        suggested=_suggest(walking.count, limit),
    )
    return Verdict(Action.STOP, (stop,))


def _bundle_size(walking: _Walking, entry: Entry) -> Verdict | None:
    """A file past `limits.bundle_size` is counted but never read: `finish` refuses the total (FLU311)."""
    if walking.total + entry.info.size > walking.limits.bundle_size:
        walking.total += entry.info.size
        return _SKIP
    return None


def _read(walking: _Walking, entry: Entry) -> Verdict | None:
    """Read, hash and scan the file, at most to the bytes left under the size limit; FLU308 when it cannot be."""
    limits = walking.limits
    try:
        entry.read = walking.tree.read(
            entry.rel, limit=limits.bundle_size - walking.total, keep=entry.rel in walking.keep or entry.template
        )
    except UnsafeFileError as exc:
        if exc.code != "FLU311":
            return _refuse(refused(walking.shown(entry.rel), exc))
        walking.total = limits.bundle_size + 1  # grew since the lstat: over the limit after all
        return _SKIP
    except OSError as exc:
        return _refuse(unreadable(walking.shown(entry.rel), exc))
    walking.total += entry.read.size
    return None


def _secret_content(walking: _Walking, entry: Entry) -> Verdict | None:
    """FLU303, FLU315: a private key or credential token in the bytes; FLU302: a `.env` template whose
    credential variable holds a value rather than a placeholder; unless `allow` lists the file."""
    secrets = entry.read.secrets
    if secrets and entry.rel not in walking.allow:
        found = found_secrets(walking.shown(entry.rel), secrets, in_project=walking.in_project)
        return Verdict(Action.REFUSE, tuple(found))
    valued = template_value(entry.read.data or b"") if entry.template else None
    if valued is not None:
        entry.secret_name = True  # (packed only when `allow` lists it, with FLU306 saying so)
        if entry.rel not in walking.allow:
            shown = walking.shown(entry.rel)
            return _refuse(template_refused(shown, entry.name, *valued, in_project=walking.in_project))
    return None


def _hidden_text(walking: _Walking, entry: Entry) -> Verdict | None:
    """FLU317: Unicode tag characters, text every model reads and no one sees (with the file's FLU318s)."""
    hidden = entry.read.hidden
    if hidden is not None and hidden.refused:
        return Verdict(Action.REFUSE, tuple(hidden_diagnostics(walking.shown(entry.rel), hidden)))
    return None


def _kept(walking: _Walking, entry: Entry) -> Verdict:
    """The file is packed, with a warning for each of `WARNINGS` that has one, and FLU318's (`_hidden_text`)."""
    found = (warn(walking, entry) for warn in WARNINGS)
    hidden = entry.read.hidden
    visible = hidden_diagnostics(walking.shown(entry.rel), hidden) if hidden is not None else ()
    return Verdict(Action.KEEP, (*(warning for warning in found if warning is not None), *visible))


def _allowed_secret(walking: _Walking, entry: Entry) -> Diagnostic | None:
    """FLU306: packed although it looks like a secret, because `allow` lists it."""
    secrets = entry.read.secrets
    if (entry.secret_name or secrets) and entry.rel in walking.allow:
        return allowed_secret(walking.shown(entry.rel), secrets[0] if secrets else None)
    return None


def _large_file(walking: _Walking, entry: Entry) -> Diagnostic | None:
    """FLU305: a large file slows every install."""
    size = entry.read.size
    return (
        diagnostic("FLU305", walking.shown(entry.rel), mib=size / (1024 * 1024)) if size > walking.large_file else None
    )


def _hard_linked(walking: _Walking, entry: Entry) -> Diagnostic | None:
    """FLU314: another name shares the file's bytes."""
    return hard_linked(walking.shown(entry.rel), entry.info.nlink) if entry.info.nlink > 1 else None


#: What becomes of an entry: the first step with a verdict decides. Its name first (no system
#: call), then what `lstat` says; a folder's own rules; then a file's, the cheap ones before its
#: bytes are read. The last step always keeps the file.
ENTRY_STEPS: tuple[Step, ...] = (
    _unservable_name,  # FLU309
    _examined,  # FLU308 (lstat)
    _symbolic_link,  # FLU301
    _folder,  # FOLDER_STEPS, or walked
    _special_file,  # FLU307
    _secret_name,  # FLU302
    _noise_file,  # FLU304
    _file_count,  # FLU310: stop
    _bundle_size,  # skipped unread (FLU311 at the end)
    _read,  # FLU308, FLU301, FLU307, FLU311 (what the read itself met)
    _secret_content,  # FLU303, FLU315, FLU302 (a template's values)
    _hidden_text,  # FLU317 (tag characters)
    _kept,  # packed, with WARNINGS (and FLU318: bidi and zero-width characters)
)
#: What refuses or skips a folder; one none of these judges is walked.
FOLDER_STEPS: tuple[Step, ...] = (
    _secret_folder,  # FLU302
    _too_deep,  # FLU313
    _noise_folder,  # FLU304
)
#: The warnings a packed file may get, in the order they are reported.
WARNINGS: tuple[Callable[[_Walking, Entry], Diagnostic | None], ...] = (
    _allowed_secret,  # FLU306
    _large_file,  # FLU305
    _hard_linked,  # FLU314
)


def hard_linked(shown: str, names: int) -> Diagnostic:
    """FLU314: a file with `names` > 1 hard links (`st_nlink`): its bytes can change from outside the skill."""
    return diagnostic("FLU314", shown, names=names)


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
                diagnostic("FLU312", shown(entry.path), path=printable(entry.path), first=printable(first))
            )


# --- what an entry that cannot be packed gets (the words: `messages.CODES`) ----------------


def link_refused(shown: str, target: str = "") -> Diagnostic:
    """FLU301: an entry that is a symbolic link (`target`: where it points, when known)."""
    return diagnostic("FLU301 to", shown, target=target) if target else diagnostic("FLU301", shown)


def not_regular(shown: str, mode: int | None = None) -> Diagnostic:
    """FLU307: a FIFO, socket or device (`mode` from `lstat`/`fstat`, when known)."""
    return diagnostic("FLU307", shown) if mode is None else diagnostic("FLU307 kind", shown, kind=kind(mode))


def unreadable(shown: str, exc: OSError, action: str = "FLU308 read") -> Diagnostic:
    """FLU308: the OS refused to `action` (a piece: read, stat, list) the entry."""
    return diagnostic("FLU308", shown, action=piece(action), reason=exc.strerror or exc)


def refused(shown: str, exc: UnsafeFileError | OSError) -> Diagnostic:
    """The diagnostic of a failed `read_regular` (a read over its limit is the caller's to word)."""
    if isinstance(exc, UnsafeFileError):
        if exc.code == "FLU301":
            return link_refused(shown)
        if exc.code == "FLU307":
            return not_regular(shown, exc.mode)
        return diagnostic("FLU311 file", shown, reason=exc.reason)
    return unreadable(shown, exc)
