"""The hosted skill services, through their official SDKs: create a skill, add a version, ask for the latest.

Anthropic: `client.beta.skills.create(files=...)`, `.versions.create(skill_id, files=...)`, `.retrieve(skill_id)`
(the SDK's 2.x shapes: `BetaSkill.latest_version_id`, `BetaSkillVersion.id`); the files are sent one part each,
named `<folder>/<path>`. OpenAI: `client.skills.create(files=...)`, `.versions.create(skill_id, files=...,
default=True)`, `.retrieve(skill_id)` (`Skill.latest_version`, `.default_version`; `SkillVersion.version`); the files
are sent as one zip of the folder, the form OpenAI recommends. Each SDK reads its credentials and base URL itself
(`ANTHROPIC_API_KEY`/`ANTHROPIC_BASE_URL`, `OPENAI_API_KEY`/`OPENAI_BASE_URL`), or uses the client given.

What a service answers with an error, or a service that cannot be reached, is a `HostedServiceError` naming the
service, the skill, the request and what the service said.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Callable
from typing import Any, Protocol

from flue_runtime.errors import HostedServiceError
from flue_runtime.models.sdk import Provider, error_fields
from flue_runtime.publish.preflight import Upload, zip_upload

__all__ = ["Service", "connect"]

_PROVIDERS = {
    "anthropic": Provider("Anthropic", "anthropic", "anthropic", "ANTHROPIC_API_KEY"),
    "openai": Provider("OpenAI", "openai", "openai", "OPENAI_API_KEY"),
}


class Service(Protocol):
    """One hosted service: what publishing asks of it. `label` names it in messages."""

    label: str

    def create(self, made: Upload) -> tuple[str, str]:
        """A new skill of `made`'s files: its id and its first version."""

    def new_version(self, skill_id: str, made: Upload) -> str:
        """A new version of skill `skill_id` holding `made`'s files, the one models get: its version."""

    def latest(self, skill_id: str, skill: str) -> str | None:
        """The version models get of skill `skill_id` (`skill` names it in messages); None when there is no such
        skill. A read: it changes nothing."""


def connect(service: str, client: Any = None) -> Service:
    """`service` ("anthropic" or "openai") through its SDK, with `client` or one the SDK makes when first used."""
    return _Anthropic(client) if service == "anthropic" else _OpenAI(client)


class _Hosted:
    provider: Provider
    #: The SDK's base of every error it raises on purpose.
    base_error: str

    def __init__(self, client: Any) -> None:
        self._client = client
        self.label = self.provider.label

    def call(self, skill: str, doing: str, request: Callable[[Any], Any], *, missing_is_none: bool = False) -> Any:
        """`request(client)`, what the SDK raises said as a `HostedServiceError` (a 404 as None, when asked)."""
        sdk = self.provider.import_sdk()
        try:
            if self._client is None:
                self._client = self.make(sdk)
            return request(self._client)
        except sdk.NotFoundError as exc:
            if missing_is_none:
                return None
            raise self.error(skill, doing, sdk, exc) from None
        except (getattr(sdk, self.base_error), TypeError) as exc:  # TypeError: Anthropic's "no credentials"
            raise self.error(skill, doing, sdk, exc) from None

    def make(self, sdk: Any) -> Any:
        raise NotImplementedError

    def error(self, skill: str, doing: str, sdk: Any, exc: BaseException) -> HostedServiceError:
        key = self.provider.key_variable
        if isinstance(exc, sdk.APIStatusError):
            kind, message = error_fields(exc.body)
            said = f"{doing}: the API answered {exc.status_code}{' ' + kind if kind else ''}: {message or exc}"
            if exc.status_code in (401, 403):
                said += f"; check the key in {key}"
            return HostedServiceError(self.label, skill, said)
        if isinstance(exc, sdk.APIConnectionError):
            url = getattr(getattr(exc, "request", None), "url", None)
            return HostedServiceError(
                self.label, skill, f"{doing}: could not reach the API{f' at {url}' if url else ''}"
            )
        return HostedServiceError(self.label, skill, f"{doing}: {exc}; set {key}")


class _Anthropic(_Hosted):
    provider = _PROVIDERS["anthropic"]
    base_error = "AnthropicError"

    def make(self, sdk: Any) -> Any:
        return sdk.Anthropic()

    def create(self, made: Upload) -> tuple[str, str]:
        created = self.call(made.folder, "creating it", lambda c: c.beta.skills.create(files=_parts(made)))
        return str(created.id), str(created.latest_version_id)

    def new_version(self, skill_id: str, made: Upload) -> str:
        version = self.call(
            made.folder,
            f"a new version of {skill_id}",
            lambda c: c.beta.skills.versions.create(skill_id, files=_parts(made)),
        )
        return str(version.id)

    def latest(self, skill_id: str, skill: str) -> str | None:
        found = self.call(
            skill, f"reading {skill_id}", lambda c: c.beta.skills.retrieve(skill_id), missing_is_none=True
        )
        return None if found is None else str(found.latest_version_id)


class _OpenAI(_Hosted):
    provider = _PROVIDERS["openai"]
    base_error = "OpenAIError"

    def make(self, sdk: Any) -> Any:
        return sdk.OpenAI()

    def create(self, made: Upload) -> tuple[str, str]:
        created = self.call(made.folder, "creating it", lambda c: c.skills.create(files=_zipped(made)))
        return str(created.id), str(created.latest_version)

    def new_version(self, skill_id: str, made: Upload) -> str:
        version = self.call(
            made.folder,
            f"a new version of {skill_id}",
            lambda c: c.skills.versions.create(skill_id, files=_zipped(made), default=True),
        )
        return str(version.version)

    def latest(self, skill_id: str, skill: str) -> str | None:
        found = self.call(skill, f"reading {skill_id}", lambda c: c.skills.retrieve(skill_id), missing_is_none=True)
        if found is None:
            return None
        latest, default = str(found.latest_version), str(found.default_version)
        return latest if latest == default else f"{latest} (the default: {default})"


def _parts(made: Upload) -> list[tuple[str, bytes, str]]:
    """Each file a part of its own, named by its path in the folder."""
    return [
        (f"{made.folder}/{path}", data, mimetypes.guess_type(path)[0] or "application/octet-stream")
        for path, data in sorted(made.files.items())
    ]


def _zipped(made: Upload) -> tuple[str, bytes, str]:
    return (f"{made.folder}.zip", zip_upload(made), "application/zip")
