"""Publish vetted skills where the models run: Anthropic's and OpenAI's hosted skills, once per change.

`publish(skills, to=...)` uploads exactly each skill's vetted files (`preflight.upload`: read through the skill and
checked against the digests its manifest records) through the service's official SDK (`hosted`), and records in the
lock file (`format.lockfile`) the service's id of each skill, the version holding its bytes and their digest. A skill
the lock holds with the same digest, whose latest version there is the one the lock names, is left alone: no
request that writes. A skill whose digest changed here, or whose latest version there is another (someone changed it
out of band), gets one new version (the default, on OpenAI); one the lock lacks, or the service no longer has, is
created. The lock is written after each request that succeeded, so a failure half-way leaves it saying what was
done, and the next run does the rest; a lock that cannot be written stops the run before any request.

Before any request, every skill is checked against the service's rules (`preflight.refusals`); when one is refused,
nothing is sent for any (a release publishes the set it was given, or nothing, and one run says every problem).
`check=True` compares instead and sends nothing that writes: a skill is "drifted" when it changed here, changed
there, or was never published. `dry_run=True` says what publishing would do, and sends nothing that writes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from os import PathLike
from pathlib import Path
from typing import Any, Literal

from flue_runtime.errors import PublishError
from flue_runtime.format.lockfile import Lock, Published, default_lock, read_lock
from flue_runtime.mount.reference import SkillReference
from flue_runtime.publish.hosted import Service, connect
from flue_runtime.publish.preflight import SERVICES, Upload, refusals, upload

__all__ = ["Action", "Outcome", "PublishReport", "publish"]

Action = Literal["created", "updated", "unchanged", "would create", "would update", "in sync", "drifted"]


@dataclass(frozen=True)
class Outcome:
    """One skill on one service: its id and version there (None before it is created), its digest, what was done
    (or would be, or what `check` found) and why."""

    skill: str
    service: str
    id: str | None
    version: str | None
    digest: str
    action: Action
    why: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class PublishReport:
    """What `publish` did (or would do, or found) for each skill, in the order given, and the lock it used."""

    service: str
    lock: Path
    outcomes: tuple[Outcome, ...]

    @property
    def drifted(self) -> tuple[Outcome, ...]:
        """The skills `check` found out of sync with the lock or the service."""
        return tuple(o for o in self.outcomes if o.action == "drifted")


def publish(
    skills: Iterable[SkillReference],
    *,
    to: str,
    lock: str | PathLike[str] | None = None,
    check: bool = False,
    dry_run: bool = False,
    client: Any = None,
    progress: Callable[[Outcome], None] | None = None,
) -> PublishReport:
    """Publish `skills` to service `to` ("anthropic" or "openai"), as the module says.

    `lock`: the lock file (default: `flue-skills.lock` beside the nearest pyproject.toml). `client`: the SDK's
    client to use (`anthropic.Anthropic(...)`, `openai.OpenAI(...)`), else one the SDK makes from its variables.
    `progress` is called with each skill's outcome as soon as it is known. Raises `PublishError` (a skill that
    cannot be published as it is; nothing sent), `HostedServiceError` (the service refused or could not be reached;
    the lock holds what was done), `LockFileError`.
    """
    if to not in SERVICES:
        raise PublishError([f"no hosted skills service {to!r}: choose one of {', '.join(SERVICES)}"])
    if check and dry_run:
        raise PublishError(["check=True already sends nothing that writes: pass check or dry_run, not both"])
    uploads = _checked(list(skills), to)
    path = Path(lock) if lock is not None else default_lock()
    state = _State(read_lock(path), connect(to, client), to)
    if not (check or dry_run):
        state.lock.write()  # the lock can be written: nothing is created there that it could not record
    outcomes = []
    for made in uploads:
        outcome = state.check(made) if check else state.plan(made) if dry_run else state.publish(made)
        outcomes.append(outcome)
        if progress is not None:
            progress(outcome)
    return PublishReport(to, path, tuple(outcomes))


def _checked(skills: list[SkillReference], service: str) -> list[Upload]:
    """Each skill's upload, after every rule was checked for every skill: all problems at once, or none."""
    problems: list[str] = []
    uploads: list[Upload] = []
    names = [skill.name for skill in skills]
    for name in sorted({n for n in names if names.count(n) > 1}):
        problems.append(f"skill {name!r}: two skills to publish share the name; publish each name once")
    for skill in skills:
        try:
            made = upload(skill)
        except PublishError as exc:
            problems.extend(exc.problems)
            continue
        problems.extend(refusals(service, made))
        uploads.append(made)
    if problems:
        raise PublishError(problems)
    return uploads


class _State:
    """The lock as it is now (written after each change) and the service, for one run."""

    def __init__(self, lock: Lock, service: Service, name: str) -> None:
        self.lock, self.service, self.name = lock, service, name

    def compare(self, made: Upload) -> tuple[Published | None, Literal["create", "update", "none"], str]:
        """The lock's entry, what publishing must do, and why: the lock against the skill, then the service (a read)."""
        entry = self.lock.published.get(self.name, {}).get(made.folder)
        if entry is None:
            return None, "create", ""
        reasons = []
        if entry.digest != made.digest:
            reasons.append(f"changed here: the lock has digest {entry.digest}, the skill is {made.digest}")
        latest = self.service.latest(entry.id, made.folder)
        if latest is None:
            return entry, "create", "; ".join([*reasons, f"gone there: {self.service.label} has no skill {entry.id}"])
        if latest != entry.version:
            reasons.append(f"changed there: its latest version is {latest}, the lock's is {entry.version}")
        return entry, "update" if reasons else "none", "; ".join(reasons)

    def check(self, made: Upload) -> Outcome:
        entry, todo, why = self.compare(made)
        return self.outcome(made, entry, "in sync" if todo == "none" else "drifted", why if entry else "not published")

    def plan(self, made: Upload) -> Outcome:
        entry, todo, why = self.compare(made)
        action: Action = "unchanged" if todo == "none" else "would create" if todo == "create" else "would update"
        return self.outcome(made, entry, action, why)

    def publish(self, made: Upload) -> Outcome:
        entry, todo, why = self.compare(made)
        if todo == "none":
            return self.outcome(made, entry, "unchanged", why)
        if todo == "create" or entry is None:
            skill_id, version = self.service.create(made)
        else:
            skill_id, version = entry.id, self.service.new_version(entry.id, made)
        done = Published(skill_id, version, made.digest)
        self.lock = self.lock.with_published(self.name, made.folder, done)
        self.lock.write()
        return self.outcome(made, done, "created" if todo == "create" else "updated", why)

    def outcome(self, made: Upload, entry: Published | None, action: Action, why: str) -> Outcome:
        return Outcome(
            made.folder,
            self.name,
            entry.id if entry else None,
            entry.version if entry else None,
            made.digest,
            action,
            why,
        )
