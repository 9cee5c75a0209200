"""The lock file, `flue-skills.lock`: the content digests a project published and pinned, one TOML file for both.

    version = 1

    [publish.anthropic.refunds]          # what `flue-skills publish --to anthropic` made of skill `refunds`
    id = "skill_01..."                   # the service's id of the skill
    version = "skillver_01..."           # its version holding these bytes (OpenAI: "1", "2", ...)
    digest = "0123456789abcdef"          # the skill's content id (`format.records.content_id`)

    [remote.mcp-0123456789abcdef]        # a remote MCP server, by `mcp.remote.server_identity`
    server = "MCP server https://..."    # how messages name it (no credentials), for a reader
    [remote.mcp-0123456789abcdef."skill://acme/refunds/SKILL.md"]
    name = "refunds"
    digest = "0123456789abcdef"          # the content id of its entry's manifest, as pinned

The digest is the one a wheel's manifest records for a skill: the same files give the same digest wherever they
are. Read strictly (a lock is input: every value of the right kind, a malformed one a `LockFileError` naming the
file and line); written whole, with sorted keys (the same content, the same bytes), to a temporary file renamed
over the old one, so a reader never sees half a lock. Writing uses tomli-w (the `anthropic`, `openai` and `mcp`
extras bring it): reading is `tomllib`'s.
"""

from __future__ import annotations

import os
import re
import tempfile
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NoReturn

from flue_runtime.errors import LockFileError
from flue_runtime.format.config import PYPROJECT
from flue_runtime.format.records import is_content_id

__all__ = ["LOCK_FILE", "Lock", "Pinned", "Published", "Server", "default_lock", "read_lock"]

LOCK_FILE = "flue-skills.lock"
FORMAT = 1
_HEADER = (
    "# flue-skills lock file: the content digests of the skills this project published (flue-skills publish) and\n"
    "# pinned (remote_skills(..., lock=), flue-skills lock). Written by flue-skills; review its changes like code.\n"
)
_IDENTITY = re.compile(r"mcp-[0-9a-f]{16}")


@dataclass(frozen=True)
class Published:
    """A skill as a hosted service holds it: its id there, the version holding these bytes, their digest."""

    id: str
    version: str
    digest: str


@dataclass(frozen=True)
class Pinned:
    """A remote server's skill as pinned: its name then, its content digest."""

    name: str
    digest: str


@dataclass(frozen=True)
class Server:
    """A remote server's pins: how it was shown, and each skill by the URI of its SKILL.md."""

    shown: str
    skills: Mapping[str, Pinned]


@dataclass(frozen=True)
class Lock:
    """What a lock file holds, and where it lives; changed only by making another (`with_...`) and `write()`."""

    path: Path
    #: service -> skill name -> what was published.
    published: Mapping[str, Mapping[str, Published]] = field(default_factory=dict)
    #: server identity -> its pins.
    servers: Mapping[str, Server] = field(default_factory=dict)

    def with_published(self, service: str, skill: str, entry: Published) -> Lock:
        table = {**self.published.get(service, {}), skill: entry}
        return replace(self, published={**self.published, service: table})

    def with_server(self, identity: str, shown: str, skills: Mapping[str, Pinned]) -> Lock:
        return replace(self, servers={**self.servers, identity: Server(shown, dict(skills))})

    def write(self) -> None:
        """The lock to `path`, atomically: a temporary file beside it, renamed over it."""
        import tomli_w  # (only where a lock is written: publishing, pinning)

        text = _HEADER + tomli_w.dumps(self._document())
        folder = self.path.parent
        handle, temporary = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=folder)
        try:
            with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
                out.write(text)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(temporary, _mode(self.path))
            os.replace(temporary, self.path)
        except BaseException:
            os.unlink(temporary)
            raise

    def _document(self) -> dict[str, Any]:
        document: dict[str, Any] = {"version": FORMAT}
        if self.published:
            document["publish"] = {
                service: {name: vars(entry) for name, entry in sorted(skills.items())}
                for service, skills in sorted(self.published.items())
            }
        if self.servers:
            document["remote"] = {
                identity: {
                    "server": server.shown,
                    **{uri: vars(pin) for uri, pin in sorted(server.skills.items())},
                }
                for identity, server in sorted(self.servers.items())
            }
        return document


def _mode(path: Path) -> int:
    """The old lock's permissions, or a new file's usual ones (a lock is committed, read by everyone)."""
    try:
        return os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        return 0o644


