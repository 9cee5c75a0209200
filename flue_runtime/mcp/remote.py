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

A skill the rules refuse is skipped with a `SkillWarning` naming the server, the skill and why: it is never
half mounted, and the others are mounted. A server that cannot be used (unreachable, no answer within
`timeout`, no Skills extension, a malformed listing) is a `RemoteSkillsError` and nothing is mounted.

This module mounts; each other concern is a module of its own:

- `mcp.remote_connection`: what to connect to, its `server_identity`, and the session (an event loop in a
  daemon thread, opened again when the server went away, closed by `RemoteSkills.close()` or at exit), every
  reply bounded in bytes before it is parsed (`mcp.replies`);
- `mcp.remote_listing`: `skills/list` (every page) and `skills/get` (a skill loaded by URI alone);
- `mcp.remote_source`: one skill as a source, its reads `resources/read` checked by `mcp.host`, mounted from its
  entry and loaded at first need, in every path under its server's identity;
- `mcp.contents.Kept`: the verified files kept in memory by URI and digest, so a file is read from the server once.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from os import PathLike
from types import TracebackType
from typing import Any

from flue_runtime.agents.scripts import forget_copies
from flue_runtime.errors import RemoteSkillsError, SkillError, SkillVerificationError, SkillWarning
from flue_runtime.format.records import SKILL_FILE, PackedFile
from flue_runtime.format.validate import check_fields
from flue_runtime.format.vetting import DEFAULT_LIMITS, Limits
from flue_runtime.mcp.host import check_entry
from flue_runtime.mcp.pinning import Pins, pins_for
from flue_runtime.mcp.remote_connection import Connection, Target, server_identity, server_of
from flue_runtime.mcp.remote_listing import asked_uris, get_skills, list_skills, skipped
from flue_runtime.mcp.remote_source import FROM, FROM_LINE, UNVERIFIED, MountedRemoteSkill, RemoteSkill
from flue_runtime.mount.reference import SkillReference
from flue_runtime.mount.sources import vet_catalog, vet_listing


class RemoteSkills(tuple[SkillReference, ...]):
    """The skills a server serves, mounted: a tuple of `SkillReference`s to give `use_skill`, `skills_server` or
    an adapter, and the connection their support files are read through. `close()` (or leaving a `with` block)
    ends it; a read after that is refused. `server` names the server as messages do; `identity` is its key in
    every path where its skills' files are materialized (`server_identity`)."""

    server: str
    identity: str
    _connection: Connection

    def __new__(cls, skills: Iterable[SkillReference], connection: Connection) -> RemoteSkills:
        made = super().__new__(cls, skills)
        made.server = connection.shown
        made.identity = connection.identity
        made._connection = connection
        return made

    def close(self, *, forget: bool = False) -> None:
        """End the connection (a stdio server is stopped and reaped); the skills' files can no longer be read.
        The verified copies their scripts ran from stay in the cache folder (checked again before any later run)
        unless `forget`: then every copy of this server's skills is removed (`forget_server`)."""
        self._connection.close()
        if forget:
            forget_server(self.identity)

    def __enter__(self) -> RemoteSkills:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def forget_server(identity: str) -> int:
    """Remove every copy of the skills of the server `identity` (`RemoteSkills.identity`, `server_identity`) that a
    host keeps on disk: the verified copies their scripts ran from, in the cache folder (`agents.scripts`). For a
    server the user removed (SEP-2640: hosts SHOULD remove its cached skill content), after a restart too. Returns
    how many copies were removed; `FlueError` for a key that is not a server's identity."""
    return forget_copies(identity)


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
    a `RemoteSkillsError` saying so. `uris`: the URIs of the SKILL.md of the skills to mount
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
    server, shown = server_of(target, headers)
    if not (isinstance(timeout, (int, float)) and 0 < timeout < math.inf):
        raise RemoteSkillsError(shown, f"timeout must be a positive number of seconds, not {timeout!r}")
    asked = None if uris is None else asked_uris(shown, uris)
    pins = pins_for(lock, update_lock, shown)
    connection = Connection(server, shown, float(timeout), headers, limits)
    try:
        deadline = time.monotonic() + timeout
        entries, notes = (
            (list_skills(connection, deadline), []) if asked is None else get_skills(connection, asked, deadline)
        )
        mounted, said = mount_entries(
            connection, entries, allow_dynamic=allow_dynamic, limits=limits, pins=pins, whole=asked is None
        )
        notes.extend(said)
        for note in notes:
            warnings.warn(note, SkillWarning, stacklevel=2)
    except BaseException:
        connection.close()
        raise
    if not mounted:
        connection.drop()  # nothing left to read: no server kept waiting (a read would connect again)
    return RemoteSkills(mounted, connection)


