"""Models named `provider/model-id`: each provider's adapter module is imported only when
that provider is named, and the adapter imports its SDK only when the model is made."""

from __future__ import annotations

from importlib import import_module

from flue_runtime.errors import ModelError
from flue_runtime.models.base import Model

__all__ = ["PROVIDERS", "check_key", "create"]


#: provider name -> (adapter module, model class)
PROVIDERS: dict[str, tuple[str, str]] = {
    "anthropic": ("flue_runtime.models.anthropic", "AnthropicModel"),
    "openai": ("flue_runtime.models.openai", "OpenAIModel"),
}


def create(provider: str, name: str) -> Model:
    """The model `name` of `provider`, with the key and endpoint from the environment."""
    module, cls = _adapter(provider, name)
    model: Model = getattr(import_module(module), cls)(name)
    return model


def check_key(provider: str, name: str) -> None:
    """A `ModelError` when `provider` finds no API key in the environment for model `name` (the adapter's module is
    imported, never its SDK)."""
    module, _ = _adapter(provider, name)
    import_module(module).PROVIDER.api_key(None, name)


def _adapter(provider: str, name: str) -> tuple[str, str]:
    found = PROVIDERS.get(provider)
    if found is None:
        known = ", ".join(sorted(PROVIDERS))
        raise ModelError(f"unknown model provider {provider!r} in {provider}/{name}; known providers: {known}")
    return found
