"""agentskills-core (0.7, Python 3.12 or newer) both ways: `pip install 'flue-skills[agentskills]'`.

`provider(skills)` is one of its `SkillProvider`s over mounted skills, so its registry and
catalog, its LangChain and Microsoft Agent Framework tools and its MCP server serve them: every file byte for byte as the skill's own reads give it (a bundle's
checked against its manifest), the frontmatter as flue reads it.

`skills_from(provider)` is the reverse: each skill of any of its providers (a folder, a
static HTTP host, one of your own) as a `SkillReference` for `use_skill`, the MCP server and
every adapter, mounted only through `load_skill`'s vetting, so vetted by the build's rules. Its
providers list a skill's paths without sizes or digests, so each listed file is fetched
once at load (no further than the limits allow), judged with the rest, and every later
read is checked against the bytes judged then. A skill the rules refuse is skipped with a
`SkillWarning` giving the reason (as `skills_of` skips a refused folder); a provider that
cannot be reached, or does not answer within `timeout`, raises `SkillError`.

Its API is async and flue's reads are not: every call to one provider runs on an event loop
of flue's own for that provider, in a daemon thread, so `skills_from` and the references'
reads work at import time, in any thread, and inside a running event loop (which waits for
the answer). Keep the provider open while its skills are in use, and use it on no other loop.
"""

from __future__ import annotations

import sys

try:
    import agentskills_core  # noqa: F401  (to say what is missing)
except ModuleNotFoundError as exc:
    if sys.version_info < (3, 12):
        raise ImportError(
            "flue_runtime.integrations.agentskills needs agentskills-core, which needs Python 3.12 or newer "
            f"(this is Python {sys.version_info.major}.{sys.version_info.minor})"
        ) from exc
    raise ImportError(
        "flue_runtime.integrations.agentskills needs agentskills-core: pip install 'flue-skills[agentskills]'"
    ) from exc

import asyncio
import inspect
import threading
import warnings
import weakref
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import Any, TypeVar

from agentskills_core import RESOURCE_KINDS, SkillProvider, SkillUnavailableError
from agentskills_core import ResourceNotFoundError as MissingResource
from agentskills_core import SkillNotFoundError as MissingSkill

from flue_runtime.errors import AgentError, SkillError, SkillNotFoundError, SkillPathError, SkillWarning
from flue_runtime.format.diagnostics import quoted
from flue_runtime.format.frontmatter import parse
from flue_runtime.format.paths import skill_path, some_paths
from flue_runtime.format.records import SKILL_FILE, ListedFile
from flue_runtime.format.vetting import DEFAULT_LIMITS, Limits, format_size
from flue_runtime.integrations.skillset import Skillset
from flue_runtime.mount.reference import SkillReference
from flue_runtime.mount.sources import shown_as, vet_source

__all__ = ["FlueSkillProvider", "ProviderSkill", "provider", "skills_from"]

T = TypeVar("T")

#: How long one call to a provider may take before `skills_from` or a read gives up on it.
TIMEOUT = 30.0


# --- our skills as their provider --------------------------------------------------------------


def provider(skills: Iterable[SkillReference]) -> FlueSkillProvider:
    """`skills` as an agentskills-core `SkillProvider` (discovery, resource listing and lossless file access)."""
    return FlueSkillProvider(skills)


