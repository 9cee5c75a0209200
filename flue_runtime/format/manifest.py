"""The bundle a build writes into a package, and how the run time reads it back.

Layout inside the package that owns the referencing modules (its outermost regular
package, see `bundle_package`):

    _flue_skills/manifest.json          this file's format
    _flue_skills/skills/<id>/<path>     each vetted skill file, once per package
    _flue_skills/markdown/<id>.md       each markdown() target

The manifest carries every skill's frontmatter fields, files (size, SHA-256) and the
byte offset of the instructions in SKILL.md, so mounting needs neither YAML nor
jsonschema. JSON is written with sorted keys and no whitespace: the same inputs give
the same bytes.

A skill's files are one string, a `path<TAB>size<TAB>sha256` line per file (a skill path
never holds a control character): parsing a 1,000-skill manifest makes 20,000 objects
instead of 60,000 for lists of lists, and the lines are split only when a skill's files
are asked for.

`exports` (optional, a sorted list of package specs) is written only by a build whose project
declares `[tool.flue] exports`, into every bundle package of that build; absent, any spec into
the package resolves from other packages. An exported target in this bundle is also recorded
as a reference of the bundle package itself (`references[<package>][<spec>]`, as if its
`__init__` called it), so every reader of format 2, older run times included, resolves it;
those readers ignore `exports` and so do not enforce it (the consumer's build does).

What a manifest says is input, never trusted: reading one checks its size before a byte of it
is decoded (`MANIFEST_LIMIT`; readers check it before inflating), and every entry, when it is
first built from the JSON, by the build's own rules (a skill's fields by the frontmatter schema,
so a name can never be a path; every file path by `skill_path`; ids, sizes and digests by their
form). Whatever is wrong becomes one `MountError` naming the manifest and the entry, here, so
every reader (mounting, `ls`, `export`, `mcp`) gets checked data or that error.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from flue_runtime.errors import FlueError, MountError
from flue_runtime.format.paths import skill_path
from flue_runtime.format.records import SKILL_FILE, PackedFile, SkillMetadata, is_content_id

if TYPE_CHECKING:
    from flue_runtime.format.schema_validator import Violation

__all__ = [
    "BUNDLE_DIR",
    "MANIFEST_FILE",
    "MANIFEST_LIMIT",
    "MARKDOWN_DIR",
    "Manifest",
    "MarkdownEntry",
    "Reference",
    "ReferenceKind",
    "SKILLS_DIR",
    "SkillEntry",
]


BUNDLE_DIR = "_flue_skills"
MANIFEST_FILE = "manifest.json"
SKILLS_DIR = "skills"
MARKDOWN_DIR = "markdown"
FORMAT = 2
#: The largest manifest any reader accepts, checked before anything is inflated or decoded; far above
#: what the largest bundles a build makes need (BENCHMARKS.md has their sizes).
MANIFEST_LIMIT = 16 * 1024 * 1024

_SHA256 = re.compile(r"[0-9a-f]{64}")
_SIZE = re.compile(r"(?:0|[1-9][0-9]{0,15})")
_T = TypeVar("_T")

ReferenceKind = Literal["skill", "markdown", "package"]


@dataclass(frozen=True)
class SkillEntry:
    """One packed skill. `source` is set in editable builds: read the skill from that folder."""

    id: str
    metadata: SkillMetadata
    #: The manifest's file list as written: a `path<TAB>size<TAB>sha256` line per file.
    files_text: str
    body_offset: int
    source: str | None = None
    #: The manifest this entry was read from, for messages (empty for an entry the build made).
    where: str = field(default="", compare=False, repr=False)

    @classmethod
    def of(
        cls, id: str, metadata: SkillMetadata, files: Sequence[PackedFile], body_offset: int, source: str | None = None
    ) -> SkillEntry:
        for f in files:
            if "\t" in f.path or "\n" in f.path:
                raise ValueError(f"skill {id}: a file path holds a tab or a line break: {f.path!r}")
        return cls(id, metadata, "".join(f"{f.path}\t{f.size}\t{f.sha256}\n" for f in files), body_offset, source)

    @cached_property
    def files(self) -> tuple[PackedFile, ...]:
        """Parsed on first use (mounting a thousand skills builds none of their `PackedFile`s), each line
        checked: a clean skill path (`skill_path`, as the build wrote it), a size, a SHA-256; SKILL.md
        among them, no path twice."""
        return _checked(self.where or MANIFEST_FILE, f"skill {self.id}", lambda: _files(self.files_text))

    @property
    def directory(self) -> str:
        """The skill's folder inside the package, POSIX style."""
        return f"{BUNDLE_DIR}/{SKILLS_DIR}/{self.id}"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "fields": self.metadata.to_dict(),
            "files": self.files_text,
            "body_offset": self.body_offset,
        }
        if self.source is not None:
            data["source"] = self.source
        return data

    @classmethod
    def from_json(cls, id: str, data: Mapping[str, Any], where: str = MANIFEST_FILE) -> SkillEntry:
        """`MountError` naming `where` and the skill when anything is not what the build writes."""
        return _checked(where, f"skill {id}", lambda: cls._from_json(id, data, where))

    @classmethod
    def _from_json(cls, id: str, data: Mapping[str, Any], where: str) -> SkillEntry:
        _require(is_content_id(id), "its id is not a content id (16 hex digits)")
        _require(isinstance(data, dict), "is not a JSON object")
        fields = _typed(data.get("fields"), dict, "has no `fields` object")
        problems = _frontmatter_problems(fields)
        _require(
            not problems,
            "; ".join(f"field {'.'.join(map(str, v.path)) or 'fields'} {v.message}" for v in problems[:3]),
        )
        files = _typed(data.get("files"), str, "its files must be a string of `path<TAB>size<TAB>sha256` lines")
        offset = _whole(data.get("body_offset"), "its body_offset is not a whole number")
        return cls(id, SkillMetadata.from_dict(fields), files, offset, _source(data.get("source")), where)


