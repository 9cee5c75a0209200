"""Models named `provider/model-id`: each provider's adapter module is imported only when
that provider is named, and the adapter imports its SDK only when the model is made."""

from __future__ import annotations

from importlib import import_module

from flue_runtime.errors import ModelError
from flue_runtime.models.base import Model

__all__ = ["PROVIDERS", "create"]


#: provider name -> (adapter module, model class)
PROVIDERS: dict[str, tuple[str, str]] = {
    "anthropic": ("flue_runtime.models.anthropic", "AnthropicModel"),
    "openai": ("flue_runtime.models.openai", "OpenAIModel"),
}


def create(provider: str, name: str) -> Model:
    """The model `name` of `provider`, with the key and endpoint from the environment."""
    found = PROVIDERS.get(provider)
    if found is None:
        known = ", ".join(sorted(PROVIDERS))
        raise ModelError(f"unknown model provider {provider!r} in {provider}/{name}; known providers: {known}")
    module, cls = found
    model: Model = getattr(import_module(module), cls)(name)
    return model
