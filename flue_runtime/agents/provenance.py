"""What the model saw, turn by turn: the catalog each model turn rendered and every skill file served.

Each model turn of a prompt leaves a `Turn`: the catalog the harness rendered for it (each mounted
skill's name, origin and content id) and what the tools served after its answer, in order: an
activation (SKILL.md), a page of a support file, a script run, each with the skill's content id and
the SHA-256 of the file as vetted. A remote skill's records keep its server's identity (`server`, what its
approvals and virtual paths are keyed on) beside the origin shown to people, so two servers the same text
names (one command in two environments) are recorded apart. Activations the application made (`prompt(..., activate=[...])`)
belong to the prompt's first turn and are marked `explicit`. The session store keeps the turns
with the session (`Session.provenance()`, `store.turns(session_id)`).

The skill tools report what they serve through `served`, which finds the tool call it belongs to in a
context variable the harness sets around each call (`recording`): a host without one (an MCP
server, an adapter) records nothing. With OpenTelemetry enabled (`flue_runtime.agents.telemetry`), the
same call is a span.
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from flue_runtime.format.records import SKILL_FILE

if TYPE_CHECKING:  # annotations only: recording must not import the mount layer's machinery at run time
    from flue_runtime.mount.reference import SkillReference

__all__ = ["CatalogEntry", "Served", "Turn", "catalog_of", "recording", "served"]

Kind = Literal["activation", "read", "script"]


@dataclass(frozen=True)
class CatalogEntry:
    """One skill of a turn's catalog: its name (as mounted), where it came from (as shown to people) and its content
    id; `server`: the identity of the server that serves it (`mount.vfs.identity_of`), None for the application's
    own skill, and for a turn recorded before identities were kept."""

    name: str
    origin: str
    digest: str
    server: str | None = None

    def to_dict(self) -> dict[str, str | None]:
        return {"name": self.name, "origin": self.origin, "digest": self.digest, "server": self.server}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CatalogEntry:
        return cls(str(data["name"]), str(data["origin"]), str(data["digest"]), _server(data))


@dataclass(frozen=True)
class Served:
    """One skill file served to the model: by an activation, a read of a support file, or a script run.

    `digest` is the skill's content id (every file's path and bytes), `sha256` the file's as vetted;
    `tool_call_id` the call it answered; `explicit` for an activation the application made; `origin` where the
    skill came from as shown to people, `server` the identity of the server that serves it (None for the
    application's own skill, and for a turn recorded before identities were kept)."""

    kind: Kind
    skill: str
    origin: str
    digest: str
    path: str
    sha256: str
    tool_call_id: str | None = None
    explicit: bool = False
    server: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "skill": self.skill,
            "origin": self.origin,
            "digest": self.digest,
            "path": self.path,
            "sha256": self.sha256,
            "tool_call_id": self.tool_call_id,
            "explicit": self.explicit,
            "server": self.server,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Served:
        return cls(
            data["kind"],
            str(data["skill"]),
            str(data["origin"]),
            str(data["digest"]),
            str(data["path"]),
            str(data["sha256"]),
            data.get("tool_call_id"),
            bool(data.get("explicit", False)),
            _server(data),
        )


def _server(data: Mapping[str, Any]) -> str | None:
    """A record's server identity: absent from one recorded before identities were kept."""
    server = data.get("server")
    return None if server is None else str(server)


@dataclass(frozen=True)
class Turn:
    """One model turn: `message` is the index, in the session's messages, of the model's answer; `step` the
    turn's place in its prompt (0 first); `at` when the answer came (Unix time)."""

    step: int
    message: int
    at: float
    catalog: tuple[CatalogEntry, ...] = ()
    served: tuple[Served, ...] = ()

    @property
    def activations(self) -> list[Served]:
        return [s for s in self.served if s.kind == "activation"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "message": self.message,
            "at": self.at,
            "catalog": [entry.to_dict() for entry in self.catalog],
            "served": [item.to_dict() for item in self.served],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Turn:
        return cls(
            int(data["step"]),
            int(data["message"]),
            float(data["at"]),
            tuple(CatalogEntry.from_dict(e) for e in data.get("catalog", ())),
            tuple(Served.from_dict(s) for s in data.get("served", ())),
        )

    @classmethod
    def now(cls, step: int, message: int, catalog: Sequence[CatalogEntry], served: Sequence[Served]) -> Turn:
        return cls(step, message, time.time(), tuple(catalog), tuple(served))


def catalog_of(skills: Sequence[SkillReference]) -> list[CatalogEntry]:
    """The catalog entries of `skills`, in catalog order."""
    from flue_runtime.mount.vfs import identity_of  # (at the first turn: recording imports no mount machinery)

    return [CatalogEntry(skill.name, skill.origin, skill.id, identity_of(skill)) for skill in skills]


class Observer(Protocol):
    """Told what a tool call served as it serves it (a span, `flue_runtime.agents.telemetry.SkillSpan`)."""

    def served(self, item: Served, skill: SkillReference) -> None: ...


@dataclass
class _Call:
    """The tool call running in this context: where what it serves is recorded, and its span if traced."""

    sink: list[Served]
    call_id: str | None
    explicit: bool = False
    span: Observer | None = None
    seen: list[Served] = field(default_factory=list)


_current: contextvars.ContextVar[_Call | None] = contextvars.ContextVar("flue_provenance_call", default=None)


@contextlib.contextmanager
def recording(
    sink: list[Served], call_id: str | None, *, explicit: bool = False, span: Observer | None = None
) -> Iterator[_Call]:
    """Record into `sink` what the skill tools serve while the block runs (a tool call `call_id`)."""
    call = _Call(sink, call_id, explicit, span)
    token = _current.set(call)
    try:
        yield call
    finally:
        _current.reset(token)


def served(kind: Kind, skill: SkillReference, path: str = SKILL_FILE) -> None:
    """Report that the skill tools served `path` of `skill` (`kind`); nothing happens outside `recording`."""
    call = _current.get()
    if call is None:
        return
    files = skill.verdict if kind == "script" else skill.files
    sha256 = next((f.sha256 for f in files if f.path == path), "")
    from flue_runtime.mount.vfs import identity_of  # (at the first file served: see `catalog_of`)

    server = identity_of(skill)
    item = Served(kind, skill.name, skill.origin, skill.id, path, sha256, call.call_id, call.explicit, server)
    call.sink.append(item)
    call.seen.append(item)
    if call.span is not None:
        call.span.served(item, skill)