@dataclass(frozen=True, slots=True)
class MarkdownEntry:
    """One packed markdown() target."""

    id: str
    size: int
    sha256: str
    source: str | None = None

    @property
    def path(self) -> str:
        return f"{BUNDLE_DIR}/{MARKDOWN_DIR}/{self.id}.md"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"size": self.size, "sha256": self.sha256}
        if self.source is not None:
            data["source"] = self.source
        return data

    @classmethod
    def from_json(cls, id: str, data: Mapping[str, Any], where: str = MANIFEST_FILE) -> MarkdownEntry:
        return _checked(where, f"markdown {id}", lambda: cls._from_json(id, data))

    @classmethod
    def _from_json(cls, id: str, data: Mapping[str, Any]) -> MarkdownEntry:
        _require(is_content_id(id), "its id is not a content id (16 hex digits)")
        _require(isinstance(data, dict), "is not a JSON object")
        size = _whole(data.get("size"), "its size is not a whole number")
        sha256 = _typed(data.get("sha256"), str, "its sha256 is not a digest")
        _require(_SHA256.fullmatch(sha256) is not None, "its sha256 is not a digest")
        return cls(id, size, sha256, _source(data.get("source")))


@dataclass(frozen=True, slots=True)
class Reference:
    """What one `skill()`/`markdown()` call in one module resolves to.

    `kind` is "skill" or "markdown"; `target` is an entry id, or for a package spec
    (`acme_skills/review/SKILL.md`) the package to resolve from at run time.
    """

    kind: ReferenceKind
    target: str

    def to_json(self) -> dict[str, str]:
        return {self.kind: self.target}

    @classmethod
    def from_json(cls, data: Mapping[str, str]) -> Reference:
        _require(isinstance(data, dict) and len(data) == 1, "a reference must be one `{kind: target}` pair")
        [(kind, target)] = data.items()
        _require(kind in ("skill", "markdown", "package"), f"unknown reference kind {kind!r}")
        _require(isinstance(target, str), "a reference's target must be a string")
        if kind != "package":
            _require(is_content_id(target), f"the {kind} {target!r} is not a content id")
        return cls(kind, target)  # type: ignore[arg-type]


