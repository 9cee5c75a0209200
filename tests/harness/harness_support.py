"""Helpers shared by the harness tests (a plain module: `conftest` names clash across test folders)."""

from __future__ import annotations

from typing import Any

from flue_runtime.models import ScriptedModel


def tool_results(model: ScriptedModel, request: int = -1) -> list[dict[str, Any]]:
    """The tool-result messages at the end of one recorded request."""
    messages = model.requests[request].messages
    results = []
    for message in reversed(messages):
        if message["role"] != "tool":
            break
        results.append(message)
    return list(reversed(results))
