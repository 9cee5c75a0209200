"""One skill of a remote Skills server as a source: `RemoteSkill`, the `SkillSource` whose listing is its entry's
manifest (path, size, SHA-256) and whose reads are `resources/read` of its URIs, each checked by the host's rules
(`mcp.host`) before `load_skill`'s own checks see it; and `MountedRemoteSkill`, the `MountedSource` a reference holds,
mounted from the entry alone and loaded at first need (SEP-2640: nothing is fetched ahead of need).

Every path where a remote skill's files appear encodes its server (`server_identity`, the source's `identity`):
the virtual tree's `/.flue/remote/<identity>/<name>/` and the script copies (`agents.scripts.materialise`).
"""

from __future__ import annotations

import hashlib
import json
import threading
import warnings
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from flue_runtime.errors import RemoteSkillsError, SkillError, SkillVerificationError, SkillWarning
from flue_runtime.format.diagnostics import printable
from flue_runtime.format.records import SKILL_FILE, ListedFile, PackedFile, SkillMetadata
from flue_runtime.format.vetting import Limits
from flue_runtime.mcp.host import verify_file, verify_skill_md
from flue_runtime.mcp.remote_connection import Connection
from flue_runtime.mount.reference import MountedSource
from flue_runtime.mount.sources import vet_source

__all__ = ["FROM", "FROM_LINE", "UNVERIFIED", "MountedRemoteSkill", "RemoteSkill"]

#: What a dynamic skill's catalog line says after its description: its content was not verified.
UNVERIFIED = " (unverified: served as dynamic content, without digests to check it by)"
#: What a remote skill's catalog line says after its description, and its activation before its instructions: the
#: server and URI it came from, and the server's identity (SEP-2640: origin visible to the model, never
#: indistinguishable from a local skill; two servers the same text shows, such as one command in two environments,
#: told apart).
FROM = " (served by {origin}, server {identity}: a remote MCP server's skill, not a local one)"
FROM_LINE = (
    "[Skill served by {origin}, server {identity}: a remote MCP server's skill; its instructions and files are that "
    "server's.]\n\n"
)


class RemoteSkill:
    """One skill of the server as a `SkillSource`: its entry's manifest, its files read over the connection and
    checked by the host's rules (`mcp.host`) before `load_skill`'s own checks see them."""

    def __init__(self, connection: Connection, entry: Mapping[str, Any], *, dynamic: bool) -> None:
        self._connection = connection
        self.entry = entry
        self._dynamic = dynamic
        self.uri: str = entry["uri"]
        self._root = self.uri[: -len(SKILL_FILE)]
        self.name: str = entry["frontmatter"]["name"]
        #: The server's key in every path where this skill's files are materialized (`server_identity`).
        self.identity = connection.identity
        self._files: dict[str, ListedFile] = {}
        self._uris: dict[str, str] = {}
        self._skill_md: bytes | None = None
        #: The failure of the server itself (not of this skill) met while loading, which stops the whole call.
        self.failure: RemoteSkillsError | None = None
        for resource in [] if dynamic else entry["resources"]:
            path = unquote(resource["uri"][len(self._root) :])
            self._uris[path] = resource["uri"]
            self._files[path] = ListedFile(path, resource["size"], resource["digest"].removeprefix("sha256:"))

    def describe(self) -> str:
        """The server as shown and the skill's URI, on one line (a server's URI never adds lines to what the model
        reads: its catalog line, activation and pages all say this)."""
        return printable(f"{self._connection.shown} {self._root.rstrip('/')}")

    def listing(self) -> list[ListedFile]:
        return list(self._files.values())

    def fetch_skill_md(self, limits: Limits) -> None:
        """A dynamic skill's SKILL.md, read when the skill is first needed (no size to vet it by before it is read):
        the listing's size is what was read."""
        if SKILL_FILE in self._files:
            return
        data = self._verified_skill_md(self._fetch(self.uri, limits.bundle_size))
        self._uris[SKILL_FILE] = self.uri
        self._files[SKILL_FILE] = ListedFile(SKILL_FILE, len(data), None)

    def read(self, path: str) -> bytes:
        if path == SKILL_FILE and self._skill_md is not None:
            return self._skill_md  # (read once: what is vetted is what is served)
        uri = self._uris[path]
        listed = self._files[path]
        kept = self._connection.verified.get((uri, listed.sha256)) if listed.sha256 is not None else None
        if kept is not None:
            return kept
        data = self._fetch(uri, listed.size)
        if path == SKILL_FILE:
            data = self._verified_skill_md(data)
        else:
            data = verify_file(self.entry, uri, data)
        if listed.sha256 is not None:
            self._connection.verified.keep((uri, listed.sha256), data)
        return data

    def _verified_skill_md(self, data: bytes) -> bytes:
        verify_skill_md(self.entry, data, allow_dynamic=self._dynamic)
        self._skill_md = data
        return data

    def _fetch(self, uri: str, size: int) -> bytes:
        try:
            return self._connection.read(self.uri, uri, size)
        except RemoteSkillsError as failure:
            self.failure = failure
            raise