class Manifest:
    """A package's bundle manifest; entries are built (and checked) from the raw JSON on first use.

    `where` names the manifest in messages: `pkg/_flue_skills/manifest.json`, or a wheel's member.
    """

    def __init__(
        self,
        package: str,
        skills: Mapping[str, SkillEntry] | None = None,
        markdown: Mapping[str, MarkdownEntry] | None = None,
        references: Mapping[str, Mapping[str, Reference]] | None = None,
        exports: Sequence[str] | None = None,
        *,
        where: str = MANIFEST_FILE,
    ) -> None:
        self.package = package
        self.where = where
        self._exports = None if exports is None else tuple(sorted(exports))
        self._raw: dict[str, Any] = {"skills": {}, "markdown": {}, "references": {}}
        self._skills: dict[str, SkillEntry] = dict(skills or {})
        self._markdown: dict[str, MarkdownEntry] = dict(markdown or {})
        self._references = {m: dict(refs) for m, refs in (references or {}).items()}

    # --- reading ------------------------------------------------------------------

    @classmethod
    def loads(cls, data: bytes | str, where: str = MANIFEST_FILE) -> Manifest:
        """The manifest in `data`; `MountError` naming `where` when it is not one this run time reads."""
        if len(data) > MANIFEST_LIMIT:
            raise _error(where, f"{len(data):,} bytes, over the {MANIFEST_LIMIT:,}-byte limit of a manifest")
        try:
            raw = json.loads(data)
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            raise _error(where, f"not JSON: {exc}") from None
        if not isinstance(raw, dict) or raw.get("format") != FORMAT:
            found = raw.get("format") if isinstance(raw, dict) else None
            raise MountError(
                f"{where}: unsupported skill bundle format {found!r}; this flue_runtime reads format {FORMAT}: "
                "upgrade flue-skills if the package was built by a newer one"
            )
        return _checked(where, "its top level", lambda: cls._from_raw(raw, where))

    @classmethod
    def _from_raw(cls, raw: dict[str, Any], where: str) -> Manifest:
        package = _typed(raw.get("package"), str, "`package` is not a package name")
        _require(_is_dotted(package), "`package` is not a package name")
        for key in ("skills", "markdown", "references"):
            _require(isinstance(raw.get(key), dict), f"`{key}` is not a JSON object")
        for module, specs in raw["references"].items():
            _require(_is_dotted(module), f"`references` names {module!r}, not a module")
            _require(isinstance(specs, dict), f"the references of {module} are not a JSON object")
        manifest = cls(package, exports=_exports(raw.get("exports")), where=where)
        manifest._raw = raw
        return manifest

    @property
    def exports(self) -> tuple[str, ...] | None:
        """The package specs other packages may use (None: the project declares no exports, all resolve)."""
        return self._exports

    def skill(self, id: str) -> SkillEntry:
        """`KeyError` when the manifest lists no skill `id`; `MountError` when its entry is malformed."""
        entry = self._skills.get(id)
        if entry is None:
            entry = self._skills[id] = SkillEntry.from_json(id, self._raw["skills"][id], self.where)
        return entry

    def markdown(self, id: str) -> MarkdownEntry:
        entry = self._markdown.get(id)
        if entry is None:
            entry = self._markdown[id] = MarkdownEntry.from_json(id, self._raw["markdown"][id], self.where)
        return entry

    def reference(self, module: str, spec: str) -> Reference | None:
        refs = self._references.get(module)
        if refs is not None and spec in refs:
            return refs[spec]
        raw = self._raw["references"].get(module, {}).get(spec)
        return None if raw is None else _checked(self.where, f"reference {spec!r}", lambda: Reference.from_json(raw))

    def skill_ids(self) -> list[str]:
        return sorted(set(self._skills) | set(self._raw["skills"]))

    def markdown_ids(self) -> list[str]:
        return sorted(set(self._markdown) | set(self._raw["markdown"]))

    def modules(self) -> list[str]:
        return sorted(set(self._references) | set(self._raw["references"]))

    def references_of(self, module: str) -> dict[str, Reference]:
        raw = _checked(
            self.where,
            f"the references of {module}",
            lambda: {spec: Reference.from_json(r) for spec, r in self._raw["references"].get(module, {}).items()},
        )
        raw.update(self._references.get(module, {}))
        return raw

    # --- writing ------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format": FORMAT,
            "package": self.package,
            "skills": {id: self.skill(id).to_json() for id in self.skill_ids()},
            "markdown": {id: self.markdown(id).to_json() for id in self.markdown_ids()},
            "references": {
                module: {spec: ref.to_json() for spec, ref in sorted(self.references_of(module).items())}
                for module in self.modules()
            },
        }
        if self._exports is not None:
            data["exports"] = list(self._exports)
        return data

    def dumps(self) -> bytes:
        """Deterministic bytes: sorted keys, no whitespace, UTF-8, one trailing newline."""
        text = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return (text + "\n").encode("utf-8")


