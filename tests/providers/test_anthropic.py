"""The Anthropic adapter against a loopback server speaking the Messages API, with the real SDK."""

from __future__ import annotations

import pytest
from support.optional import need

need("anthropic", "anthropic")

import socket
import sys
from typing import Any

from support.fakeapi import FakeAPI

from flue_runtime import Harness, agent, define_skill, use_model, use_skill, use_state
from flue_runtime.errors import ModelError
from flue_runtime.models import ModelRequest, resolve_model
from flue_runtime.models.anthropic import AnthropicModel
from flue_runtime.mount.reference import SkillReference

CACHE = {"type": "ephemeral"}


def refunds() -> SkillReference:
    return define_skill(
        name="refunds",
        description="Handle refund requests. Use when a customer asks for money back.",
        instructions="# Refunds\n\nRead policy.md, then check the order date.\n",
        files={"policy.md": "Orders younger than 30 days are refundable.\n"},
    )


def vip() -> SkillReference:
    return define_skill(name="vip", description="Extra care for VIP customers.", instructions="Offer a voucher.\n")


def message(*content: dict[str, Any], stop: str = "end_turn") -> dict[str, Any]:
    """A Messages API response body."""
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": list(content),
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {
            "input_tokens": 100,
            "output_tokens": 10,
            "cache_creation_input_tokens": 90,
            "cache_read_input_tokens": 0,
        },
    }


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool_use(id: str, name: str, input: dict[str, Any]) -> dict[str, Any]:  # noqa: A002 - the API's field names
    return {"type": "tool_use", "id": id, "name": name, "input": input}


def error(status: int, kind: str, text: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": text}, "request_id": "req_test"}


def make_agent(model: object) -> Any:
    skill, extra = refunds(), vip()

    @agent
    def support() -> str:
        use_model(model)  # type: ignore[arg-type]
        use_skill(skill)
        if use_state("vip", False):
            use_skill(extra)
        return "Answer customer support questions."

    return support


def test_session_round_trips_a_tool_call(fake_api: FakeAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_api.url)
    fake_api.reply(
        message(
            text("Let me check the refund rules."),
            tool_use("toolu_01A", "activate_skill", {"name": "refunds"}),
            tool_use("toolu_01B", "no_such_tool", {}),
            stop="tool_use",
        )
    )
    fake_api.reply(message(text("Refunds are possible "), text("within 30 days.")))
    session = Harness(make_agent("anthropic/claude-test")).session("case-1")

    result = session.prompt_sync("I want a refund")

    assert result.text == "Refunds are possible within 30 days."
    first, second = fake_api.received
    assert first.path == second.path == "/v1/messages"
    assert "sk-ant-test" in (first.headers.get("x-api-key", "") + first.headers.get("authorization", ""))
    assert first.headers["anthropic-version"]
    tools = [
        {"name": spec["name"], "description": spec["description"], "input_schema": spec["parameters"]}
        for spec in session.tools
    ]
    assert [t["name"] for t in tools] == ["activate_skill", "read_skill_resource"]
    system = [{"type": "text", "text": session.system_prompt, "cache_control": CACHE}]
    assert first.body == {
        "model": "claude-test",
        "max_tokens": 8192,
        "system": system,
        "tools": tools,
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "I want a refund", "cache_control": CACHE}]}
        ],
    }
    activation = session.messages[2]["content"]
    assert "# Refunds" in activation and "/.flue/skills/refunds/policy.md" in activation
    assert second.body["system"] == system and second.body["tools"] == tools
    assert second.body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "I want a refund"}]},
        {
            "role": "assistant",
            "content": [
                text("Let me check the refund rules."),
                tool_use("toolu_01A", "activate_skill", {"name": "refunds"}),
                tool_use("toolu_01B", "no_such_tool", {}),
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01A", "content": activation},
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01B",
                    "content": session.messages[3]["content"],
                    "is_error": True,
                    "cache_control": CACHE,
                },
            ],
        },
    ]
    assert session.messages[3]["content"].startswith("Error: there is no tool named 'no_such_tool'")
    # The provider's ids are the ids the session keeps.
    assert [c["id"] for c in session.messages[1]["tool_calls"]] == ["toolu_01A", "toolu_01B"]


