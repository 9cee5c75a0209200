"""Skills served by a remote MCP server (the Skills extension), mounted as a host must mount them.

`remote_skills(target)` connects to a server (an `http(s)://` URL over streamable HTTP, or a command run as a
child process speaking stdio), lists its skills (`skills/list`, every page), and mounts each through
`load_skill`, the one way a skill from elsewhere is mounted: a remote skill is a `SkillSource` whose listing
is its entry's manifest (path, size, SHA-256) and whose reads are `resources/read` of its `skill://` URIs.

Who checks what (each rule has its owner; nothing here re-implements one):

- the entry (URI, name, description, a complete manifest with digests; "dynamic" declined unless allowed)
  and every file read (size, digest; SKILL.md's frontmatter field by field with the entry's):
  `mcp.host`, as SEP-2640 asks of a host;
- the skill (its name, every path, secret names, noise, sizes against the limits before a byte is read,
  SKILL.md by the skill rules, private keys): `load_skill`, by the build's rules.

Nothing is fetched ahead of need (SEP-2640): a listed skill is mounted from its entry alone (`vet_listing`: its
name, catalog fields, paths and sizes), its SKILL.md fetched, verified and the whole skill vetted by `load_skill`
when first needed (its instructions, a file, a script), and each support file when read; a dynamic skill (no file
list) is mounted from its entry's frontmatter alone (`vet_catalog`), its SKILL.md fetched at first need too.
Verified files are kept in memory by URI and digest (`_Verified`), so a file is read from the server once.

Every path where a remote skill's files appear encodes its server (`server_identity`, a source's `identity`):
the virtual tree's `/.flue/remote/<identity>/<name>/` and the script copies (`agents.scripts.materialise`).

Every reply of the server is bounded in bytes before it is parsed (`mcp.replies`: a counter on each HTTP body
and server-sent event, a bounded reader of stdio lines); one past the limit ends the session at once.

A skill the rules refuse is skipped with a `SkillWarning` naming the server, the skill and why: it is never
half mounted, and the others are mounted. A server that cannot be used (unreachable, no answer within
`timeout`, no Skills extension, a malformed listing) is a `RemoteSkillsError` and nothing is mounted.

The connection outlives the call, because support files are read later: it is owned by an event loop in a
daemon thread of its own (one per call), opened again on demand when the server went away (a stdio server
that exited, an HTTP session that ended), and closed by `RemoteSkills.close()` (or leaving its `with`
block), or when the interpreter exits. Closing a stdio connection stops the server process and reaps it.
"""

from __future__ import annotations

import atexit
import base64
import binascii
import hashlib
import json
import math
import shlex
import sys
import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import AsyncExitStack, ExitStack
from dataclasses import dataclass, replace
from os import PathLike
from types import TracebackType
from typing import Any, Literal, TypeVar
from urllib.parse import unquote, urlsplit

import anyio
import anyio.from_thread
import mcp_types as types
from anyio.abc import TaskStatus
from mcp import Client, StdioServerParameters
from mcp.client import advertise
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import CONNECTION_CLOSED, METHOD_NOT_FOUND
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from flue_runtime.errors import RemoteSkillsError, SkillSourceError, SkillVerificationError, SkillWarning
from flue_runtime.format.diagnostics import printable
from flue_runtime.format.records import SKILL_FILE, ListedFile, PackedFile, SkillMetadata
from flue_runtime.format.validate import check_fields
from flue_runtime.format.vetting import DEFAULT_LIMITS, Limits
from flue_runtime.mcp.contents import BUDGET
from flue_runtime.mcp.entries import EXTENSION_ID
from flue_runtime.mcp.host import check_entry, verify_file, verify_skill_md
from flue_runtime.mcp.pinning import pins_for
from flue_runtime.mcp.replies import Bound, count_replies, reply_limit, stdio_transport
from flue_runtime.mount.reference import MountedSource, SkillReference
from flue_runtime.mount.sources import vet_catalog, vet_listing, vet_source

T = TypeVar("T")
Target = str | Sequence[str] | StdioServerParameters

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
#: `skills/list` pages and skills one call reads at most: a server that pages forever cannot hang it.
MAX_PAGES = 1_000
MAX_SKILLS = 10_000
#: How much of a command or URL a message shows.
_SHOWN = 200


