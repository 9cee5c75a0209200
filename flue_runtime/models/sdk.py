"""What the provider adapters share: the optional SDK import, the API key, one client per
event loop, and SDK exceptions turned into `ModelError`s a user can act on.

SDK objects are typed `Any` here and in the adapters: the SDKs are optional, their
request types change between versions, and the adapters speak plain JSON-shaped dicts.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from flue_runtime.errors import ModelError

__all__ = ["LoopClients", "Provider", "client_options", "error_fields", "model_error"]


@dataclass(frozen=True)
class Provider:
    """How one provider is named to the user: in messages, the extra and the key variable."""

    label: str  # "Anthropic"
    module: str  # the SDK's import name
    extra: str  # the flue-skills extra that installs it
    key_variable: str  # where the API key is read from
    also: tuple[str, ...] = ()  # other credential variables the SDK reads itself

    def import_sdk(self) -> ModuleType:
        """The SDK module, or a `ModelError` saying which extra to install."""
        try:
            return importlib.import_module(self.module)
        except ImportError as exc:
            raise ModelError(
                f"the {self.label} provider needs the {self.module!r} package, which is not installed; "
                f"install it with: pip install 'flue-skills[{self.extra}]'"
            ) from exc

    def api_key(self, explicit: str | None, model: str) -> str | None:
        """The key passed in, else the key variable; `None` when only one of `also` is set
        (another credential variable the SDK reads itself). No key at all is a `ModelError`.
        Never imports the SDK: a program can check before it does anything that needs the model."""
        if explicit:
            return explicit
        key = os.environ.get(self.key_variable)
        if key:
            return key
        if any(os.environ.get(name) for name in self.also):
            return None
        raise ModelError(
            f"{self.label} model {model!r}: no API key; set the {self.key_variable} environment variable "
            f"(or pass api_key=... or client=... to the model)"
        )


class LoopClients:
    """One SDK client per event loop.

    An async HTTP client's pooled connections belong to the loop that opened them, and
    `prompt_sync` runs every prompt in a fresh loop, so a client is never carried from
    one loop to the next. A client the user passed in is always used as it is.
    """

    def __init__(self, factory: Callable[[], Any], given: Any = None) -> None:
        self._factory = factory
        self._given = given
        self._loop: weakref.ReferenceType[asyncio.AbstractEventLoop] | None = None
        self._client: Any = None

    def get(self) -> Any:
        if self._given is not None:
            return self._given
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is None or self._loop() is not loop:
            self._client = self._factory()
            self._loop = weakref.ref(loop)
        return self._client


def error_fields(body: object) -> tuple[str, str]:
    """The error type (or code) and message from an API error body.

    Anthropic's SDK keeps the whole body (`{"type": "error", "error": {...}}`), OpenAI's
    keeps the inner `error` object; both shapes are read.
    """
    if isinstance(body, Mapping):
        inner = body.get("error")
        if isinstance(inner, Mapping):
            body = inner
        kind = body.get("type") or body.get("code") or ""
        message = body.get("message") or ""
        return str(kind), str(message)
    if isinstance(body, str):
        return "", body.strip()
    return "", ""


_HINTS = {
    401: "check the key in {key}",
    403: "the key in {key} may lack access to this model",
    404: "check the model name",
    429: "rate limited; wait and try again, or raise the model's max_retries",
}


def model_error(provider: Provider, model: str, exc: Exception, sdk: ModuleType) -> ModelError:
    """A `ModelError` for an exception the SDK raised: status, the API's error type and
    message, and the model; a connection failure names the URL it tried."""
    where = f"{provider.label} model {model!r}"
    if isinstance(exc, sdk.APIStatusError):
        status = int(exc.status_code)
        kind, message = error_fields(exc.body)
        if not message:
            message = str(getattr(exc, "message", "") or exc)
        text = f"{where}: the API answered {status}{' ' + kind if kind else ''}: {message}"
        request_id = getattr(exc, "request_id", None)
        if request_id:
            text += f" (request id {request_id})"
        hint = _HINTS.get(status)
        if hint:
            text += f"; {hint.format(key=provider.key_variable)}"
        return ModelError(text)
    if isinstance(exc, sdk.APIConnectionError):
        request = getattr(exc, "request", None)
        url = getattr(request, "url", None)
        return ModelError(f"{where}: could not reach the API{f' at {url}' if url else ''}: {exc}")
    return ModelError(f"{where}: {type(exc).__name__}: {exc}")


def client_options(**given: Any) -> dict[str, Any]:
    """The SDK client's keyword arguments: those given, so the SDK's own defaults apply to the rest."""
    return {name: value for name, value in given.items() if value is not None}
