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

from flue_runtime.errors import SkillError, UnsafeFileError
from flue_runtime.format.config import project_config
from flue_runtime.format.diagnostics import Diagnostic
from flue_runtime.format.markdown_file import vet_markdown
from flue_runtime.format.paths import display_path
from flue_runtime.format.safe_read import read_regular
from flue_runtime.format.secrets import Finding, found_secret
from flue_runtime.format.skill_folder import VettedSkill, vet_skill
from flue_runtime.format.validate import SKILL_FILE, check_skill_md
from flue_runtime.format.vetting import (
    DEFAULT_LIMITS,
    Limits,
    PackedFile,
    allowed_paths,
    link_refused,
    refused,
    unreadable,
)
from flue_runtime.mount.reference import SkillReference


def load_skill_dir(directory: Path, context: str = "") -> SkillReference:
    """Vet `directory` as the build would and mount it; `SkillError` with every problem otherwise."""
    shown = display_path(directory)
    try:
        info = os.lstat(directory)
    except OSError as exc:
        raise SkillError([unreadable(shown, exc, "stat")], context) from None
    if stat.S_ISLNK(info.st_mode):
        raise SkillError([link_refused(shown, _link_target(directory))], context)
    config = project_config(directory)
    allow = config.allow_list
    vetted = vet_skill(directory, display=shown, allow=allow, strict=config.strict, limits=config.limits)
    if not vetted.ok or vetted.metadata is None:
        raise SkillError(vetted.diagnostics, context)
    return SkillReference(vetted.metadata, DiskSource(vetted, allow, config.limits), known_id=vetted.id)


def _link_target(path: Path) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return ""


class DiskSource:
    """A vetted folder on disk: its file list as vetted, its bytes and instructions read live."""

    live = True

    def __init__(
        self, vetted: VettedSkill, allow: Collection[Path] | None = None, limits: Limits = DEFAULT_LIMITS
    ) -> None:
        self._vetted = vetted
        self._limits = limits
        self._in_project = allow is not None  # `allow` as in `vet_skill`
        self._allow = allowed_paths(vetted.directory, allow or ())
        self._stamp: tuple[int, int, int] | None = None
        self._body = ""

    @property
    def directory(self) -> Path:
        return self._vetted.directory

    def files(self) -> tuple[PackedFile, ...]:
        return self._vetted.files

    def read(self, path: str) -> bytes:
        data, secret, _ = self._read(path)
        if secret is not None and path not in self._allow:
            raise SkillError([found_secret(self._where(path), secret, in_project=self._in_project)])
        return data

    def instructions(self) -> str:
        data, _, stamp = self._read(SKILL_FILE)
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

    def _read(self, path: str) -> tuple[bytes, Finding | None, tuple[int, int, int]]:
        """The bytes of a vetted file as they are now, the key or token they hold, and the file's stamp.

        A link anywhere below the skill folder is refused, as is a file that is no longer
        regular or has grown past the bundle limit.
        """
        root = self._vetted.directory
        shown = self._where(path)
        current = root
        for part in path.split("/"):
            current = current / part
            try:
                info = os.lstat(current)
            except FileNotFoundError:
                raise SkillError(
                    [
                        Diagnostic.make(
                            "FLU308", shown, "was removed since the skill was loaded", "resolve the skill again"
                        )
                    ]
                ) from None
            except OSError as exc:
                raise SkillError([unreadable(shown, exc, "stat")]) from None
            if stat.S_ISLNK(info.st_mode):
                raise SkillError([link_refused(display_path(current), _link_target(current))])
        try:
            found = read_regular(current, limit=self._limits.bundle_size, scan=True)
        except (UnsafeFileError, OSError) as exc:
            raise SkillError([refused(shown, exc)]) from None
        assert found.data is not None
        return found.data, found.secret, found.stamp


def read_markdown_file(path: Path, context: str = "") -> str:
    """A `markdown()` target on disk, held to the build's rules (no link, no secret, no key, UTF-8 text without NUL).

    The text comes without a leading BOM, as from a bundle.
    """
    config = project_config(path.parent)
    vetted = vet_markdown(path, display_path(path), config.allow_list, config.limits)
    if not vetted.ok or vetted.text is None:
        raise SkillError([d for d in vetted.diagnostics if d.is_error], context)
    return vetted.text
