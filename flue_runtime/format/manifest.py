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
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from flue_runtime.format.records import PackedFile, SkillMetadata

BUNDLE_DIR = "_flue_skills"
MANIFEST_FILE = "manifest.json"
SKILLS_DIR = "skills"
MARKDOWN_DIR = "markdown"
FORMAT = 2

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
        """Parsed on first use: mounting a thousand skills builds none of their `PackedFile`s."""
        rows = [line.split("\t") for line in self.files_text.split("\n") if line]
        return tuple(PackedFile(path, int(size), sha) for path, size, sha in rows)

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
    def from_json(cls, id: str, data: Mapping[str, Any]) -> SkillEntry:
        files = data["files"]
        if not isinstance(files, str):
            raise TypeError(f"skill {id}: files must be a string of `path<TAB>size<TAB>sha256` lines")
        return cls(id, SkillMetadata.from_dict(data["fields"]), files, data["body_offset"], data.get("source"))


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
    def from_json(cls, id: str, data: Mapping[str, Any]) -> MarkdownEntry:
        return cls(id, data["size"], data["sha256"], data.get("source"))


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
        [(kind, target)] = data.items()
        if kind not in ("skill", "markdown", "package"):
            raise ValueError(f"unknown reference kind {kind!r}")
        return cls(kind, target)  # type: ignore[arg-type]


class Manifest:
    """A package's bundle manifest; entries are built from the raw JSON on first use."""

    def __init__(
        self,
        package: str,
        skills: Mapping[str, SkillEntry] | None = None,
        markdown: Mapping[str, MarkdownEntry] | None = None,
        references: Mapping[str, Mapping[str, Reference]] | None = None,
        exports: Sequence[str] | None = None,
    ) -> None:
        self.package = package
        self._exports = None if exports is None else tuple(sorted(exports))
        self._raw: dict[str, Any] = {"skills": {}, "markdown": {}, "references": {}}
        self._skills: dict[str, SkillEntry] = dict(skills or {})
        self._markdown: dict[str, MarkdownEntry] = dict(markdown or {})
        self._references = {m: dict(refs) for m, refs in (references or {}).items()}

    # --- reading ------------------------------------------------------------------

    @classmethod
    def loads(cls, data: bytes | str) -> Manifest:
        raw = json.loads(data)
        if not isinstance(raw, dict) or raw.get("format") != FORMAT:
            found = raw.get("format") if isinstance(raw, dict) else None
            raise ValueError(f"unsupported skill bundle format {found!r}; this flue_runtime reads format {FORMAT}")
        manifest = cls(raw["package"], exports=_exports(raw.get("exports")))
        manifest._raw = raw
        return manifest

    @property
    def exports(self) -> tuple[str, ...] | None:
        """The package specs other packages may use (None: the project declares no exports, all resolve)."""
        return self._exports

    def skill(self, id: str) -> SkillEntry:
        entry = self._skills.get(id)
        if entry is None:
            entry = self._skills[id] = SkillEntry.from_json(id, self._raw["skills"][id])
        return entry

    def markdown(self, id: str) -> MarkdownEntry:
        entry = self._markdown.get(id)
        if entry is None:
            entry = self._markdown[id] = MarkdownEntry.from_json(id, self._raw["markdown"][id])
        return entry

    def reference(self, module: str, spec: str) -> Reference | None:
        refs = self._references.get(module)
        if refs is not None and spec in refs:
            return refs[spec]
        raw = self._raw["references"].get(module, {}).get(spec)
        return None if raw is None else Reference.from_json(raw)

    def skill_ids(self) -> list[str]:
        return sorted(set(self._skills) | set(self._raw["skills"]))

    def markdown_ids(self) -> list[str]:
        return sorted(set(self._markdown) | set(self._raw["markdown"]))

    def modules(self) -> list[str]:
        return sorted(set(self._references) | set(self._raw["references"]))

    def references_of(self, module: str) -> dict[str, Reference]:
        raw = {spec: Reference.from_json(r) for spec, r in self._raw["references"].get(module, {}).items()}
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
    if not isinstance(raw, list) or not all(isinstance(spec, str) for spec in raw):
        raise TypeError("exports must be a list of package specs")
    return tuple(raw)
