"""Dev mode: skills and markdown files read straight from a source tree or an editable install.

Everything goes through the build's own rules (`vet_skill`, the packing rules, the
project's `[tool.flue] allow`/`strict`), so a secret or a symbolic link fails here with
the same diagnostic the build would print. Each resolution vets the folder anew; the
instructions are re-read whenever SKILL.md changes, so edits show without reinstalling.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection
from pathlib import Path
from typing import NamedTuple

from flue_runtime.errors import SkillError
from flue_runtime.format.diagnostics import Diagnostic
from flue_runtime.format.markdown_file import vet_markdown
from flue_runtime.format.skill_folder import VettedSkill, vet_skill
from flue_runtime.format.validate import SKILL_FILE, check_skill_md
from flue_runtime.format.vetting import DEFAULT_LIMITS, PRIVATE_KEY, Limits, PackedFile, parse_size
from flue_runtime.mount.reference import SkillReference

PYPROJECT = "pyproject.toml"


class ProjectRules(NamedTuple):
    """The parts of `[tool.flue]` that decide what may be served: allowed files, strict mode, limits."""

    root: Path | None = None
    allow: tuple[Path, ...] = ()
    strict: bool = False
    limits: Limits = DEFAULT_LIMITS


def project_rules(start: Path) -> ProjectRules:
    """`[tool.flue]` of the nearest pyproject.toml at or above `start` (defaults when none).

    The build reports a malformed table; dev mode takes what it can read and goes on.
    """
    for folder in (start, *start.parents):
        candidate = folder / PYPROJECT
        if candidate.is_file():
            return _read_rules(candidate)
    return ProjectRules()


def _read_rules(pyproject: Path) -> ProjectRules:
    import tomllib

    try:
        with open(pyproject, "rb") as handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return ProjectRules(pyproject.parent)
    root = pyproject.parent
    tool = data.get("tool")
    table = tool.get("flue") if isinstance(tool, dict) else None
    if not isinstance(table, dict):
        return ProjectRules(root)
    allow = table.get("allow", [])
    paths = tuple(
        root.joinpath(*item.split("/"))
        for item in (allow if isinstance(allow, list) else [])
        if isinstance(item, str) and item.strip() and not item.startswith("/") and ".." not in item.split("/")
    )
    return ProjectRules(root, paths, table.get("strict") is True, _limits(table))


def _limits(table: dict[str, object]) -> Limits:
    """The limits of `[tool.flue]`, as the build reads them (`flue_build.config`); a bad value keeps its default."""
    values: dict[str, int] = {}
    for key, name in (("max-frontmatter-size", "frontmatter_size"), ("max-bundle-size", "bundle_size")):
        size = parse_size(table.get(key))
        if size is not None and size >= 1:
            values[name] = size
    files = table.get("max-skill-files")
    if isinstance(files, int) and not isinstance(files, bool) and files >= 1:
        values["skill_files"] = files
    return Limits(**values)


def display_path(path: Path) -> str:
    """`path` relative to the working directory when inside it, as `flue-skills check` shows it."""
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if relative.startswith("..") else relative


def load_skill_dir(directory: Path, context: str = "") -> SkillReference:
    """Vet `directory` as the build would and mount it; `SkillError` with every problem otherwise."""
    shown = display_path(directory)
    try:
        info = os.lstat(directory)
    except OSError as exc:
        raise SkillError(
            [Diagnostic.make("FLU308", shown, f"cannot stat: {exc.strerror or exc}", "check the path")], context
        ) from None
    if stat.S_ISLNK(info.st_mode):
        raise SkillError(
            [
                Diagnostic.make(
                    "FLU301",
                    shown,
                    "the skill folder is a symbolic link; refused: a link is never followed into a bundle",
                    "replace the link with the folder it points to",
                )
            ],
            context,
        )
    rules = project_rules(directory)
    vetted = vet_skill(directory, display=shown, allow=rules.allow, strict=rules.strict, limits=rules.limits)
    if not vetted.ok or vetted.metadata is None:
        raise SkillError(vetted.diagnostics, context)
    return SkillReference(vetted.metadata, DiskSource(vetted, rules.allow, rules.limits), known_id=vetted.id)


class DiskSource:
    """A vetted folder on disk: its file list as vetted, its bytes and instructions read live."""

    live = True

    def __init__(self, vetted: VettedSkill, allow: Collection[Path] = (), limits: Limits = DEFAULT_LIMITS) -> None:
        self._vetted = vetted
        self._limits = limits
        self._allow = {os.path.normcase(os.path.abspath(p)) for p in allow}
        self._stamp: tuple[int, int, int] | None = None
        self._body = ""

    @property
    def directory(self) -> Path:
        return self._vetted.directory

    def files(self) -> tuple[PackedFile, ...]:
        return self._vetted.files

    def read(self, path: str) -> bytes:
        full = self._vetted.directory.joinpath(*path.split("/"))
        data, _ = _read_regular(full, self._where(path), self._vetted.directory)
        if PRIVATE_KEY.search(data) and os.path.normcase(os.path.abspath(full)) not in self._allow:
            raise SkillError(
                [
                    Diagnostic.make(
                        "FLU303",
                        self._where(path),
                        "holds a PEM private key; refused",
                        "remove the key from the file; never ship private keys inside a package",
                    )
                ]
            )
        return data

    def instructions(self) -> str:
        full = self._vetted.directory / SKILL_FILE
        data, stamp = _read_regular(full, self._where(SKILL_FILE), self._vetted.directory)
        if stamp != self._stamp:
            checked = check_skill_md(
                data, self._where(SKILL_FILE), self._vetted.directory.name, limit=self._limits.frontmatter_size
            )
            if not checked.ok:
                raise SkillError(checked.diagnostics)
            self._body, self._stamp = checked.body, stamp
        return self._body

    def is_executable(self, path: str) -> bool:
        return bool(os.lstat(self._vetted.directory.joinpath(*path.split("/"))).st_mode & 0o111)

    def describe(self) -> str:
        return f"{self._vetted.directory} (from disk)"

    def _where(self, path: str) -> str:
        return f"{display_path(self._vetted.directory)}/{path}"


def _read_regular(full: Path, shown: str, root: Path) -> tuple[bytes, tuple[int, int, int]]:
    """The bytes of a regular file under `root`, refusing a link anywhere below `root`."""
    current = root
    for part in full.relative_to(root).parts:
        current = current / part
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            raise SkillError(
                [Diagnostic.make("FLU308", shown, "was removed since the skill was loaded", "resolve the skill again")]
            ) from None
        if stat.S_ISLNK(info.st_mode):
            raise SkillError(
                [
                    Diagnostic.make(
                        "FLU301",
                        display_path(current),
                        "symbolic link refused: a link is never followed into a bundle",
                        "replace the link with a copy of the file or folder it points to",
                    )
                ]
            )
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(full, flags)
    except OSError as exc:
        raise SkillError(
            [Diagnostic.make("FLU308", shown, f"cannot read: {exc.strerror or exc}", "make it readable")]
        ) from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise SkillError(
                [Diagnostic.make("FLU307", shown, "not a regular file; refused", "a skill holds only regular files")]
            )
        return handle.read(), (info.st_mtime_ns, info.st_size, info.st_ino)


def read_markdown_file(path: Path, context: str = "") -> str:
    """A `markdown()` target on disk, held to the build's rules (no link, no secret, no key, UTF-8 text without NUL).

    The text comes without a leading BOM, as from a bundle.
    """
    rules = project_rules(path.parent)
    vetted = vet_markdown(path, display_path(path), rules.allow, rules.limits)
    if not vetted.ok or vetted.text is None:
        raise SkillError([d for d in vetted.diagnostics if d.is_error], context)
    return vetted.text
