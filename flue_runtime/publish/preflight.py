"""What a hosted service is sent, and its published rules, checked before any request.

An upload is a skill's vetted files, each read through its skill and checked against the size and SHA-256 its
manifest (or its vetting) lists (`integrations.export.checked_files`, the one owner of that check), in one folder
named as the skill is published, with the skill's content id as its digest. Nothing else is read: what vetting left
out (noise, refused files) is not among a skill's files, so it cannot be sent.

The rules are each service's own, as published with its skills API (docs/guides/hosted-skills.md cites them); a
size in MB is taken as a million bytes, the stricter reading, so an upload within it is within either:

- Anthropic: at most 8 MB an upload; a name without "anthropic" or "claude"; the folder named as the skill (its
  SKILL.md's `name`).
- OpenAI: at most 500 files; at most 25 MB a file; at most 50 MB zipped; exactly one SKILL.md, at the root (a
  `skill.md` anywhere else, in any case, counts as another).
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from flue_runtime.errors import ExportError, PublishError
from flue_runtime.format.records import SKILL_FILE, PackedFile, content_id
from flue_runtime.integrations.export import checked_files
from flue_runtime.mount.reference import SkillReference

__all__ = ["RULES", "SERVICES", "Upload", "zip_upload", "refusals", "upload"]

MB = 1_000_000
#: A fixed time for every member of an archive: the same files make the same bytes.
_EPOCH = (1980, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class Upload:
    """One skill as it is sent: `folder` (the name it is published under), its SKILL.md's `name`, its files."""

    folder: str
    name: str
    files: dict[str, bytes]

    @cached_property
    def digest(self) -> str:
        """The skill's content id: what a wheel's manifest keys it by, and what the lock records."""
        return content_id(PackedFile(p, len(d), hashlib.sha256(d).hexdigest()) for p, d in self.files.items())

    @cached_property
    def archive_size(self) -> int:
        return len(zip_upload(self))


def upload(skill: SkillReference) -> Upload:
    """`skill`'s vetted files, verified; `PublishError` naming the skill when one differs from its listing."""
    try:
        files = checked_files(skill)
    except ExportError as exc:
        raise PublishError([str(exc).removesuffix("; nothing was written")]) from None
    made = Upload(skill.name, skill.alias_of or skill.name, files)
    if made.digest != skill.id:
        raise PublishError(
            [f"skill {skill.name!r} ({skill.origin}): its files give digest {made.digest}, not {skill.id} as recorded"]
        )
    return made


def zip_upload(made: Upload) -> bytes:
    """The upload as one zip of its folder (OpenAI's recommended form), deterministic: sorted, no clock."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zipped:
        for path in sorted(made.files):
            info = zipfile.ZipInfo(f"{made.folder}/{path}", _EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zipped.writestr(info, made.files[path])
    return buffer.getvalue()


def _reserved(made: Upload) -> str | None:
    if "anthropic" in made.name or "claude" in made.name:
        return "Anthropic refuses a skill name that holds a reserved word, 'anthropic' or 'claude'; rename the skill"
    return None


def _upload_size(made: Upload) -> str | None:
    size = sum(len(data) for data in made.files.values())
    if size > 8 * MB:
        return f"Anthropic takes at most 8 MB an upload; this skill's files hold {size:,} bytes"
    return None


def _folder(made: Upload) -> str | None:
    if made.folder != made.name:
        return (
            f"Anthropic needs the folder named as the skill: it is published as {made.folder!r}, but its SKILL.md "
            f"names it {made.name!r}; publish it under its own name"
        )
    return None


def _file_count(made: Upload) -> str | None:
    if len(made.files) > 500:
        return f"OpenAI takes at most 500 files a skill; this one has {len(made.files)}"
    return None


def _file_size(made: Upload) -> str | None:
    large = [f"{path} ({len(data):,} bytes)" for path, data in sorted(made.files.items()) if len(data) > 25 * MB]
    return f"OpenAI takes at most 25 MB a file: {', '.join(large)}" if large else None


def _zipped_size(made: Upload) -> str | None:
    if made.archive_size > 50 * MB:
        return f"OpenAI takes at most 50 MB zipped; this skill zips to {made.archive_size:,} bytes"
    return None


def _one_skill_md(made: Upload) -> str | None:
    others = sorted(p for p in made.files if p != SKILL_FILE and p.rsplit("/", 1)[-1].lower() == SKILL_FILE.lower())
    if others:
        return f"OpenAI takes exactly one SKILL.md, at the root; this skill also holds {', '.join(others)}"
    return None


#: Each service's rules, in the order they are checked (a cheap rule first: the archive is made last).
RULES: dict[str, tuple[Callable[[Upload], str | None], ...]] = {
    "anthropic": (_reserved, _folder, _upload_size),
    "openai": (_file_count, _file_size, _one_skill_md, _zipped_size),
}
SERVICES = tuple(RULES)


def refusals(service: str, made: Upload) -> list[str]:
    """Every rule of `service` that `made` breaks, each naming the skill and the rule."""
    return [f"skill {made.folder!r}: {said}" for rule in RULES[service] if (said := rule(made)) is not None]