def test_catalog_announcement_and_prompt_merge_into_one_user_turn(
    fake_api: FakeAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    model = AnthropicModel("claude-test", base_url=fake_api.url, cache_conversation=False)
    session = Harness(make_agent(model)).session("case-2")
    fake_api.reply(message(text("Hello.")))
    session.prompt_sync("hi")
    session.set_state("vip", True)
    fake_api.reply(message(text("Welcome back.")))

    session.prompt_sync("I am a VIP")  # a second prompt_sync: a new event loop, the same model object

    first, second = fake_api.bodies
    assert second["system"] == first["system"]  # byte-identical: the cache stays valid
    announcement = session.messages[2]
    assert announcement["catalog_update"] is True and "vip" in announcement["content"]
    assert second["messages"] == [
        {"role": "user", "content": [text("hi")]},
        {"role": "assistant", "content": [text("Hello.")]},
        {"role": "user", "content": [text(announcement["content"]), text("I am a VIP")]},
    ]
    # One request per turn: the SDK client of the first loop was not reused (and retried) in the second.
    assert [r.headers["x-stainless-retry-count"] for r in fake_api.received] == ["0", "0"]


def valid_turns(turns: list[dict[str, Any]]) -> None:
    """What the Messages API requires of a conversation: user first, roles alternating, each `tool_use` answered
    by a `tool_result` in the next (user) turn, and only the API's own block fields."""
    assert turns[0]["role"] == "user"
    assert all(a["role"] != b["role"] for a, b in zip(turns, turns[1:]))
    fields = {"type", "text", "id", "name", "input", "tool_use_id", "content", "is_error", "cache_control"}
    for index, turn in enumerate(turns):
        assert set(turn) == {"role", "content"} and turn["content"]
        assert all(set(block) <= fields for block in turn["content"])
        asked = [b["id"] for b in turn["content"] if b["type"] == "tool_use"]
        if asked:
            answered = [b["tool_use_id"] for b in turns[index + 1]["content"] if b["type"] == "tool_result"]
            assert answered[: len(asked)] == asked


def test_an_explicit_activation_and_a_disabled_skill_make_valid_turns(fake_api: FakeAPI) -> None:
    model = AnthropicModel("claude-test", api_key="k", base_url=fake_api.url, cache_conversation=False)
    session = Harness(make_agent(model)).session("case-3")
    fake_api.reply(message(text("Refund approved.")))
    fake_api.reply(message(text("You're welcome.")))

    session.prompt_sync("I want a refund", activate=["refunds"])
    session.disable_skills("refunds")
    session.prompt_sync("Thanks!")

    first, second = fake_api.bodies
    assert second["system"] == first["system"] and second["tools"] == first["tools"]
    call, result = session.messages[1:3]
    assert call["explicit"] and result["explicit"]
    [made] = call["tool_calls"]
    activation = [
        {"role": "user", "content": [text("I want a refund")]},
        {"role": "assistant", "content": [tool_use(made["id"], "activate_skill", {"name": "refunds"})]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": made["id"], "content": result["content"]}]},
    ]
    assert first["messages"] == activation
    announcement = session.messages[4]["content"]
    assert announcement.endswith("No longer available: refunds\nAvailable skills now: none")
    assert second["messages"] == [
        *activation,
        {"role": "assistant", "content": [text("Refund approved.")]},
        {"role": "user", "content": [text(announcement), text("Thanks!")]},
    ]
    valid_turns(first["messages"])
    valid_turns(second["messages"])


def test_bad_request_is_a_model_error_with_status_type_message_and_model(fake_api: FakeAPI) -> None:
    fake_api.reply(error(400, "invalid_request_error", "max_tokens: must be at most 64000"), status=400)
    model = AnthropicModel("claude-test", api_key="k", base_url=fake_api.url)
    session = Harness(make_agent(model)).session("s")

    with pytest.raises(ModelError) as caught:
        session.prompt_sync("hi")

    message_text = str(caught.value)
    assert "'claude-test'" in message_text
    assert "400 invalid_request_error: max_tokens: must be at most 64000" in message_text
    import anthropic  # here, not at the top: collecting the module (on every xdist worker) does not load the SDK

    assert isinstance(caught.value.__cause__, anthropic.BadRequestError)
    assert len(fake_api.received) == 1  # a 400 is not retried


def test_overloaded_is_retried_within_the_bound_then_reported(fake_api: FakeAPI) -> None:
    for _ in range(2):
        fake_api.reply(error(529, "overloaded_error", "Overloaded"), status=529, headers={"retry-after-ms": "1"})
    model = AnthropicModel("claude-test", api_key="k", base_url=fake_api.url, max_retries=1)

    with pytest.raises(ModelError, match=r"'claude-test': the API answered 529 overloaded_error: Overloaded"):
        Harness(make_agent(model)).prompt_sync("hi")

    assert [r.headers["x-stainless-retry-count"] for r in fake_api.received] == ["0", "1"]


def test_a_retried_rate_limit_that_then_succeeds_is_invisible(fake_api: FakeAPI) -> None:
    fake_api.reply(error(429, "rate_limit_error", "slow down"), status=429, headers={"retry-after-ms": "1"})
    fake_api.reply(message(text("Fine.")))
    model = AnthropicModel("claude-test", api_key="k", base_url=fake_api.url, max_retries=2)

    assert Harness(make_agent(model)).prompt_sync("hi").text == "Fine."
    assert len(fake_api.received) == 2


def test_unauthorized_names_the_key_variable(fake_api: FakeAPI) -> None:
    fake_api.reply(error(401, "authentication_error", "invalid x-api-key"), status=401)
    model = AnthropicModel("claude-test", api_key="wrong", base_url=fake_api.url)

    with pytest.raises(ModelError, match=r"401 authentication_error: invalid x-api-key.*ANTHROPIC_API_KEY"):
        Harness(make_agent(model)).prompt_sync("hi")


def test_unreachable_endpoint_is_a_model_error(clean_env: pytest.MonkeyPatch) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    model = AnthropicModel("claude-test", api_key="k", base_url=f"http://127.0.0.1:{port}", max_retries=0)

    with pytest.raises(ModelError, match=r"'claude-test': could not reach the API at http://127\.0\.0\.1") as caught:
        Harness(make_agent(model)).prompt_sync("hi")
    import anthropic

    assert isinstance(caught.value.__cause__, anthropic.APIConnectionError)


def test_missing_key_names_the_variable(clean_env: pytest.MonkeyPatch) -> None:
    with pytest.raises(ModelError, match=r"'claude-test': no API key; set the ANTHROPIC_API_KEY environment variable"):
        resolve_model("anthropic/claude-test")
    with pytest.raises(ModelError, match="ANTHROPIC_API_KEY"):
        Harness(make_agent("anthropic/claude-test")).prompt_sync("hi")


def test_auth_token_variable_is_left_to_the_sdk(fake_api: FakeAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "token-123")
    fake_api.reply(message(text("ok")))
    model = AnthropicModel("claude-test", base_url=fake_api.url)

    assert Harness(make_agent(model)).prompt_sync("hi").text == "ok"
    assert fake_api.received[0].headers["authorization"] == "Bearer token-123"


def test_missing_sdk_says_which_extra_to_install(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("ANTHROPIC_API_KEY", "k")
    clean_env.setitem(sys.modules, "anthropic", None)  # what an environment without the SDK looks like

    with pytest.raises(ModelError, match=r"pip install 'flue-skills\[anthropic\]'") as caught:
        resolve_model("anthropic/claude-test")
    assert isinstance(caught.value.__cause__, ImportError)


def test_a_given_client_is_used_as_it_is(fake_api: FakeAPI) -> None:
    import anthropic

    fake_api.reply(message(text("from the given client")))
    client = anthropic.AsyncAnthropic(api_key="given", base_url=fake_api.url, default_headers={"x-team": "support"})
    model = AnthropicModel("claude-test", client=client, max_tokens=100)

    assert Harness(make_agent(model)).prompt_sync("hi").text == "from the given client"
    assert fake_api.received[0].headers["x-team"] == "support"
    assert fake_api.bodies[0]["max_tokens"] == 100


def test_params_without_system_or_tools_leave_them_out(clean_env: pytest.MonkeyPatch) -> None:
    model = AnthropicModel("claude-test", api_key="k")
    params = model.params(
        ModelRequest("", [{"role": "user", "content": "hi"}, {"role": "assistant", "content": ""}], [])
    )
    assert params == {
        "model": "claude-test",
        "max_tokens": 8192,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": CACHE}]}],
    }