class FlueSkillProvider(SkillProvider):
    """Mounted skills behind agentskills-core's provider interface, each under its own name.

    Every answer comes from the skill's own reads (`SkillReference.read_bytes`: a bundle's bytes checked against
    its manifest, a dev-mode folder as it is now), in a worker thread. An unknown skill is their
    `SkillNotFoundError`; a file the skill does not have, or a path no skill could hold, their
    `SkillNotFoundError`; a read flue refuses (a bundle whose bytes changed) raises flue's own error.
    """

    supports_resource_listing = True
    supports_discovery = True
    supports_file_access = True

    def __init__(self, skills: Iterable[SkillReference]) -> None:
        mounted = Skillset(skills).skills  # SkillReferences only, one per name (AgentError otherwise)
        for skill in mounted:
            if skill.alias_of is not None:
                raise AgentError(
                    f"skill {skill.name!r} is skill {skill.alias_of!r} under another name; agentskills-core checks "
                    f"a skill's id against the name in its SKILL.md, so provide it under its own name "
                    f"({skill.alias_of!r})"
                )
        self._skills = {skill.name: skill for skill in mounted}

    async def discover(self) -> list[str]:
        return sorted(self._skills)

    async def get_metadata(self, skill_id: str) -> dict[str, Any]:
        """SKILL.md's frontmatter as flue reads it: every field its author wrote, every scalar a string."""
        skill = await self._skill(skill_id)
        data = await asyncio.to_thread(skill.read_bytes, SKILL_FILE)
        parsed = parse(data, f"{skill.name}/{SKILL_FILE}")
        if parsed.data is None:  # a folder in dev mode edited into an invalid SKILL.md since it was vetted
            raise SkillError(parsed.diagnostics, f"skill {skill.name!r} ({skill.origin})")
        return parsed.data

    async def get_body(self, skill_id: str) -> str:
        skill = await self._skill(skill_id)
        return await asyncio.to_thread(lambda: skill.instructions)

    async def get_script(self, skill_id: str, name: str) -> bytes:
        return await self.read_file(skill_id, f"scripts/{name}")

    async def get_asset(self, skill_id: str, name: str) -> bytes:
        return await self.read_file(skill_id, f"assets/{name}")

    async def get_reference(self, skill_id: str, name: str) -> bytes:
        return await self.read_file(skill_id, f"references/{name}")

    async def list_resources(self, skill_id: str) -> dict[str, list[str]]:
        """The files directly inside `references/`, `scripts/` and `assets/` (every file: `list_files`)."""
        found: dict[str, list[str]] = {kind: [] for kind in RESOURCE_KINDS}
        for file in (await self._skill(skill_id)).files:
            kind, _, name = file.path.partition("/")
            if kind in found and name and "/" not in name:
                found[kind].append(name)
        return {kind: sorted(names) for kind, names in found.items()}

    async def list_files(self, skill_id: str) -> list[str]:
        return [file.path for file in (await self._skill(skill_id)).files]

    async def read_file(self, skill_id: str, path: str) -> bytes:
        skill = await self._skill(skill_id)
        try:
            return await asyncio.to_thread(skill.read_bytes, path)
        except (SkillNotFoundError, SkillPathError) as exc:
            raise MissingResource(str(exc)) from None

    async def _skill(self, skill_id: str) -> SkillReference:
        """The skill as it is now (a folder in dev mode vetted again, as the harness does at every render)."""
        found = self._skills.get(skill_id) if isinstance(skill_id, str) else None
        if found is None:
            raise MissingSkill(f"no skill {skill_id!r} here; the skills: {some_paths(sorted(self._skills))}")
        return await asyncio.to_thread(found.current)


# --- their providers as our sources -------------------------------------------------------------


def skills_from(
    provider: SkillProvider,
    names: Iterable[str] | None = None,
    *,
    timeout: float = TIMEOUT,
    limits: Limits = DEFAULT_LIMITS,
    label: str | None = None,
) -> tuple[SkillReference, ...]:
    """Each skill of `provider` (those `names`, or every skill its `discover()` lists), vetted by the build's rules.

    The provider must offer lossless file access (`supports_file_access`: agentskills-fs does, agentskills-http
    with `file_manifest=True`). A skill the rules refuse (or the provider refuses to list or serve) is skipped
    with a `SkillWarning` naming it and every problem, and never served. `SkillError` (nothing returned)
    when the provider cannot list its skills, has no file access, or cannot be reached or does not answer a call
    within `timeout` seconds. `label` names the provider in messages (default: its class).
    """
    if not isinstance(provider, SkillProvider):
        raise SkillError(source=f"{type(provider).__name__} object", reason="is not an agentskills_core.SkillProvider")
    shown = shown_as(_Named(label or f"agentskills {type(provider).__name__}"))
    portal = _portal_of(provider)
    if names is None:
        if provider.supports_discovery is not True:
            raise SkillError(
                source=shown, reason="cannot list its skills (no discovery): pass their names, names=[...]"
            )
        try:
            found = portal.call(provider.discover(), timeout)
        except Exception as exc:
            raise SkillError(source=shown, reason=f"cannot list its skills: {_said(exc)}") from None
        if not isinstance(found, list):
            raise SkillError(source=shown, reason=f"discover() gave {type(found).__name__}, not a list of names")
        names = found
    if provider.supports_file_access is not True:
        raise SkillError(
            source=shown,
            reason="offers no lossless file access (supports_file_access): flue mounts a skill's files as written, "
            "through list_files() and read_file() (agentskills-http: HTTPStaticFileSkillProvider(..., file_manifest=True))",
        )
    if isinstance(names, str):
        raise SkillError(source=shown, reason=f"names={names!r} is one string: pass a list of names")
    skills = []
    for name in list(names):
        source = ProviderSkill(provider, name, label=shown, timeout=timeout, limits=limits, portal=portal)
        try:
            skill, notes = vet_source(source, limits=limits)
        except SkillError as exc:
            if source.unavailable is not None:
                raise
            notes = [f"skipped {exc}"]
        else:
            skills.append(skill)
        finally:
            source.loaded()
        for note in notes:
            warnings.warn(note, SkillWarning, stacklevel=2)
    return tuple(skills)


