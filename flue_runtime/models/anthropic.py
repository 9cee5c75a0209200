"""Claude through the official `anthropic` SDK (Messages API), imported only when a model is made.

The system prompt is sent as one text block marked for prompt caching: it is
byte-identical for a whole conversation, so every turn after the first reads it (and
the tool specs, which precede it in the cache prefix) from the cache. The last block of
the conversation is marked too, so each step of the tool loop reuses the previous one.
"""

from __future__ import annotations

from typing import Any

from flue_runtime.errors import ModelError
from flue_runtime.models.base import Message, ModelRequest, ModelResponse, ToolCall, ToolSpec, Usage
from flue_runtime.models.sdk import LoopClients, Provider, client_options, model_error

__all__ = ["AnthropicModel", "CACHE", "PROVIDER", "convert_messages", "convert_response", "convert_tool"]


PROVIDER = Provider("Anthropic", "anthropic", "anthropic", "ANTHROPIC_API_KEY", also=("ANTHROPIC_AUTH_TOKEN",))
CACHE = {"type": "ephemeral"}


class AnthropicModel:
    """A Claude model, e.g. `AnthropicModel("claude-haiku-4-5")`.

    The key is `api_key` or `ANTHROPIC_API_KEY` (`ANTHROPIC_AUTH_TOKEN` also works), the
    endpoint `base_url` or `ANTHROPIC_BASE_URL`. `client` takes a ready `AsyncAnthropic`
    and skips both. `cache_conversation=False` keeps only the system prompt cached.
    """

    def __init__(
        self,
        model: str,
        *,
        max_tokens: int = 8192,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int | None = None,
        timeout: float | None = None,
        cache_conversation: bool = True,
        client: Any = None,
    ) -> None:
        if not model:
            raise ModelError("AnthropicModel needs a model name, like 'claude-haiku-4-5'")
        self.model = model
        self.max_tokens = max_tokens
        self.cache_conversation = cache_conversation
        self._sdk = PROVIDER.import_sdk()
        options: dict[str, Any] = {}
        if client is None:
            key = PROVIDER.api_key(api_key, model)
            options = client_options(api_key=key, base_url=base_url, max_retries=max_retries, timeout=timeout)
        self._clients = LoopClients(lambda: self._sdk.AsyncAnthropic(**options), client)

    def __repr__(self) -> str:
        return f"AnthropicModel({self.model!r})"

    def params(self, request: ModelRequest) -> dict[str, Any]:
        """The Messages API request body for `request` (what goes over the wire)."""
        params: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "messages": convert_messages(request.messages, cache_last=self.cache_conversation),
        }
        if request.system:
            params["system"] = [{"type": "text", "text": request.system, "cache_control": dict(CACHE)}]
        if request.tools:
            params["tools"] = [convert_tool(tool) for tool in request.tools]
        return params

    async def complete(self, request: ModelRequest) -> ModelResponse:
        try:  # the client is made here, in the running loop: its errors are the SDK's too
            client = self._clients.get()
            message = await client.messages.create(**self.params(request))
        except self._sdk.AnthropicError as exc:
            raise model_error(PROVIDER, self.model, exc, self._sdk) from exc
        return convert_response(message)


def convert_tool(tool: ToolSpec) -> dict[str, Any]:
    return {"name": tool["name"], "description": tool.get("description", ""), "input_schema": tool["parameters"]}


def convert_messages(messages: list[Message], *, cache_last: bool = False) -> list[dict[str, Any]]:
    """Provider-neutral messages as Messages API turns.

    Tool results become `tool_result` blocks in a user turn; consecutive turns of one
    role (tool results, a catalog announcement, the next prompt) merge into one turn,
    since the API wants user and assistant to alternate. Empty text blocks are dropped:
    the API refuses them.
    """
    turns: list[dict[str, Any]] = []
    for message in messages:
        role = message["role"]
        blocks: list[dict[str, Any]]
        if role == "tool":
            role = "user"
            blocks = [_tool_result(message)]
        elif role == "assistant":
            blocks = _text(message.get("content"))
            for call in message.get("tool_calls") or ():
                arguments = call.get("arguments")
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": call["id"],
                        "name": call["name"],
                        "input": arguments if isinstance(arguments, dict) else {},
                    }
                )
        else:
            blocks = _text(message.get("content"))
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    if cache_last and turns:
        last = turns[-1]["content"][-1]
        turns[-1]["content"][-1] = {**last, "cache_control": dict(CACHE)}
    return turns


def _text(content: object) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    if isinstance(content, list):  # already content blocks
        return [dict(block) for block in content]
    return []


def _tool_result(message: Message) -> dict[str, Any]:
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": message["tool_call_id"],
        "content": message.get("content") or "",
    }
    if message.get("is_error"):
        block["is_error"] = True
    return block


def convert_response(message: Any) -> ModelResponse:
    """Text blocks joined; each `tool_use` block a `ToolCall` keeping the API's id.
    Other blocks (thinking, server tools) are not the loop's business."""
    texts: list[str] = []
    calls: list[ToolCall] = []
    for block in message.content or ():
        kind = getattr(block, "type", None)
        if kind == "text":
            texts.append(block.text)
        elif kind == "tool_use":
            arguments = block.input if isinstance(block.input, dict) else {}
            calls.append(ToolCall(block.name, dict(arguments), block.id))
    return ModelResponse("".join(texts), tuple(calls), _usage(getattr(message, "usage", None)))


def _usage(usage: Any) -> Usage | None:
    """Input tokens with the ones read from and written to the prompt cache, which the API counts apart."""
    if usage is None:
        return None
    read = sum(
        getattr(usage, key, 0) or 0
        for key in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    )
    return Usage(read, getattr(usage, "output_tokens", 0) or 0)