class _ListSkills(types.Request[types.PaginatedRequestParams | None, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"
    params: types.PaginatedRequestParams | None = None


class _GetSkillParams(types.RequestParams):
    uri: str


class _GetSkill(types.Request[_GetSkillParams, Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"
    params: _GetSkillParams


class _GotSkill(BaseModel):
    """A `skills/get` result: the entry as sent (the host's checks read it)."""

    model_config = ConfigDict(extra="allow", strict=True)
    skill: Any


class _SkillsPage(BaseModel):
    """A `skills/list` result: its entries kept as sent (the host's checks read them), and the next cursor."""

    model_config = ConfigDict(extra="allow", strict=True)  # (lax, a string would pass as a list of letters)
    skills: list[Any]
    next_cursor: str | None = Field(default=None, alias="nextCursor")


class RemoteSkills(tuple[SkillReference, ...]):
    """The skills a server serves, mounted: a tuple of `SkillReference`s to give `use_skill`, `skills_server` or
    an adapter, and the connection their support files are read through. `close()` (or leaving a `with` block)
    ends it; a read after that is refused. `server` names the server as messages do; `identity` is its key in
    every path where its skills' files are materialized (`server_identity`)."""

    server: str
    identity: str
    _connection: _Connection

    def __new__(cls, skills: Iterable[SkillReference], connection: _Connection) -> RemoteSkills:
        made = super().__new__(cls, skills)
        made.server = connection.shown
        made.identity = connection.identity
        made._connection = connection
        return made

    def close(self) -> None:
        """End the connection (a stdio server is stopped and reaped); the skills' files can no longer be read."""
        self._connection.close()

    def __enter__(self) -> RemoteSkills:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def remote_skills(
    target: Target,
    *,
    timeout: float = 30.0,
    allow_dynamic: bool = False,
    headers: Mapping[str, str] | None = None,
    limits: Limits = DEFAULT_LIMITS,
    uris: Sequence[str] | None = None,
    lock: str | PathLike[str] | None = None,
    update_lock: bool = False,
) -> RemoteSkills:
    """Mount every skill an MCP server serves through the Skills extension (`io.modelcontextprotocol/skills`), or
    the skills of `uris` alone.

    `target`: an `http(s)://` URL (streamable HTTP; `headers`, such as a bearer token, go with every request),
    a command as a list (`["flue-skills", "mcp", "acme"]`, run as a child process speaking stdio), or the
    SDK's `StdioServerParameters` (for its `env` and `cwd`). `timeout`: seconds this call may take in all
    (connecting, listing), and each later read of a file. `allow_dynamic`: mount a skill whose entry says its
    resources are "dynamic" (no digests: only its SKILL.md is mounted, fetched at first need and compared with the
    entry, and its catalog line says it is unverified); such a skill is refused by default.
    `limits`: the build's, unless given; they bound each reply too (`mcp.replies`): one reply may hold a file of
    `limits.bundle_size` in base64 plus 1 MiB, counted as it arrives, and one past that ends the session with
    a `RemoteReplyTooLargeError`. `uris`: the URIs of the SKILL.md of the skills to mount
    (`skill://acme/billing/refunds/SKILL.md`), each loaded by URI alone through `skills/get` (SEP-2640: a host MUST
    support it; a skill need not be listed), then checked and mounted as a listed one is; the server is not listed.
    `lock`: a lock file (`flue-skills.lock`) pinning what the server serves (`mcp.pinning`): a skill whose content
    digest differs from the pinned one, or that the lock does not hold, is left out with a `SkillWarning` naming it
    and both digests, before a byte of it is read; with `update_lock=True`, what the server serves now is pinned.

    Returns the mounted skills, in the server's order. A skill refused by the rules is skipped with a
    `SkillWarning` naming the server, its URI and why. Raises `RemoteSkillsError` when the server cannot be
    used; then nothing is mounted and the connection is closed. Blocking: in async code, run it in a thread
    (`await asyncio.to_thread(remote_skills, url)`).
    """
    server, shown = _server(target, headers)
    if not (isinstance(timeout, (int, float)) and 0 < timeout < math.inf):
        raise RemoteSkillsError(shown, f"timeout must be a positive number of seconds, not {timeout!r}")
    asked = None if uris is None else _asked(shown, uris)
    pins = pins_for(lock, update_lock, shown)
    connection = _Connection(server, shown, float(timeout), headers, limits)
    try:
        deadline = time.monotonic() + timeout
        entries, notes = (_listing(connection, deadline), []) if asked is None else _got(connection, asked, deadline)
        roots = {_root_of(entry) for entry in entries if _valid(entry)}
        skills: list[tuple[str, SkillReference]] = []
        seen: set[object] = set()
        for entry in entries:
            if entry.get("uri") in seen:
                notes.append(_skipped(connection, entry, "listed twice: the first entry of that URI is the one used"))
                continue
            seen.add(entry.get("uri"))
            skill, said = _mount(connection, entry, roots, allow_dynamic=allow_dynamic, limits=limits)
            skills.extend([(str(entry["uri"]), skill)] if skill is not None else [])
            notes.extend(said)
        if pins is not None:  # what the lock pins, decided from the entries: before a byte of a skill is read
            dynamic = {str(entry.get("uri")) for entry in entries if entry.get("resources") == "dynamic"}
            skills, said = pins.apply(connection.identity, shown, skills, dynamic=dynamic, whole=asked is None)
            notes.extend(said)
        mounted, said = _labelled(connection, skills)
        notes.extend(said)
        for note in notes:
            warnings.warn(note, SkillWarning, stacklevel=2)
    except BaseException:
        connection.close()
        raise
    if not mounted:
        connection.drop()  # nothing left to read: no server kept waiting (a read would connect again)
    return RemoteSkills(mounted, connection)


# --- one skill ----------------------------------------------------------------------------------


class _RemoteSkill:
    """One skill of the server as a `SkillSource`: its entry's manifest, its files read over the connection and
    checked by the host's rules (`mcp.host`) before `load_skill`'s own checks see them."""

    def __init__(self, connection: _Connection, entry: Mapping[str, Any], *, dynamic: bool) -> None:
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
        kept = self._connection.verified.get(uri, listed.sha256)
        if kept is not None:
            return kept
        data = self._fetch(uri, listed.size)
        if path == SKILL_FILE:
            data = self._verified_skill_md(data)
        else:
            data = verify_file(self.entry, uri, data)
        if listed.sha256 is not None:
            self._connection.verified.keep(uri, listed.sha256, data)
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


def _mount(
    connection: _Connection,
    entry: Mapping[str, Any],
    roots: set[str],
    *,
    allow_dynamic: bool,
    limits: Limits,
) -> tuple[SkillReference | None, list[str]]:
    """The entry's skill, mounted, and the warnings its vetting gave; None and why when the rules refuse it."""
    try:
        check_entry(entry, allow_dynamic=allow_dynamic)
    except SkillVerificationError as refused:
        hint = (
            "; remote_skills(..., allow_dynamic=True) mounts it, marked unverified"
            if entry.get("resources") == "dynamic"
            else ""
        )
        return None, [_skipped(connection, entry, f"{refused}{hint}")]
    root = _root_of(entry)
    outer = next((other + SKILL_FILE for other in sorted(roots) if other != root and root.startswith(other)), None)
    if outer is not None:
        reason = (
            f"it sits inside the folder of skill {outer}: a SKILL.md inside another skill is a file of that skill, "
            "never a skill of its own"
        )
        return None, [_skipped(connection, entry, reason)]
    dynamic = entry.get("resources") == "dynamic"
    source = _RemoteSkill(connection, entry, dynamic=dynamic)
    try:
        notes: list[str] = []
        files: tuple[PackedFile, ...] | None = None
        if dynamic:  # (no file list to vet: its SKILL.md alone, fetched at first need)
            fields = vet_catalog(source, entry["frontmatter"])
        else:
            fields, files, notes = vet_listing(source, entry["frontmatter"], limits=limits)
    except SkillSourceError as refused:
        return None, [_skipped(connection, entry, str(refused))]
    said = fields.description + FROM.format(origin=source.describe(), identity=source.identity)
    said += UNVERIFIED if dynamic else ""
    listed = _Listed(source, fields, files, limits)
    return SkillReference(replace(fields, description=said), listed, known_id=listed.known_id), notes


class _Listed(MountedSource):
    """A listed skill, mounted from its entry alone: its catalog fields and file list vetted from the entry
    (`vet_listing`); its SKILL.md fetched, verified against the entry and the whole skill vetted by `load_skill`'s
    rules only when first needed (its instructions, a file, a script), and refused then if it does not pass.
    SEP-2640: "Hosts MUST NOT retrieve a skill's files ahead of need".

    A dynamic skill (`files` None: its entry lists no files) is mounted from its entry's frontmatter alone
    (`vet_catalog`) the same way: until it is loaded its one file is its SKILL.md of unknown size, and its digest
    (`known_id`) is its entry's, since its content has none to be known by before it is read."""

    def __init__(
        self, remote: _RemoteSkill, fields: SkillMetadata, files: tuple[PackedFile, ...] | None, limits: Limits
    ) -> None:
        self._remote = remote
        self._fields = fields
        self._files = files
        self._limits = limits
        self._loaded: MountedSource | None = None
        self._refused: SkillSourceError | None = None
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
        except (SkillSourceError, SkillVerificationError) as refused:
            if self._remote.failure is not None:  # (the server, not the skill: the next need tries again)
                failure, self._remote.failure = self._remote.failure, None
                raise failure from None
            self._refused = SkillSourceError(shown, reason=f"refused when first loaded: {_after(refused, shown)}")
            return None
        listed, found = self._fields, skill.fields
        if (found.name, found.description, found.license, found.compatibility) != (
            listed.name,
            listed.description,
            listed.license,
            listed.compatibility,
        ) or self._files not in (None, skill.source.files()):
            self._refused = SkillSourceError(
                shown, reason="refused when first loaded: its SKILL.md or files are not the ones its entry listed"
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
    return _one_line(str(error).removeprefix(shown).lstrip(": "))


def _labelled(
    connection: _Connection, skills: list[tuple[str, SkillReference]]
) -> tuple[list[SkillReference], list[str]]:
    """The skills (URI, skill), each under a name no other of the listing has: names that collide get labels
    from their distinguishing path segments (`skill://acme/billing/refunds` as `refunds-billing`), and a
    warning names the URIs and the labels (SEP-2640, "Names": disambiguate, never drop or prefer one)."""
    by_name: dict[str, list[int]] = {}
    for index, (_, skill) in enumerate(skills):
        by_name.setdefault(skill.name, []).append(index)
    taken = set(by_name)
    out = [skill for _, skill in skills]
    notes = []
    for name, indexes in by_name.items():
        if len(indexes) < 2:
            continue
        labels = _labels(name, [skills[i][0] for i in indexes], taken)
        for index, label in zip(indexes, labels):
            out[index] = skills[index][1].renamed(label)
        pairs = ", ".join(f"{skills[i][0]} as {label!r}" for i, label in zip(indexes, labels))
        notes.append(f"{connection.shown}: {len(indexes)} skills are named {name!r}; mounted under labels: {pairs}")
    return out, notes


def _labels(name: str, uris: list[str], taken: set[str]) -> list[str]:
    """A valid, unused skill name for each URI: the name, then the segments before it that tell them apart."""
    parents = [[s for s in uri.removeprefix("skill://").split("/")[:-2] if s] for uri in uris]
    labels: list[str] = []
    for index, segments in enumerate(parents):
        others = [p for i, p in enumerate(parents) if i != index]
        label = ""
        for depth in range(1, len(segments) + 1):
            tail = segments[-depth:]
            if all(o[-depth:] != tail for o in others):
                label = "-".join([name, *reversed(tail)]).lower()
                break
        if not label or not _valid_name(label) or label in taken:
            label = next(f"{name}-{n}" for n in range(index + 1, index + 10_000) if f"{name}-{n}" not in taken)
        taken.add(label)
        labels.append(label)
    return labels


def _valid_name(name: str) -> bool:
    return not any(
        d.is_error for d in check_fields({"name": name, "description": "-"}, name, None) if d.field == "name"
    )


def _root_of(entry: Mapping[str, Any]) -> str:
    return str(entry["uri"])[: -len(SKILL_FILE)]


def _valid(entry: Mapping[str, Any]) -> bool:
    """Whether the entry is one a host could load (dynamic or not): only such a skill's folder holds others."""
    try:
        check_entry(entry, allow_dynamic=True)
    except SkillVerificationError:
        return False
    return True


def _skipped(connection: _Connection, entry: Mapping[str, Any], reason: str) -> str:
    """The warning for a skill left out: the server, the entry's URI, why."""
    uri = str(entry.get("uri"))
    shown = uri if len(uri) <= _SHOWN else uri[: _SHOWN - 1] + "…"
    reason = reason.removeprefix(connection.shown + " ")  # (a source's error names the server first, as here)
    return f"{connection.shown}: skill {shown!r} not mounted: {_one_line(reason)}"


# --- the listing --------------------------------------------------------------------------------


def _listing(connection: _Connection, deadline: float) -> list[Mapping[str, Any]]:
    """Every entry of every page of `skills/list`, bounded in pages and entries; each entry as sent (the host's
    checks look at it one by one)."""
    entries: list[Mapping[str, Any]] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):

        async def page(client: Client, cursor: str | None = cursor) -> _SkillsPage:
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            return await client.session.send_request(_ListSkills(params=params), _SkillsPage)

        try:
            result = connection.call("skills/list", page, deadline)
        except _Refused as refused:
            raise RemoteSkillsError(connection.shown, f"skills/list: the server answered {refused}") from None
        cursor = result.next_cursor
        entries.extend(e if isinstance(e, Mapping) else {"uri": repr(e)[:_SHOWN]} for e in result.skills)
        if len(entries) > MAX_SKILLS:
            raise RemoteSkillsError(connection.shown, f"skills/list lists more than {MAX_SKILLS:,} skills")
        if not cursor:
            return entries
        if cursor in seen:
            raise RemoteSkillsError(connection.shown, "skills/list gave a cursor it gave before: its pages never end")
        seen.add(cursor)
    raise RemoteSkillsError(connection.shown, f"skills/list has more than {MAX_PAGES:,} pages")


def _asked(shown: str, uris: Sequence[str]) -> list[str]:
    """`uris` as given, each the `skill://` URI of a SKILL.md (the caller's mistake is said before connecting)."""
    if isinstance(uris, str) or not isinstance(uris, Sequence):
        raise RemoteSkillsError(shown, f"uris= is a list of skill:// URIs, not {_bounded(repr(uris))}")
    for uri in uris:
        if not (isinstance(uri, str) and uri.startswith("skill://") and uri.endswith("/" + SKILL_FILE)):
            raise RemoteSkillsError(
                shown, f"uris= holds {_bounded(repr(uri))}: a skill's URI is the skill:// URI of its {SKILL_FILE}"
            )
    return list(uris)


def _got(connection: _Connection, uris: list[str], deadline: float) -> tuple[list[Mapping[str, Any]], list[str]]:
    """The entry of each of `uris`, by `skills/get` (SEP-2640: loading a skill by URI alone), in their order, and a
    warning for each URI the server refused or answered with another skill's entry; a server without `skills/get`
    is a `RemoteSkillsError`."""
    entries: list[Mapping[str, Any]] = []
    notes: list[str] = []
    for uri in uris:

        async def get(client: Client, uri: str = uri) -> _GotSkill:
            return await client.session.send_request(_GetSkill(params=_GetSkillParams(uri=uri)), _GotSkill)

        try:
            got = connection.call(f"skills/get {uri}", get, deadline).skill
        except _Refused as refused:
            if refused.code == METHOD_NOT_FOUND:
                raise RemoteSkillsError(
                    connection.shown, f"skills/get: the server does not support it ({refused}); it lists skills only"
                ) from None
            notes.append(_skipped(connection, {"uri": uri}, f"skills/get: the server answered {refused}"))
            continue
        if not isinstance(got, Mapping) or got.get("uri") != uri:
            said = _bounded(repr(got.get("uri") if isinstance(got, Mapping) else got))
            notes.append(_skipped(connection, {"uri": uri}, f"skills/get answered with another entry ({said})"))
            continue
        entries.append(got)
    return entries, notes


# --- the connection -----------------------------------------------------------------------------


class _Closed(Exception):
    """The session ended under a request (the server exited, the HTTP session is gone): connect again."""


class _Refused(Exception):
    """The server answered a request with an error (the caller says what that means): its `code`."""

    def __init__(self, text: str, code: int | None = None) -> None:
        super().__init__(text)
        self.code = code


class _Connection:
    """One MCP client session with the server, owned by an event loop in a daemon thread; thread-safe.

    Requests come from any thread (the harness reads files from worker threads) and run on the loop, each
    bounded by a deadline. The session is opened at the first request, and again when the server went away;
    `close()` ends it for good, `drop()` until the next request.
    """

    def __init__(
        self,
        server: str | StdioServerParameters,
        shown: str,
        timeout: float,
        headers: Mapping[str, str] | None,
        limits: Limits,
    ) -> None:
        self.shown = shown
        self._limits = limits
        self.timeout = timeout
        self._server = server
        self._headers = dict(headers) if headers else None
        self._lock = threading.Lock()
        self._portal: anyio.from_thread.BlockingPortal | None = None
        self._stack = ExitStack()
        self._held: _Session | None = None
        self._closed = False
        self._http_status = ""
        self.identity = server_identity(server)
        #: Files read and verified, for the next read of them (SEP-2640: hosts SHOULD cache verified content).
        self.verified = _Verified()

    def call(self, what: str, request: Callable[[Client], Awaitable[T]], deadline: float | None = None) -> T:
        """`request(client)` on the loop, answered before `deadline` (`timeout` from now when None)."""
        if deadline is None:
            deadline = time.monotonic() + self.timeout
        session = self._session(deadline)
        try:
            return self._run(what, session, request, deadline)
        except _Closed:
            self._forget(session)
            session = self._session(deadline)
            try:
                return self._run(what, session, request, deadline)
            except _Closed:
                self._forget(session)
                raise RemoteSkillsError(self.shown, f"{what}: the server closed the connection") from None

    def read(self, skill: str, uri: str, size: int) -> bytes:
        """The bytes of resource `uri`, of which the entry lists `size`: more than that is refused before the
        content is decoded. A refusal by the server, or content other than the entry's, is about this skill
        only: a `SkillVerificationError`, as every mismatch with the entry is."""

        async def request(client: Client) -> types.ReadResourceResult:
            return await client.read_resource(uri)

        try:
            result = self.call(f"resources/read {uri}", request)
        except _Refused as refused:
            raise SkillVerificationError(skill, uri, f"the server refused to serve it: {refused}") from None
        contents = result.contents
        if len(contents) != 1 or contents[0].uri != uri:
            got = [c.uri for c in contents][:3]
            raise SkillVerificationError(skill, uri, f"the server sent {got!r} for it, not exactly that one file")
        [content] = contents
        if isinstance(content, types.TextResourceContents):
            if len(content.text) > size:  # (a character is at least one byte)
                raise SkillVerificationError(skill, uri, f"the server sent more than the {size:,} bytes listed")
            return content.text.encode("utf-8", "surrogatepass")
        if len(content.blob) > 4 * -(-size // 3):
            raise SkillVerificationError(skill, uri, f"the server sent more than the {size:,} bytes listed")
        try:
            return base64.b64decode(content.blob, validate=True)
        except (binascii.Error, ValueError):
            raise SkillVerificationError(skill, uri, "the server sent a blob that is not base64") from None

    def drop(self) -> None:
        """End the session for now; the next request opens another."""
        with self._lock:
            held, self._held = self._held, None
        if held is not None:
            self._stop(held)

    def close(self) -> None:
        """End the session and the loop's thread for good: later requests are refused."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            held, self._held = self._held, None
        self.verified.clear()  # (a read after close is refused, as before: nothing served from memory)
        atexit.unregister(self.close)
        if held is not None:
            self._stop(held)
        try:
            self._stack.close()
        except RuntimeError:
            pass  # (the loop already ended: nothing left to stop)

    # -- inside --

    def _session(self, deadline: float) -> _Session:
        with self._lock:
            if self._closed:
                raise RemoteSkillsError(
                    self.shown, "the connection was closed (RemoteSkills.close()); call remote_skills() again"
                )
            if self._held is None:
                self._held = self._connect(deadline)
            return self._held

    def _connect(self, deadline: float) -> _Session:
        if self._portal is None:
            self._portal = self._stack.enter_context(anyio.from_thread.start_blocking_portal(name="flue-mcp-client"))
            atexit.register(self.close)
        seconds = deadline - time.monotonic()
        if seconds <= 0:
            raise RemoteSkillsError(self.shown, f"no time left to connect within {self.timeout:g} s")
        bound = Bound(reply_limit(self._limits))
        try:
            future, (client, stop) = self._portal.start_task(self._hold, seconds, bound)
        except Exception as exc:
            failure = _leaf(exc)
            if bound.refused is not None:
                raise bound.error(self.shown, "initialize") from None
            if isinstance(failure, RemoteSkillsError):
                raise failure from None
            if isinstance(failure, TimeoutError):
                raise RemoteSkillsError(self.shown, f"no answer within {self.timeout:g} s while connecting") from None
            if isinstance(failure, MCPError) and failure.error.code == CONNECTION_CLOSED:
                said = "; it says why on its standard error" if isinstance(self._server, StdioServerParameters) else ""
                raise RemoteSkillsError(
                    self.shown, f"the server closed the connection before it answered{said}"
                ) from None
            raise RemoteSkillsError(self.shown, f"cannot connect: {_failure(failure)}{self._http_status}") from None
        return _Session(client, stop, future, bound)

    async def _hold(self, seconds: float, bound: Bound, *, task_status: TaskStatus[tuple[Client, anyio.Event]]) -> None:
        """The session, open from its handshake until `stop` is set; the handshake bounded by `seconds`, every reply
        by `bound` (a reply past it cancels the session's scope: everything the session runs stops there)."""
        stop = anyio.Event()
        with bound.waiting() as scope:
            scope.deadline = anyio.current_time() + seconds
            async with AsyncExitStack() as stack:
                client = await stack.enter_async_context(self._new_client(stack, bound))
                offered = client.server_capabilities.extensions or {}
                if EXTENSION_ID not in offered:
                    raise RemoteSkillsError(
                        self.shown,
                        f"the server does not offer the Skills extension ({EXTENSION_ID}): it serves no skills "
                        "a host can verify",
                    )
                scope.deadline = math.inf
                task_status.started((client, stop))
                await stop.wait()
        if bound.refused is not None:
            raise bound.error(self.shown, "initialize")
        if scope.cancelled_caught and not stop.is_set():
            raise TimeoutError

    def _new_client(self, stack: AsyncExitStack, bound: Bound) -> Client:
        extensions = [advertise(EXTENSION_ID)]
        if isinstance(self._server, StdioServerParameters):
            if sys.platform == "win32":  # (the SDK's own, with its Windows job objects: lines not bounded there)
                return Client(self._server, cache=None, extensions=extensions)
            return Client(stdio_transport(self._server, bound), cache=None, extensions=extensions)
        http = count_replies(create_mcp_http_client(headers=self._headers), bound)
        stack.push_async_callback(http.aclose)
        http.event_hooks["response"].append(self._note_status)
        # Each event is counted by `bound` before the SDK's parser sees it, which then holds no more than it was
        # given: its own bound is left above ours (a byte it cannot decode grows to three), never to trip first.
        transport = streamable_http_client(self._server, http_client=http, max_sse_event_size=3 * bound.limit + 16)
        return Client(transport, cache=None, extensions=extensions)

    async def _note_status(self, response: Any) -> None:
        """The last HTTP error status, for messages (the SDK's error says only that there was one)."""
        if response.status_code >= 400:
            self._http_status = f" (HTTP {response.status_code} {response.reason_phrase})"

    def _run(self, what: str, session: _Session, request: Callable[[Client], Awaitable[T]], deadline: float) -> T:
        assert self._portal is not None
        seconds = deadline - time.monotonic()

        async def bounded() -> T:
            with session.bound.waiting():
                with anyio.fail_after(max(seconds, 0)):
                    return await request(session.client)
            raise _Closed  # (cancelled by a reply refused for its bytes: said below)

        self._http_status = ""
        try:
            return self._portal.call(bounded)
        except Exception as exc:
            if session.bound.refused is None:
                raise self._meaning(what, exc) from None
        self._forget(session)  # (its tasks were cancelled where they read: no use for another request)
        raise session.bound.error(self.shown, what)

    def _meaning(self, what: str, exc: Exception) -> Exception:
        """What a request's failure means: `_Closed` (connect again), `_Refused` (the server said no) or a
        `RemoteSkillsError`."""
        if isinstance(exc, TimeoutError):
            return RemoteSkillsError(self.shown, f"{what}: no answer within {self.timeout:g} s")
        if isinstance(exc, MCPError):
            if exc.error.code == CONNECTION_CLOSED:
                return _Closed()
            return _Refused(_bounded(f"error {exc.error.code}: {exc}{self._http_status}"), exc.error.code)
        if isinstance(exc, (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream)):
            return _Closed()
        if isinstance(exc, ValidationError):
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "the result"
            return RemoteSkillsError(self.shown, f"{what}: a malformed answer: {where}: {first['msg']}")
        if isinstance(exc, (_Closed, _Refused, RemoteSkillsError)):
            return exc
        return RemoteSkillsError(self.shown, f"{what}: {_failure(exc)}{self._http_status}")

    def _forget(self, session: _Session) -> None:
        with self._lock:
            held = self._held if self._held is session else None
            if held is not None:
                self._held = None
        if held is not None:
            self._stop(held)

    def _stop(self, held: _Session) -> None:
        """Let the session's task leave its `async with` (a stdio server is stopped and reaped), bounded."""
        if self._portal is None:
            return
        try:
            self._portal.call(held.stop.set)
            held.future.result(timeout=self.timeout)
        except (FutureTimeout, RuntimeError):
            pass  # the loop is stopping anyway: its cancellation stops what is left
        except Exception:  # noqa: S110  (how the old session ended no longer matters)
            pass


class _Verified:
    """Files read from the server and verified against their entries, by URI and digest, within a byte budget
    (the least recently read dropped first): a file whose entry lists the same digest is not read again. Kept in
    this process's memory only: nothing but the host can change them."""

    def __init__(self, budget: int = BUDGET) -> None:
        self.budget = budget
        self.used = 0
        self._kept: OrderedDict[tuple[str, str], bytes] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, uri: str, sha256: str | None) -> bytes | None:
        if sha256 is None:
            return None
        with self._lock:
            data = self._kept.get((uri, sha256))
            if data is not None:
                self._kept.move_to_end((uri, sha256))
            return data

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()
            self.used = 0

    def keep(self, uri: str, sha256: str, data: bytes) -> None:
        if len(data) > self.budget:
            return
        with self._lock:
            if (uri, sha256) in self._kept:
                return
            self._kept[(uri, sha256)] = data
            self.used += len(data)
            while self.used > self.budget:
                _, dropped = self._kept.popitem(last=False)
                self.used -= len(dropped)


@dataclass(frozen=True)
class _Session:
    """A session with the server: its client, what ends it, the task holding it, the bound on its replies."""

    client: Client
    stop: anyio.Event
    future: Future[None]
    bound: Bound


# --- targets ------------------------------------------------------------------------------------


def server_identity(server: str | StdioServerParameters) -> str:
    """A short key of the server (`mcp-` and 16 hex digits of a SHA-256): of an URL without its user and password
    (scheme and host lowercased), of a command with its arguments, working directory and environment. Two servers
    differ in it, so no path where their skills' files are materialized is shared (SEP-2640)."""
    if isinstance(server, str):
        parts = urlsplit(server)
        host = (parts.hostname or "") + (f":{parts.port}" if parts.port else "")
        said: object = ["url", parts.scheme.lower(), host, parts.path, parts.query]
    else:
        env = sorted(server.env.items()) if server.env else None
        said = ["stdio", server.command, list(server.args), str(server.cwd) if server.cwd else None, env]
    digest = hashlib.sha256(json.dumps(said, ensure_ascii=False).encode("utf-8", "surrogatepass")).hexdigest()
    return "mcp-" + digest[:16]


def _server(target: Target, headers: Mapping[str, str] | None) -> tuple[str | StdioServerParameters, str]:
    """What to connect to, and how messages name it (an URL without its credentials or query)."""
    if isinstance(target, str):
        parts = urlsplit(target)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise RemoteSkillsError(
                _bounded(f"MCP server {target!r}"),
                "a target is an http(s):// URL, a command as a list of strings, or StdioServerParameters",
            )
        host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
        port = f":{parts.port}" if parts.port else ""
        return target, _bounded(f"MCP server {parts.scheme}://{host}{port}{parts.path}")
    if headers:
        raise RemoteSkillsError(_bounded(f"MCP server {target!r}"), "headers= go with an http(s):// URL only")
    if isinstance(target, StdioServerParameters):
        return target, _bounded(f"MCP server `{shlex.join([target.command, *target.args])}`")
    if isinstance(target, Sequence) and target and all(isinstance(part, str) for part in target):
        command = list(target)
        return StdioServerParameters(command=command[0], args=command[1:]), _bounded(
            f"MCP server `{shlex.join(command)}`"
        )
    raise RemoteSkillsError(
        _bounded(f"MCP server {target!r}"),
        "a target is an http(s):// URL, a command as a non-empty list of strings, or StdioServerParameters",
    )


def _bounded(text: str) -> str:
    text = _one_line(text)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _one_line(text: str) -> str:
    """`text` with control characters escaped: a server's words never move a terminal's cursor."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _leaf(exc: BaseException) -> BaseException:
    """The first exception of a group (a task group's), or `exc`."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _failure(exc: BaseException) -> str:
    """An exception in a few words."""
    exc = _leaf(exc)
    text = str(exc) or type(exc).__name__
    return _bounded(f"{type(exc).__name__}: {text}" if not text.startswith(type(exc).__name__) else text)


__all__ = ["FROM", "FROM_LINE", "UNVERIFIED", "RemoteSkills", "remote_skills", "server_identity"]