def default_lock(start: Path | None = None) -> Path:
    """`flue-skills.lock` beside the nearest pyproject.toml at or above `start` (the current folder), else in it."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / PYPROJECT).is_file():
            return folder / LOCK_FILE
    return here / LOCK_FILE


def read_lock(path: Path) -> Lock:
    """The lock at `path`, every value checked; an empty one when there is no file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Lock(path)
    except UnicodeDecodeError:
        raise LockFileError(path, 1, "not UTF-8 text: a lock file is TOML") from None
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"at line (\d+)", str(exc))
        line = int(found.group(1)) if found else text.count("\n") + 1
        raise LockFileError(path, line, f"invalid TOML: {str(exc).split(' (at ')[0]}") from None
    return _Reader(path, text).lock(document)


class _Reader:
    """The document's values checked one by one; a problem names the line of the key or table it is about."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.lines = text.splitlines()

    def lock(self, document: dict[str, Any]) -> Lock:
        version = document.get("version")
        if version != FORMAT:
            said = "has no `version`" if version is None else f"is version {version!r}"
            self.fail(("version",), f"the lock {said}; this flue-skills reads version {FORMAT} (a newer one wrote it?)")
        for key in document:
            if key not in ("version", "publish", "remote"):
                self.fail((key,), f"unknown key {key!r}: a lock holds `version`, `publish` and `remote`")
        published = {
            service: {
                name: self.published(("publish", service, name), entry)
                for name, entry in self.table(skills, ("publish", service)).items()
            }
            for service, skills in self.table(document.get("publish", {}), ("publish",)).items()
        }
        servers = {
            identity: self.server(identity, entries)
            for identity, entries in self.table(document.get("remote", {}), ("remote",)).items()
        }
        return Lock(self.path, published, servers)

    def published(self, keys: tuple[str, ...], entry: object) -> Published:
        table = self.table(entry, keys)
        return Published(self.text(table, keys, "id"), self.text(table, keys, "version"), self.digest(table, keys))

    def server(self, identity: str, entries: object) -> Server:
        keys = ("remote", identity)
        if not _IDENTITY.fullmatch(identity):
            self.fail(keys, f"{identity!r} is not a server identity (mcp- and 16 hex digits, as remote_skills keys it)")
        table = self.table(entries, keys)
        pins = {}
        for uri, pin in table.items():
            if uri == "server":
                continue
            if not uri.startswith("skill://"):
                self.fail((*keys, uri), f"{uri!r} is not the skill:// URI of a skill's SKILL.md")
            pinned = self.table(pin, (*keys, uri))
            pins[uri] = Pinned(self.text(pinned, (*keys, uri), "name"), self.digest(pinned, (*keys, uri)))
        return Server(self.text(table, keys, "server"), pins)

    def table(self, value: object, keys: tuple[str, ...] = ()) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(keys, f"`{'.'.join(keys)}` must be a table")
        return value

    def text(self, table: dict[str, Any], keys: tuple[str, ...], key: str) -> str:
        value = table.get(key)
        if not isinstance(value, str) or not value:
            said = "is missing" if value is None else f"is {value!r}"
            self.fail((*keys, key), f"`{key}` of `{'.'.join(keys)}` {said}: it must be a non-empty string")
        return value

    def digest(self, table: dict[str, Any], keys: tuple[str, ...]) -> str:
        value = self.text(table, keys, "digest")
        if not is_content_id(value):
            self.fail((*keys, "digest"), f"`digest` of `{'.'.join(keys)}` is {value!r}, not 16 lowercase hex digits")
        return value

    def fail(self, keys: tuple[str, ...], reason: str) -> NoReturn:
        raise LockFileError(self.path, self.line_of(keys), reason)

    def line_of(self, keys: tuple[str, ...]) -> int:
        """The line of the key `keys` names: its own `key = ...` line inside its table's header, else the header of
        the deepest table on its path, else 1."""
        best, header = 1, tuple[str, ...]()
        for number, line in enumerate(self.lines, 1):
            stripped = line.strip()
            if stripped.startswith("["):
                header = _keys(stripped)
                if header and tuple(keys[: len(header)]) == header and len(header) <= len(keys):
                    best = number
            elif "=" in stripped and tuple(keys[:-1]) == header and _keys(stripped.split("=", 1)[0]) == keys[-1:]:
                return number
        return best


def _keys(text: str) -> tuple[str, ...]:
    """The dotted key of a table header (`[a."b.c"]`) or of a key (`digest `), as TOML reads it; () if none."""
    inner = text.strip().strip("[]").strip()
    try:
        parsed: Any = tomllib.loads(f"{inner} = 0")
    except tomllib.TOMLDecodeError:
        return ()
    keys: list[str] = []
    while isinstance(parsed, dict) and len(parsed) == 1:
        [(key, parsed)] = parsed.items()
        keys.append(key)
    return tuple(keys)