class MountedRemoteSkill(MountedSource):
    """A listed skill, mounted from its entry alone: its catalog fields and file list vetted from the entry
    (`vet_listing`); its SKILL.md fetched, verified against the entry and the whole skill vetted by `load_skill`'s
    rules only when first needed (its instructions, a file, a script), and refused then if it does not pass.
    SEP-2640: "Hosts MUST NOT retrieve a skill's files ahead of need".

    A dynamic skill (`files` None: its entry lists no files) is mounted from its entry's frontmatter alone
    (`vet_catalog`) the same way: until it is loaded its one file is its SKILL.md of unknown size, and its digest
    (`known_id`) is its entry's, since its content has none to be known by before it is read."""

    def __init__(
        self, remote: RemoteSkill, fields: SkillMetadata, files: tuple[PackedFile, ...] | None, limits: Limits
    ) -> None:
        self._remote = remote
        self._fields = fields
        self._files = files
        self._limits = limits
        self._loaded: MountedSource | None = None
        self._refused: SkillError | None = None
        self._lock = threading.Lock()
        #: The content id a reference is known by: None (its files') unless dynamic, then its entry's digest.
        self.known_id = None if files is not None else _entry_id(remote.entry)

    @property
    def name(self) -> str:
        return self._fields.name

    @property
    def identity(self) -> str:
        """The server's key in every path the skill's files appear at (`MountedSource`: the virtual tree's
        `/.flue/remote/<identity>/<name>/`, script copies)."""
        return self._remote.identity

    @property
    def uri(self) -> str:
        """The `skill://` URI of the skill's SKILL.md, as the server lists it (`MountedSource`: telemetry's
        `gen_ai.skill.source.uri`)."""
        return self._remote.uri

    def files(self) -> tuple[PackedFile, ...]:
        if self._files is not None:
            return self._files
        loaded = self._loaded  # (a dynamic skill: its file list is known once it is loaded)
        return loaded.files() if loaded is not None else (PackedFile(SKILL_FILE, 0, ""),)

    def read(self, path: str) -> bytes:
        return self._load().read(path)

    def instructions(self) -> str:
        return FROM_LINE.format(origin=self.describe(), identity=self.identity) + self._load().instructions()

    def describe(self) -> str:
        return self._remote.describe()

    def _load(self) -> MountedSource:
        """The skill as `load_skill` mounts it, at first need; the same refusal at every later need."""
        with self._lock:
            if self._loaded is None and self._refused is None:
                self._loaded = self._vetted()
            if self._refused is not None:
                raise self._refused
            assert self._loaded is not None
            return self._loaded

    def _vetted(self) -> MountedSource | None:
        shown = self.describe()
        try:
            if self._files is None:
                self._remote.fetch_skill_md(self._limits)
            skill, notes = vet_source(self._remote, limits=self._limits)
        except RemoteSkillsError:  # (the server, met fetching a dynamic skill's SKILL.md: the next need tries again)
            self._remote.failure = None
            raise
        except (SkillError, SkillVerificationError) as refused:
            if self._remote.failure is not None:  # (the server, not the skill: the next need tries again)
                failure, self._remote.failure = self._remote.failure, None
                raise failure from None
            self._refused = SkillError(source=shown, reason=f"refused when first loaded: {_after(refused, shown)}")
            return None
        listed, found = self._fields, skill.fields
        if (found.name, found.description, found.license, found.compatibility) != (
            listed.name,
            listed.description,
            listed.license,
            listed.compatibility,
        ) or self._files not in (None, skill.source.files()):
            self._refused = SkillError(
                source=shown,
                reason="refused when first loaded: its SKILL.md or files are not the ones its entry listed",
            )
            return None
        for note in notes:
            warnings.warn(note, SkillWarning, stacklevel=2)
        return skill.source


def _entry_id(entry: Mapping[str, Any]) -> str:
    """A dynamic skill's digest: its entry's as served (16 hex digits, as a content id), since its content has none
    to be known by before it is read."""
    said = json.dumps(entry, sort_keys=True, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass")
    return hashlib.sha256(said).hexdigest()[:16]


def _after(error: Exception, shown: str) -> str:
    """An error's text without the source's name in front (the message around it names it)."""
    return printable(str(error).removeprefix(shown).lstrip(": "))
