"""The provider-neutral model interface, the scripted model, and provider lookup.

A request is exactly what a provider receives: the system prompt, the messages as plain
data, and the tool specs. Provider SDKs are imported only when their model is used.
"""

from __future__ import annotations

from flue_runtime.errors import ModelError, ScriptExhaustedError
from flue_runtime.models.base import Model, ModelRequest, ModelResponse, ToolCall
from flue_runtime.models.scripted import ScriptedModel

__all__ = [
    "Model",
    "ModelError",
    "ModelRequest",
    "ModelResponse",
    "ScriptExhaustedError",
    "ScriptedModel",
    "ToolCall",
    "resolve_model",
]


def resolve_model(model: Model | str) -> Model:
    """A model object, or one named `provider/model-id` (e.g. `anthropic/claude-haiku-4-5`)."""
    if not isinstance(model, str):
        return model
    provider, _, name = model.partition("/")
    if not name:
        raise ModelError(
            f"model {model!r}: name a provider and a model, like 'anthropic/claude-haiku-4-5' or 'openai/gpt-5-mini'"
        )
    from flue_runtime.models import providers

    return providers.create(provider, name)