def _exports(raw: Any) -> tuple[str, ...] | None:
    if raw is None:
        return None
    _require(isinstance(raw, list) and all(isinstance(spec, str) for spec in raw), "exports must be a list of specs")
    return tuple(raw)


def _require(condition: bool, problem: str) -> None:
    if not condition:
        raise MountError(problem)


def _typed(value: object, kind: type[_T], problem: str) -> _T:
    if not isinstance(value, kind):
        raise MountError(problem)
    return value


def _whole(value: object, problem: str) -> int:
    """A JSON whole number, not negative (a bool is not one)."""
    if type(value) is not int or value < 0:
        raise MountError(problem)
    return value


def _checked(where: str, what: str, make: Callable[[], _T]) -> _T:
    """`make()`, or a `MountError` naming the manifest and the part of it that is malformed."""
    try:
        return make()
    except FlueError as exc:  # what is wrong with one part of it, or a path `skill_path` refuses
        raise _error(where, f"{what}: {exc}") from None
    except (ValueError, TypeError, KeyError, AttributeError) as exc:  # a value of another JSON type than written
        raise _error(where, f"{what}: {type(exc).__name__}: {exc}") from None


def _error(where: str, problem: str) -> MountError:
    return MountError(
        f"{where}: malformed skill bundle manifest ({problem}); it was not written by a flue-skills build "
        "or was changed after it: reinstall the package"
    )


_violations: Callable[[object], list[Violation]] | None = None


def _frontmatter_problems(fields: dict[str, Any]) -> list[Violation]:
    """The frontmatter rules, as the build applied them (compiled once, on the first entry read)."""
    global _violations
    if _violations is None:
        from flue_runtime.format.schema import validator

        _violations = validator().violations
    return _violations(fields)


def _is_dotted(name: object) -> bool:
    """A dotted module name (what the scanner records: identifiers as Python normalises them)."""
    return isinstance(name, str) and all(part.isidentifier() for part in name.split("."))


def _source(value: object) -> str | None:
    """An editable build's folder: an absolute path, or nothing."""
    _require(
        value is None or (isinstance(value, str) and os.path.isabs(value) and "\x00" not in value),
        "its source is not an absolute path",
    )
    return value  # type: ignore[return-value]


def _files(text: str) -> tuple[PackedFile, ...]:
    files = []
    for line in text.split("\n"):
        if not line:
            continue
        row = line.split("\t")
        if len(row) != 3:
            from flue_runtime.format.diagnostics import quoted  # (for the message only: mounting never loads it)

            raise MountError(f"the file line {quoted(line, 80)} is not `path<TAB>size<TAB>sha256`")
        path, size, sha256 = row
        _require(_SIZE.fullmatch(size) is not None, f"{path!r} has no size")
        _require(_SHA256.fullmatch(sha256) is not None, f"{path!r} has no SHA-256")
        files.append(PackedFile(skill_path(path), int(size), sha256))
    paths = {f.path for f in files}
    _require(len(paths) == len(files), "a file is listed twice")
    _require(SKILL_FILE in paths, f"it lists no {SKILL_FILE}")
    return tuple(files)
