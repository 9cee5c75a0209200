"""Dev mode: skills and markdown files read straight from a source tree or an editable install.

Everything goes through the build's own rules (the packing rules, the project's
`[tool.flue] allow`/`strict`/limits), so a secret or a symbolic link fails here with the
same diagnostic the build would print. A reference from disk is a snapshot of the folder
as vetted; `SkillReference.current()` vets the folder again and gives the skill as it is
now (the harness asks at every render and activation), so a file added or removed, a new
description or a new secret shows at the next use without reinstalling or reloading. The
verdicts are kept while a folder's `lstat`s stay the same (`VetCache`), so asking again about
an unchanged folder costs one `lstat` per entry. The instructions are re-read whenever SKILL.md
changes.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection
from pathlib import Path

from flue_runtime.errors import SkillError, UnsafeFileError
from flue_runtime.format.config import FlueConfig, project_config
from flue_runtime.format.diagnostics import diagnostic
from flue_runtime.format.hidden_text import hidden_diagnostics
from flue_runtime.format.markdown_file import vet_markdown
from flue_runtime.format.paths import display_path
from flue_runtime.format.records import SKILL_FILE, PackedFile
from flue_runtime.format.safe_read import FileBytes, read_regular
from flue_runtime.format.secrets import found_secrets
from flue_runtime.format.skill_folder import VettedSkill
from flue_runtime.format.validate import check_skill_md
from flue_runtime.format.vet_cache import VetCache
from flue_runtime.format.vetting import DEFAULT_LIMITS, Limits, allowed_paths, link_refused, refused, unreadable
from flue_runtime.mount.origin_record import OriginRecord, read_origin
from flue_runtime.mount.reference import Kind, MountedSource, SkillReference

__all__ = ["DiskSource", "load_skill_dir", "read_markdown_file"]


#: The verdicts of dev-mode folders, kept while each folder is unchanged.
_VETTED = VetCache()
#: The reference last made per folder and call, with the verdict and config it was made from: the same
#: reference while both are (an unchanged folder costs its `lstat`s, no new objects, no second parse).
_MOUNTED: dict[tuple[Path, str], tuple[VettedSkill, FlueConfig, OriginRecord | None, SkillReference]] = {}
_MOUNTED_SIZE = 10_000


def load_skill_dir(directory: Path, context: str = "") -> SkillReference:
    """Vet `directory` as the build would and mount it; `SkillError` with every problem otherwise.

    `context` (which call asked, from where) heads the error, here and whenever the
    reference is asked for its `current()` state later.
    """
    return _load(directory, display_path(directory), context)


def _load(directory: Path, shown: str, context: str) -> SkillReference:
    try:
        info = os.lstat(directory)
    except OSError as exc:
        raise SkillError([unreadable(shown, exc, "FLU308 stat")], context) from None
    if stat.S_ISLNK(info.st_mode):
        raise SkillError([link_refused(shown, _link_target(directory))], context)
    config = project_config(directory)
    allow = config.allow_list
    vetted = _VETTED.vet(directory, display=shown, allow=allow, strict=config.strict, limits=config.limits)
    if not vetted.ok or vetted.metadata is None:
        raise SkillError(vetted.diagnostics, context)
    origin = read_origin(directory)
    key = (directory, context)
    kept = _MOUNTED.get(key)
    if kept is not None and kept[0] is vetted and kept[1] is config and kept[2] == origin:
        return kept[3]
    source = DiskSource(vetted, allow, config.limits, context, shown, origin)
    reference = SkillReference(vetted.metadata, source, known_id=vetted.id)
    if len(_MOUNTED) >= _MOUNTED_SIZE:
        _MOUNTED.clear()
    _MOUNTED[key] = (vetted, config, origin, reference)
    return reference


def _link_target(path: Path) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return ""


class DiskSource(MountedSource):
    """A vetted folder on disk: its file list as vetted, its bytes and instructions read live. A copy of a remote
    server's skill (`export_skills(..., allow_remote=True)`) keeps its origin (`mount.origin_record`): that server's
    `identity` and `uri`, the `kind` of a source from elsewhere."""

    live = True

    def __init__(
        self,
        vetted: VettedSkill,
        allow: Collection[Path] | None = None,
        limits: Limits = DEFAULT_LIMITS,
        context: str = "",
        shown: str | None = None,
        origin: OriginRecord | None = None,
    ) -> None:
        self._vetted = vetted
        self._origin = origin
        self._context = context
        self._shown = display_path(vetted.directory) if shown is None else shown
        self._limits = limits
        self._in_project = allow is not None  # `allow` as in `vet_skill`
        self._allow = allowed_paths(vetted.directory, allow or ())
        self._stamp: tuple[int, int, int] | None = None
        self._body = ""
        self._listed = {packed.path: packed for packed in vetted.files}

    @property
    def directory(self) -> Path:
        return self._vetted.directory

    @property
    def kind(self) -> Kind:
        return "folder" if self._origin is None else "source"

    @property
    def identity(self) -> str | None:
        return None if self._origin is None else self._origin.identity

    @property
    def uri(self) -> str | None:
        exported = None if self._origin is None else self._origin.skills.get(self.name)
        return None if exported is None else exported.uri

    @property
    def verdict(self) -> tuple[PackedFile, ...]:
        """The file list as this resolution vetted it: what `run_skill_script` may run (`SkillReference.verdict`)."""
        return self._vetted.files

    @property
    def name(self) -> str:
        return self._vetted.directory.name

    def files(self) -> tuple[PackedFile, ...]:
        return self._vetted.files

    def current(self) -> SkillReference:
        """The folder vetted again, as it is now (`SkillError` naming every problem when it no longer passes)."""
        return _load(self._vetted.directory, self._shown, self._context)

    def read(self, path: str) -> bytes:
        return self._read(path)[0]

    def instructions(self) -> str:
        data, found = self._read(SKILL_FILE)
        stamp = found.stamp
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
        exported = None if self._origin is None else self._origin.skills.get(self.name)
        if self._origin is not None:
            said = exported.origin if exported is not None else f"server {self._origin.identity}"
            return f"{self._vetted.directory} (from disk, a copy of {said})"
        return f"{self._vetted.directory} (from disk)"

    def _where(self, path: str) -> str:
        return f"{self._shown}/{path}"

    def _read(self, path: str) -> tuple[bytes, FileBytes]:
        """The bytes of a vetted file as they are now, and what reading them found (the keys and tokens they hold,
        the file's stamp).

        A link anywhere below the skill folder is refused, as is a file that is no longer
        regular or has grown past the bundle limit, or has come to hold tag characters (FLU317)
        or a key or token the project does not allow (SKILL.md too: its body becomes instructions).
        """
        root = self._vetted.directory
        shown = self._where(path)
        current = root
        for part in path.split("/"):
            current = current / part
            try:
                info = os.lstat(current)
            except FileNotFoundError:
                raise SkillError([diagnostic("FLU308 removed", shown)]) from None
            except OSError as exc:
                raise SkillError([unreadable(shown, exc, "FLU308 stat")]) from None
            if stat.S_ISLNK(info.st_mode):
                raise SkillError([link_refused(display_path(current), _link_target(current))])
        try:
            # The bytes the vetting scanned keep its verdict: a file whose digest is the vetted one is not scanned
            # again (a server's first reads, benchmarks/serving.py); a changed file is, as the vetting would.
            found = read_regular(current, limit=self._limits.bundle_size)
            assert found.data is not None
            listed = self._listed.get(path)
            if listed is None or not listed.matches(found.data):
                found = read_regular(current, limit=self._limits.bundle_size, scan=True)
        except (UnsafeFileError, OSError) as exc:
            raise SkillError([refused(shown, exc)]) from None
        assert found.data is not None
        if found.hidden is not None and found.hidden.refused:
            raise SkillError(hidden_diagnostics(shown, found.hidden))
        if found.secrets and path not in self._allow:
            raise SkillError(found_secrets(shown, found.secrets, in_project=self._in_project))
        return found.data, found


def read_markdown_file(path: Path, context: str = "") -> str:
    """A `markdown()` target on disk, held to the build's rules (no link, no secret, no key, UTF-8 text without NUL).

    The text comes without a leading BOM, as from a bundle.
    """
    config = project_config(path.parent)
    vetted = vet_markdown(path, display_path(path), config.allow_list, config.limits)
    if not vetted.ok or vetted.text is None:
        raise SkillError([d for d in vetted.diagnostics if d.is_error], context)
    return vetted.text
