"""OpenAI models through the official `openai` SDK (Chat Completions with function tools),
imported only when a model is made.

OpenAI caches long prompt prefixes on its own; the byte-identical system prompt, sent
first, is what makes that work.
"""

from __future__ import annotations

import json
from typing import Any

from flue_runtime.errors import ModelError
from flue_runtime.models.base import Message, ModelRequest, ModelResponse, ToolCall, ToolSpec, Usage
from flue_runtime.models.sdk import LoopClients, Provider, client_options, model_error

__all__ = ["OpenAIModel", "PROVIDER", "convert_messages", "convert_response", "convert_tool", "parse_arguments"]


PROVIDER = Provider("OpenAI", "openai", "openai", "OPENAI_API_KEY")


class OpenAIModel:
    """An OpenAI chat model, e.g. `OpenAIModel("gpt-5-mini")`.

    The key is `api_key` or `OPENAI_API_KEY`, the endpoint `base_url` or
    `OPENAI_BASE_URL`. `client` takes a ready `AsyncOpenAI` and skips both.
    """

    def __init__(
        self,
        model: str,
        *,
        max_completion_tokens: int | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int | None = None,
        timeout: float | None = None,
        client: Any = None,
    ) -> None:
        if not model:
            raise ModelError("OpenAIModel needs a model name, like 'gpt-5-mini'")
        self.model = model
        self.max_completion_tokens = max_completion_tokens
        self._sdk = PROVIDER.import_sdk()
        options: dict[str, Any] = {}
        if client is None:
            key = PROVIDER.api_key(api_key, model)
            options = client_options(api_key=key, base_url=base_url, max_retries=max_retries, timeout=timeout)
        self._clients = LoopClients(lambda: self._sdk.AsyncOpenAI(**options), client)

    def __repr__(self) -> str:
        return f"OpenAIModel({self.model!r})"

    def params(self, request: ModelRequest) -> dict[str, Any]:
        """The Chat Completions request body for `request` (what goes over the wire)."""
        messages: list[dict[str, Any]] = [{"role": "system", "content": request.system}] if request.system else []
        params: dict[str, Any] = {"model": self.model, "messages": messages + convert_messages(request.messages)}
        if request.tools:  # the API refuses an empty list
            params["tools"] = [convert_tool(tool) for tool in request.tools]
        if self.max_completion_tokens is not None:
            params["max_completion_tokens"] = self.max_completion_tokens
        return params

    async def complete(self, request: ModelRequest) -> ModelResponse:
        try:  # the client is made here, in the running loop: its errors are the SDK's too
            client = self._clients.get()
            completion = await client.chat.completions.create(**self.params(request))
        except self._sdk.OpenAIError as exc:
            raise model_error(PROVIDER, self.model, exc, self._sdk) from exc
        return convert_response(completion, self.model)


def convert_tool(tool: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": tool["name"],
            "description": tool.get("description", ""),
            "parameters": tool["parameters"],
        },
    }


def convert_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """Provider-neutral messages as chat messages. Consecutive user messages stay
    separate (the API takes them); `is_error` has no field here, the result text says it."""
    converted: list[dict[str, Any]] = []
    for message in messages:
        role = message["role"]
        content = message.get("content")
        if role == "tool":
            converted.append({"role": "tool", "tool_call_id": message["tool_call_id"], "content": content or ""})
        elif role == "assistant":
            calls = message.get("tool_calls") or []
            turn: dict[str, Any] = {"role": "assistant", "content": content or (None if calls else "")}
            if calls:
                turn["tool_calls"] = [
                    {
                        "id": call["id"],
                        "type": "function",
                        "function": {"name": call["name"], "arguments": _arguments_text(call.get("arguments"))},
                    }
                    for call in calls
                ]
            converted.append(turn)
        else:
            converted.append({"role": role, "content": content if content is not None else ""})
    return converted


def _arguments_text(arguments: object) -> str:
    # A string is arguments the model sent that were not valid JSON: sent back as they were.
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments if arguments is not None else {}, ensure_ascii=False)


def parse_arguments(text: str | None) -> Any:
    """Tool arguments from their JSON text. Text that is not JSON is returned as it is:
    the loop answers that call with an error result, so the model can try again."""
    if text is None or not text.strip():
        return {}
    try:
        return json.loads(text)
    except ValueError:
        return text


def convert_response(completion: Any, model: str) -> ModelResponse:
    """The first choice: its text (or refusal) and its function calls with the API's ids."""
    choices = completion.choices or []
    if not choices:
        raise ModelError(f"OpenAI model {model!r}: the API answered with no choices")
    message = choices[0].message
    text = message.content or getattr(message, "refusal", None) or ""
    calls: list[ToolCall] = []
    for call in message.tool_calls or ():
        function = getattr(call, "function", None)
        if getattr(call, "type", "function") != "function" or function is None:
            continue
        calls.append(ToolCall(function.name, parse_arguments(function.arguments), call.id))
    return ModelResponse(text, tuple(calls), _usage(getattr(completion, "usage", None)))


def _usage(usage: Any) -> Usage | None:
    if usage is None:
        return None
    return Usage(getattr(usage, "prompt_tokens", 0) or 0, getattr(usage, "completion_tokens", 0) or 0)
