"""The provider-neutral model interface, the scripted model, and provider lookup.

A request is exactly what a provider receives: the system prompt, the messages as plain
data, and the tool specs. Provider SDKs are imported only when their model is used.
"""

from __future__ import annotations

from flue_runtime.errors import ModelError
from flue_runtime.models.base import Model, ModelRequest, ModelResponse, ToolCall
from flue_runtime.models.scripted import ScriptedModel

__all__ = [
    "Model",
    "ModelError",
    "ModelRequest",
    "ModelResponse",
    "ScriptedModel",
    "ToolCall",
    "check_api_key",
    "resolve_model",
]


def resolve_model(model: Model | str) -> Model:
    """A model object, or one named `provider/model-id` (e.g. `anthropic/claude-haiku-4-5`)."""
    if not isinstance(model, str):
        return model
    from flue_runtime.models import providers

    return providers.create(*_named(model))


def check_api_key(model: str) -> None:
    """Raise the `ModelError` that making model `provider/model-id` would raise for want of an API key, without
    importing the provider's SDK (nor needing it installed): a program checks this first, before work that only
    the model would use, and says it in one line."""
    from flue_runtime.models import providers

    providers.check_key(*_named(model))


def __getattr__(name: str) -> object:
    if name == "ScriptExhaustedError":  # (merged into ModelError in 0.2; importable, with a warning, until 0.3)
        from flue_runtime import errors

        return getattr(errors, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _named(model: str) -> tuple[str, str]:
    provider, _, name = model.partition("/")
    if not name:
        raise ModelError(
            f"model {model!r}: name a provider and a model, like 'anthropic/claude-haiku-4-5' or 'openai/gpt-5-mini'"
        )
    return provider, name
