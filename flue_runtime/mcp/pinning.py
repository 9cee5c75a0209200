"""Pinning what a remote MCP server serves: `remote_skills(..., lock=PATH, update_lock=...)`.

The lock file (`format.lockfile`, its `remote` table) holds, per server identity (`mcp.remote.server_identity`), each
skill's `skill://` URI, its name and its content digest: the content id of the files its entry lists (path,
size, SHA-256), the digest a wheel's manifest would record for the same files. A listed skill is mounted from its
entry alone and every byte read later is checked against that entry (`mcp.host`), so the entry's digest binds the
content: comparing it with the lock decides before a byte of the skill is read.

- `update_lock=True`: every skill the server serves now is pinned (a listing replaces the server's pins; `uris=`
  adds or replaces those URIs' pins), and mounted.
- otherwise: a skill the lock does not hold, or whose digest differs from the pinned one, is left out with a
  `SkillWarning` naming it and both digests; the others are mounted.

A dynamic skill (its entry lists no files, so no digest) cannot be pinned: under a lock it is left out, said so.
"""

from __future__ import annotations

from collections.abc import Collection
from os import PathLike
from pathlib import Path

from flue_runtime.errors import RemoteSkillsError
from flue_runtime.format.lockfile import Lock, Pinned, read_lock
from flue_runtime.mount.reference import SkillReference

__all__ = ["Pins", "pins_for"]


def pins_for(lock: str | PathLike[str] | None, update_lock: bool, shown: str) -> Pins | None:
    """The pins of `lock` (read and checked now, before any server is started), or None without a lock."""
    if lock is None:
        if update_lock:
            raise RemoteSkillsError(shown, "update_lock=True needs lock=PATH, the lock file to record the pins in")
        return None
    return Pins(read_lock(Path(lock)), update_lock)


class Pins:
    """A lock's pins, applied to one server's skills (or recorded from them, with `update`)."""

    def __init__(self, lock: Lock, update: bool) -> None:
        self.lock = lock
        self.update = update

    def apply(
        self,
        identity: str,
        shown: str,
        skills: list[tuple[str, SkillReference]],
        *,
        dynamic: Collection[str],
        whole: bool,
    ) -> tuple[list[tuple[str, SkillReference]], list[str]]:
        """The skills (URI, skill) to mount and why each other one is left out. `whole`: `skills` is the server's
        whole listing (its pins are replaced when updating), else the skills of some URIs (their pins are added)."""
        notes = [
            f"{shown}: skill {uri!r} not mounted: it is served as dynamic content, without digests to pin it by"
            for uri, _ in skills
            if uri in dynamic
        ]
        pinnable = [(uri, skill) for uri, skill in skills if uri not in dynamic]
        if self.update:
            self._record(identity, shown, pinnable, whole)
            return pinnable, notes
        server = self.lock.servers.get(identity)
        pinned = server.skills if server is not None else {}
        kept = []
        for uri, skill in pinnable:
            pin = pinned.get(uri)
            if pin is not None and pin.digest == skill.id:
                kept.append((uri, skill))
            elif pin is None:
                notes.append(
                    f"{shown}: skill {uri!r} not mounted: not in the lock {self.lock.path} (it serves digest "
                    f"{skill.id}); pin it with remote_skills(..., update_lock=True) or `flue-skills lock`"
                )
            else:
                notes.append(
                    f"{shown}: skill {uri!r} ({skill.name}) not mounted: its content changed since it was pinned: "
                    f"the lock {self.lock.path} has digest {pin.digest}, the server serves {skill.id}; review it, "
                    "then pin it again with remote_skills(..., update_lock=True) or `flue-skills lock`"
                )
        return kept, notes

    def _record(self, identity: str, shown: str, skills: list[tuple[str, SkillReference]], whole: bool) -> None:
        self.lock = read_lock(self.lock.path)  # (as it is now: another table may have changed meanwhile)
        server = self.lock.servers.get(identity)
        pins = {} if whole or server is None else dict(server.skills)
        pins.update((uri, Pinned(skill.name, skill.id)) for uri, skill in skills)
        self.lock = self.lock.with_server(identity, _committed(shown), pins)
        self.lock.write()


def _committed(shown: str) -> str:
    """How the lock names a server, for a reader: a URL as messages show it (no user, password or query), a stdio
    server by its program alone. A lock is committed: a token among a command's arguments must not be (the
    identity, a digest of the whole command, still tells two commands apart)."""
    prefix, tick, rest = shown.partition("`")
    if not tick:
        return shown
    words = rest.rstrip("`").split(" ", 1)
    return f"{prefix}`{words[0]}{' …' if len(words) > 1 else ''}`"
