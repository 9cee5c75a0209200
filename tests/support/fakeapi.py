"""A loopback HTTP server that answers like a model API, for the real SDK clients to talk to.

Each test queues replies (status, JSON body, headers); the server answers POSTs in
order and records what it received, so a test asserts the exact wire request.
Nothing here mocks an SDK: the SDKs send real HTTP to 127.0.0.1.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from support.json_server import JsonServer

# Variables the SDKs read: none of a developer's real settings may reach these tests.
SDK_VARIABLES = [
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_CUSTOM_HEADERS",
    "ANTHROPIC_PROFILE",
    "ANTHROPIC_CONFIG_DIR",
    "ANTHROPIC_IDENTITY_TOKEN",
    "ANTHROPIC_IDENTITY_TOKEN_FILE",
    "ANTHROPIC_FEDERATION_RULE_ID",
    "ANTHROPIC_ORGANIZATION_ID",
    "OPENAI_API_KEY",
    "OPENAI_ADMIN_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
]


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class Reply:
    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)


class FakeAPI:
    """The server's script and its record of requests."""

    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.received: list[Received] = []
        self.lock = threading.Lock()
        self.http = JsonServer(self._answer)

    @property
    def url(self) -> str:
        return self.http.url

    def reply(self, body: Any, status: int = 200, headers: dict[str, str] | None = None) -> None:
        self.replies.append(Reply(status, body, headers or {}))

    @property
    def bodies(self) -> list[Any]:
        return [r.body for r in self.received]

    def answer(self, received: Received) -> Reply:
        with self.lock:
            self.received.append(received)
            if self.replies:
                return self.replies.popleft()
        return Reply(
            500,
            {"error": {"type": "test_error", "message": "the test server has no reply queued"}},
            {"x-should-retry": "false"},
        )

    def _answer(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> tuple[int, Any, dict[str, str]]:
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        reply = self.answer(Received(method, path, headers, body))
        return reply.status, reply.body, reply.headers


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in SDK_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@pytest.fixture
def fake_api(clean_env: pytest.MonkeyPatch) -> Iterator[FakeAPI]:
    fake = FakeAPI()
    fake.http.start()
    try:
        yield fake
    finally:
        fake.http.stop()


def anthropic_activation(name: str, usage: dict[str, int]) -> dict[str, Any]:
    """A Messages API response: one `activate_skill` call for skill `name`, with the `usage` the API reports."""
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [{"type": "tool_use", "id": "toolu_01", "name": "activate_skill", "input": {"name": name}}],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": usage,
    }
