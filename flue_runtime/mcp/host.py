"""The host's side of the Skills extension: check what a server sent against the skill's entry.

SEP-2640, "Integrity and Verification": a host that retrieves a file listed in a skill's
`resources` MUST verify it against that entry's `digest` and `size` and MUST NOT use it on a
mismatch; a read of an unlisted file is the same failure; after fetching a SKILL.md it MUST parse
its YAML frontmatter, compare it field by field with the entry's `frontmatter`, and not load the
skill on any difference. These functions take plain data (the entry as JSON, the bytes read), so
any client can use them; each failure is a `SkillVerificationError` naming the skill and the file
or field. A match proves the server consistent, not trustworthy: digests are not a trust anchor.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from flue_runtime.errors import SkillError, SkillVerificationError
from flue_runtime.format.frontmatter import parse
from flue_runtime.format.records import SKILL_FILE
from flue_runtime.mcp.typed import typed

_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")


def check_entry(entry: Mapping[str, Any], *, allow_dynamic: bool = False) -> None:
    """A `Skill` entry a host can load: its URI, name and description, and a complete manifest with digests.

    A skill whose `resources` is "dynamic" offers no integrity and is declined, as the spec lets hosts do,
    unless `allow_dynamic` (the caller then says the skill is unverified wherever it shows it).
    """
    uri = entry.get("uri")
    if not isinstance(uri, str) or not uri.endswith("/" + SKILL_FILE):
        raise SkillVerificationError(str(uri), "uri", f"the entry's uri must be the URI of its {SKILL_FILE}")
    root = uri[: -len(SKILL_FILE)]
    front = entry.get("frontmatter")
    if not isinstance(front, Mapping):
        raise SkillVerificationError(uri, "frontmatter", "the entry has no frontmatter object")
    for field in ("name", "description"):
        if not isinstance(front.get(field), str) or not front[field]:
            raise SkillVerificationError(uri, f"frontmatter {field!r}", "missing or not a string")
    if root.rstrip("/").rpartition("/")[2] != front["name"]:
        raise SkillVerificationError(uri, "frontmatter 'name'", f"{front['name']!r} is not the last segment of the URI")
    resources = entry.get("resources")
    if resources == "dynamic":
        if allow_dynamic:
            return
        raise SkillVerificationError(uri, "resources", "the skill is dynamic: no digests to verify its content by")
    if not isinstance(resources, list):
        raise SkillVerificationError(uri, "resources", "missing, or neither a list of files nor 'dynamic'")
    seen: set[str] = set()
    for resource in resources:
        at = resource.get("uri") if isinstance(resource, Mapping) else None
        if not isinstance(at, str) or not at.startswith(root) or at in seen:
            raise SkillVerificationError(uri, repr(at), "not a file of this skill, or listed twice")
        if any(unquote(segment) in {"", ".", ".."} for segment in at[len(root) :].split("/")):
            raise SkillVerificationError(uri, at, "a path segment is empty, `.` or `..`")
        size = resource.get("size")
        if not isinstance(resource.get("digest"), str) or not _DIGEST.fullmatch(resource["digest"]):
            raise SkillVerificationError(uri, at, "the digest is not sha256: and 64 lowercase hex digits")
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise SkillVerificationError(uri, at, "the size is not a byte count")
        seen.add(at)
    if uri not in seen:
        raise SkillVerificationError(uri, uri, f"{SKILL_FILE} is not in the skill's resources")


def verify_file(entry: Mapping[str, Any], uri: str, data: bytes) -> bytes:
    """`data`, read from `uri`, when it is the file the entry lists there: its size, then its digest."""
    skill = str(entry.get("uri"))
    listed = next((r for r in _resources(entry) if r.get("uri") == uri), None)
    if listed is None:
        raise SkillVerificationError(skill, uri, "not listed in the skill's resources: an unlisted file is refused")
    if len(data) != listed.get("size"):
        raise SkillVerificationError(skill, uri, f"{len(data)} bytes read, the entry lists {listed.get('size')}")
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    if digest != listed.get("digest"):
        raise SkillVerificationError(
            skill, uri, f"the content hashes to {digest}, the entry lists {listed.get('digest')}"
        )
    return data


def verify_skill_md(entry: Mapping[str, Any], data: bytes, *, allow_dynamic: bool = False) -> dict[str, Any]:
    """The frontmatter of `data`, the SKILL.md read from the entry's URI, when it is the file and the
    frontmatter the entry describes; any difference in any field is refused. With `allow_dynamic`, a
    "dynamic" skill's SKILL.md (no size or digest to check) is still compared field by field."""
    check_entry(entry, allow_dynamic=allow_dynamic)
    uri: str = entry["uri"]
    if entry.get("resources") != "dynamic":
        verify_file(entry, uri, data)
    parsed = parse(data, uri)
    if parsed.data is None or parsed.diagnostics:
        problem = parsed.diagnostics[0] if parsed.diagnostics else None
        reason = f"{problem.code} {problem.message}" if problem else "no frontmatter"
        raise SkillVerificationError(uri, "frontmatter", f"the SKILL.md read cannot be parsed: {reason}")
    try:
        found = typed(parsed)
    except SkillError as exc:
        raise SkillVerificationError(uri, "frontmatter", f"the SKILL.md read cannot be parsed: {exc}") from None
    listed: Mapping[str, Any] = entry["frontmatter"]
    for field in [*listed, *(key for key in found if key not in listed)]:
        if field not in found or field not in listed or not _same(listed[field], found[field]):
            raise SkillVerificationError(
                uri,
                f"frontmatter {field!r}",
                f"the entry says {_shown(listed, field)}, the SKILL.md read says {_shown(found, field)}",
            )
    return found


def verify_skill(entry: Mapping[str, Any], files: Mapping[str, bytes]) -> None:
    """Every file read (URI to bytes; SKILL.md among them) is the one the entry lists, and SKILL.md's
    frontmatter is the entry's. Files not read yet are not asked for: hosts read lazily."""
    uri = str(entry.get("uri"))
    if uri not in files:
        raise SkillVerificationError(uri, uri, f"{SKILL_FILE} was not read")
    verify_skill_md(entry, files[uri])
    for at, data in files.items():
        verify_file(entry, at, data)


def _resources(entry: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    resources = entry.get("resources")
    return [r for r in resources if isinstance(r, Mapping)] if isinstance(resources, list) else []


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values: a number is not a boolean, 1 and 1.0 are one number."""
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_same(a[key], b[key]) for key in a)
    return False


def _shown(values: Mapping[str, Any], field: str) -> str:
    return json.dumps(values[field], ensure_ascii=False)[:200] if field in values else "nothing"