def mount_entries(
    connection: Connection,
    entries: Sequence[Mapping[str, Any]],
    *,
    allow_dynamic: bool,
    limits: Limits,
    pins: Pins | None = None,
    whole: bool = True,
) -> tuple[list[SkillReference], list[str]]:
    """The skills of a listing's entries (each as the server sent it), mounted from the entries alone (nothing is
    read), in their order, colliding names labelled; and a warning for each entry left out, saying why.

    `pins`: what a lock file pins (`mcp.pinning`), applied to the entries before a byte of a skill is read;
    `whole`: the entries are the server's whole listing (not skills asked by URI), so the lock may be rewritten
    for that server."""
    roots = {_root_of(entry) for entry in entries if _valid(entry)}
    skills: list[tuple[str, SkillReference]] = []
    notes: list[str] = []
    seen: set[str] = set()
    for entry in entries:
        uri = entry.get("uri")
        if isinstance(uri, str) and uri in seen:
            notes.append(skipped(connection, entry, "listed twice: the first entry of that URI is the one used"))
            continue
        if isinstance(uri, str):
            seen.add(uri)
        skill, said = _mount(connection, entry, roots, allow_dynamic=allow_dynamic, limits=limits)
        skills.extend([(str(entry["uri"]), skill)] if skill is not None else [])
        notes.extend(said)
    if pins is not None:
        dynamic = {str(entry.get("uri")) for entry in entries if entry.get("resources") == "dynamic"}
        skills, said = pins.apply(connection.identity, connection.shown, skills, dynamic=dynamic, whole=whole)
        notes.extend(said)
    mounted, said = _labelled(connection, skills)
    return mounted, [*notes, *said]


# --- one skill ----------------------------------------------------------------------------------


def _mount(
    connection: Connection,
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
        return None, [skipped(connection, entry, f"{refused}{hint}")]
    root = _root_of(entry)
    outer = next((other + SKILL_FILE for other in sorted(roots) if other != root and root.startswith(other)), None)
    if outer is not None:
        reason = (
            f"it sits inside the folder of skill {outer}: a SKILL.md inside another skill is a file of that skill, "
            "never a skill of its own"
        )
        return None, [skipped(connection, entry, reason)]
    dynamic = entry.get("resources") == "dynamic"
    source = RemoteSkill(connection, entry, dynamic=dynamic)
    try:
        notes: list[str] = []
        files: tuple[PackedFile, ...] | None = None
        if dynamic:  # (no file list to vet: its SKILL.md alone, fetched at first need)
            fields = vet_catalog(source, entry["frontmatter"])
        else:
            fields, files, notes = vet_listing(source, entry["frontmatter"], limits=limits)
    except SkillError as refused:
        return None, [skipped(connection, entry, str(refused))]
    said = fields.description + FROM.format(origin=source.describe(), identity=source.identity)
    said += UNVERIFIED if dynamic else ""
    listed = MountedRemoteSkill(source, fields, files, limits)
    return SkillReference(replace(fields, description=said), listed, known_id=listed.known_id), notes


def _labelled(
    connection: Connection, skills: list[tuple[str, SkillReference]]
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
    parents = [[s for s in uri.split("://", 1)[-1].split("/")[:-2] if s] for uri in uris]
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


__all__ = [
    "FROM",
    "FROM_LINE",
    "UNVERIFIED",
    "RemoteSkills",
    "forget_server",
    "mount_entries",
    "remote_skills",
    "server_identity",
]
