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

Format 2 writes a skill's files as one string, a `path<TAB>size<TAB>sha256` line per
file (a skill path never holds a control character), where format 1 wrote a list of
`[path, size, sha256]` lists: parsing a 1,000-skill manifest then makes 20,000 objects
instead of 60,000, which halves the JSON load and the memory it holds. Both are read.
"""

from __future__ import annotations

import json

TYPE_CHECKING = False  # typing stays off the mount path (see flue_runtime/__init__.py)
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Literal, Mapping

from .records import PackedFile, Record, SkillMetadata

BUNDLE_DIR = "_flue_skills"
MANIFEST_FILE = "manifest.json"
SKILLS_DIR = "skills"
MARKDOWN_DIR = "markdown"
FORMAT = 2
READABLE_FORMATS = (1, 2)


class SkillEntry(Record):
    """One packed skill. `source` is set in editable builds: read the skill from that folder.

    Read from a manifest, the file list stays raw JSON until something asks for `files`:
    mounting a thousand skills builds none of their ten thousand `PackedFile`s.
    """

    __slots__ = ("id", "metadata", "_files", "body_offset", "source")
    _fields = ("id", "metadata", "files", "body_offset", "source")

    id: str
    metadata: SkillMetadata
    _files: tuple[PackedFile, ...] | str | list[list[Any]]
    body_offset: int
    source: str | None

    def __init__(
        self, id: str, metadata: SkillMetadata, files: tuple[PackedFile, ...], body_offset: int, source: str | None = None
    ) -> None:
        set_ = object.__setattr__
        set_(self, "id", id)
        set_(self, "metadata", metadata)
        set_(self, "_files", files)
        set_(self, "body_offset", body_offset)
        set_(self, "source", source)

    @property
    def files(self) -> tuple[PackedFile, ...]:
        files = self._files
        if isinstance(files, str):  # format 2
            rows = [line.split("\t") for line in files.split("\n") if line]
            files = tuple(PackedFile(path, int(size), sha) for path, size, sha in rows)
            object.__setattr__(self, "_files", files)
        elif not isinstance(files, tuple):  # format 1
            files = tuple(PackedFile(path, size, sha) for path, size, sha in files)
            object.__setattr__(self, "_files", files)
        return files

    @property
    def directory(self) -> str:
        """The skill's folder inside the package, POSIX style."""
        return f"{BUNDLE_DIR}/{SKILLS_DIR}/{self.id}"

    def to_json(self) -> dict[str, Any]:
        for f in self.files:
            if "\t" in f.path or "\n" in f.path:
                raise ValueError(f"skill {self.id}: a file path holds a tab or a line break: {f.path!r}")
        data: dict[str, Any] = {
            "fields": self.metadata.to_dict(),
            "files": "".join(f"{f.path}\t{f.size}\t{f.sha256}\n" for f in self.files),
            "body_offset": self.body_offset,
        }
        if self.source is not None:
            data["source"] = self.source
        return data

    @classmethod
    def from_json(cls, id: str, data: Mapping[str, Any]) -> SkillEntry:
        files = data["files"]
        if not isinstance(files, (str, list)):
            raise TypeError(f"skill {id}: files must be a string (format 2) or a list (format 1)")
        entry = cls(id, SkillMetadata.from_dict(data["fields"]), (), data["body_offset"], data.get("source"))
        object.__setattr__(entry, "_files", files)
        return entry


class MarkdownEntry(Record):
    """One packed markdown() target."""

    __slots__ = ("id", "size", "sha256", "source")
    _fields = __slots__

    id: str
    size: int
    sha256: str
    source: str | None

    def __init__(self, id: str, size: int, sha256: str, source: str | None = None) -> None:
        set_ = object.__setattr__
        set_(self, "id", id)
        set_(self, "size", size)
        set_(self, "sha256", sha256)
        set_(self, "source", source)

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


class Reference(Record):
    """What one `skill()`/`markdown()` call in one module resolves to.

    `kind` is "skill" or "markdown"; `target` is an entry id, or for a package spec
    (`acme_skills/review/SKILL.md`) the package to resolve from at run time.
    """

    __slots__ = ("kind", "target")
    _fields = __slots__

    kind: Literal["skill", "markdown", "package"]
    target: str

    def __init__(self, kind: Literal["skill", "markdown", "package"], target: str) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "target", target)

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
    ) -> None:
        self.package = package
        self._raw: dict[str, Any] = {"skills": {}, "markdown": {}, "references": {}}
        self._skills: dict[str, SkillEntry] = dict(skills or {})
        self._markdown: dict[str, MarkdownEntry] = dict(markdown or {})
        self._references = {m: dict(refs) for m, refs in (references or {}).items()}

    # --- reading ------------------------------------------------------------------

    @classmethod
    def loads(cls, data: bytes | str) -> Manifest:
        raw = json.loads(data)
        if not isinstance(raw, dict) or raw.get("format") not in READABLE_FORMATS:
            found = raw.get("format") if isinstance(raw, dict) else None
            raise ValueError(f"unsupported skill bundle format {found!r}; this flue_runtime reads formats 1 and 2")
        manifest = cls(raw["package"])
        manifest._raw = raw
        return manifest

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
        return {
            "format": FORMAT,
            "package": self.package,
            "skills": {id: self.skill(id).to_json() for id in self.skill_ids()},
            "markdown": {id: self.markdown(id).to_json() for id in self.markdown_ids()},
            "references": {
                module: {spec: ref.to_json() for spec, ref in sorted(self.references_of(module).items())}
                for module in self.modules()
            },
        }

    def dumps(self) -> bytes:
        """Deterministic bytes: sorted keys, no whitespace, UTF-8, one trailing newline."""
        text = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return (text + "\n").encode("utf-8")