class ProviderSkill:
    """One skill of an agentskills-core provider as a `flue_runtime.SkillSource` (what `skills_from` loads).

    `listing()` asks the provider for the skill's paths and fetches each file once to learn its size (their
    interface gives none), stopping once the files add up to more than `limits.bundle_size`, never asking for a
    path no skill could hold; `load_skill`'s vetting then judges those bytes. Later reads fetch again (and are
    checked against what was judged).
    """

    def __init__(
        self,
        provider: SkillProvider,
        name: str,
        *,
        label: str | None = None,
        timeout: float = TIMEOUT,
        limits: Limits = DEFAULT_LIMITS,
        portal: _Portal | None = None,
    ) -> None:
        self.name = name
        self._provider = provider
        self._label = label or f"agentskills {type(provider).__name__}"
        self._timeout = timeout
        self._limits = limits
        self._portal = portal or _portal_of(provider)
        self._fetched: dict[str, bytes] = {}
        #: What the provider raised when it could not be reached or did not answer in time (None if it always did).
        self.unavailable: BaseException | None = None

    def describe(self) -> str:
        return f"{self._label} skill {self.name!r}"

    def listing(self) -> Iterator[ListedFile]:
        paths = self._call(lambda: self._provider.list_files(self.name))
        if not isinstance(paths, list):
            raise TypeError(f"list_files() gave {type(paths).__name__}, not a list of paths")
        total = 0
        for count, path in enumerate(paths, 1):
            if not isinstance(path, str):
                raise TypeError(f"list_files() gave {type(path).__name__}, not a path")
            try:
                skill_path(path)
            except SkillPathError:  # never asked for: the vetting refuses the path from the listing alone
                yield ListedFile(path, 0)
                continue
            data = self.read(path)
            total += len(data)
            if total > self._limits.bundle_size:
                raise ValueError(
                    f"the files add up to more than {format_size(self._limits.bundle_size)}, the limit, at "
                    f"{quoted(path)} ({count:,} of {len(paths):,} files): not fetched further"
                )
            self._fetched[path] = data
            yield ListedFile(path, len(data))

    def read(self, path: str) -> bytes:
        kept = self._fetched.pop(path, None)  # (the bytes fetched to list the file, read once by the vetting)
        if kept is not None:
            return kept
        data = self._call(lambda: self._provider.read_file(self.name, path))
        if not isinstance(data, bytes):
            raise TypeError(f"read_file() gave {type(data).__name__}, not bytes")
        return data

    def loaded(self) -> None:
        """Forget the bytes fetched for the load (what the vetting skipped, such as a refused `.env`)."""
        self._fetched.clear()

    def _call(self, call: Callable[[], Awaitable[T]]) -> T:
        try:
            return self._portal.call(call(), self._timeout)
        except (SkillUnavailableError, TimeoutError) as exc:
            self.unavailable = exc
            raise


class _Named:
    """A label as `shown_as` reads a source's `describe()` (one bounded line)."""

    def __init__(self, text: str) -> None:
        self._text = text

    def describe(self) -> str:
        return self._text


def _said(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


# --- one event loop per provider ----------------------------------------------------------------


class _Portal:
    """An event loop running in a daemon thread of its own, where every call to one provider is awaited.

    One loop per provider, because a provider's connections (an HTTP client's pool) belong to the loop that
    opened them. The loop stops when the portal is collected (when the provider and its skills are).
    """

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=_serve, args=(self._loop,), name="flue-agentskills", daemon=True)
        self._thread.start()
        stop = weakref.finalize(self, self._loop.call_soon_threadsafe, self._loop.stop)
        stop.atexit = False  # (a daemon thread ends with the interpreter)

    def call(self, awaitable: Awaitable[T], timeout: float) -> T:
        """`awaitable`'s result (or what it raised), awaited on the provider's loop; `TimeoutError` past `timeout`."""
        if threading.current_thread() is self._thread:
            if inspect.iscoroutine(awaitable):
                awaitable.close()
            raise RuntimeError("a provider's own event loop cannot wait for one of its calls")
        future = asyncio.run_coroutine_threadsafe(_awaited(awaitable), self._loop)
        try:
            return future.result(timeout)
        except TimeoutError:
            future.cancel()
            raise TimeoutError(f"no answer within {timeout:g} s") from None


async def _awaited(awaitable: Awaitable[T]) -> T:
    return await awaitable


def _serve(loop: asyncio.AbstractEventLoop) -> None:
    asyncio.set_event_loop(loop)
    try:
        loop.run_forever()
    finally:  # stopped: what is still running is cancelled and waited for, then the loop closed
        pending = asyncio.all_tasks(loop)
        for task in pending:
            task.cancel()
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()


_PORTALS: weakref.WeakKeyDictionary[SkillProvider, _Portal] = weakref.WeakKeyDictionary()
_PORTALS_LOCK = threading.Lock()


def _portal_of(provider: SkillProvider) -> _Portal:
    """The provider's loop: the same one for every call to it, whichever `skills_from` or skill makes it."""
    with _PORTALS_LOCK:
        try:
            portal = _PORTALS.get(provider)
            if portal is None:
                portal = _PORTALS[provider] = _Portal()
        except TypeError:  # a provider that cannot be weakly referenced or hashed: a loop for this call
            portal = _Portal()
    return portal
