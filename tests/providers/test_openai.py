"""The OpenAI adapter against a loopback server speaking Chat Completions, with the real SDK."""

from __future__ import annotations

import pytest
from support.optional import need

need("openai", "openai")

import json
import sys
from typing import Any

import openai
from support.fakeapi import FakeAPI

from flue_runtime import Harness, agent, define_skill, use_model, use_skill
from flue_runtime.errors import ModelError
from flue_runtime.models import ModelRequest, resolve_model
from flue_runtime.models.openai import OpenAIModel


def make_agent(model: object) -> Any:
    skill = define_skill(
        name="refunds",
        description="Handle refund requests. Use when a customer asks for money back.",
        instructions="# Refunds\n\nRead policy.md, then check the order date.\n",
        files={"policy.md": "Orders younger than 30 days are refundable.\n"},
    )

    @agent
    def support() -> str:
        use_model(model)  # type: ignore[arg-type]
        use_skill(skill)
        return "Answer customer support questions."

    return support


def completion(content: str | None, *calls: dict[str, Any]) -> dict[str, Any]:
    """A Chat Completions response body."""
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
    if calls:
        message["tool_calls"] = list(calls)
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "gpt-test",
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop", "logprobs": None}
        ],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
    }


def function_call(id: str, name: str, arguments: str) -> dict[str, Any]:  # noqa: A002 - the API's field names
    return {"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}


def error(kind: str, text: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": text, "type": kind, "param": None, "code": code}}


def test_session_round_trips_a_tool_call(fake_api: FakeAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-test")
    monkeypatch.setenv("OPENAI_BASE_URL", fake_api.url + "/v1")
    fake_api.reply(
        completion(
            None,
            function_call("call_abc", "activate_skill", '{"name": "refunds"}'),
            function_call("call_def", "read_skill_resource", '{"path": "/.flue/skills/refunds/policy.md"}'),
        )
    )
    fake_api.reply(completion("Refunds are possible within 30 days."))
    session = Harness(make_agent("openai/gpt-test")).session("case-1")

    result = session.prompt_sync("I want a refund")

    assert result.text == "Refunds are possible within 30 days."
    first, second = fake_api.received
    assert first.path == second.path == "/v1/chat/completions"
    assert first.headers["authorization"] == "Bearer sk-openai-test"
    tools = [
        {
            "type": "function",
            "function": {"name": s["name"], "description": s["description"], "parameters": s["parameters"]},
        }
        for s in session.tools
    ]
    system = {"role": "system", "content": session.system_prompt}
    assert first.body == {
        "model": "gpt-test",
        "messages": [system, {"role": "user", "content": "I want a refund"}],
        "tools": tools,
    }
    activation, policy = session.messages[2]["content"], session.messages[3]["content"]
    assert "# Refunds" in activation and "Orders younger than 30 days" in policy
    assert second.body["tools"] == tools
    assert second.body["messages"] == [
        system,
        {"role": "user", "content": "I want a refund"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                function_call("call_abc", "activate_skill", '{"name": "refunds"}'),
                function_call("call_def", "read_skill_resource", '{"path": "/.flue/skills/refunds/policy.md"}'),
            ],
        },
        {"role": "tool", "tool_call_id": "call_abc", "content": activation},
        {"role": "tool", "tool_call_id": "call_def", "content": policy},
    ]
    assert [c["id"] for c in session.messages[1]["tool_calls"]] == ["call_abc", "call_def"]


def valid_messages(messages: list[dict[str, Any]]) -> None:
    """What Chat Completions requires: each assistant message's tool calls answered by one tool message each,
    right after it, and only the API's own fields."""
    fields = {"role", "content", "tool_calls", "tool_call_id"}
    for index, sent in enumerate(messages):
        assert set(sent) <= fields
        asked = [call["id"] for call in sent.get("tool_calls") or ()]
        following = messages[index + 1 : index + 1 + len(asked)]
        assert [m["role"] for m in following] == ["tool"] * len(asked)
        assert [m["tool_call_id"] for m in following] == asked


def test_an_explicit_activation_and_a_disabled_skill_make_valid_messages(fake_api: FakeAPI) -> None:
    model = OpenAIModel("gpt-test", api_key="k", base_url=fake_api.url + "/v1")
    session = Harness(make_agent(model)).session("case-2")
    fake_api.reply(completion("Refund approved."))
    fake_api.reply(completion("You're welcome."))

    session.prompt_sync("I want a refund", activate=["refunds"])
    session.disable_skills("refunds")
    session.prompt_sync("Thanks!")

    first, second = fake_api.bodies
    assert second["messages"][0] == first["messages"][0] and second["tools"] == first["tools"]
    call, result = session.messages[1:3]
    assert call["explicit"] and result["explicit"]
    [made] = call["tool_calls"]
    activation = [
        {"role": "system", "content": session.system_prompt},
        {"role": "user", "content": "I want a refund"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [function_call(made["id"], "activate_skill", '{"name": "refunds"}')],
        },
        {"role": "tool", "tool_call_id": made["id"], "content": result["content"]},
    ]
    assert first["messages"] == activation
    announcement = session.messages[4]["content"]
    assert announcement.endswith("No longer available: refunds\nAvailable skills now: none")
    assert second["messages"] == [
        *activation,
        {"role": "assistant", "content": "Refund approved."},
        {"role": "user", "content": announcement},
        {"role": "user", "content": "Thanks!"},
    ]
    valid_messages(first["messages"])
    valid_messages(second["messages"])


def test_invalid_json_arguments_become_an_error_result_not_a_crash(fake_api: FakeAPI) -> None:
    fake_api.reply(completion("Checking.", function_call("call_bad", "activate_skill", '{"name": "refunds"')))
    fake_api.reply(completion("Sorry, let me try again later."))
    model = OpenAIModel("gpt-test", api_key="k", base_url=fake_api.url + "/v1")
    session = Harness(make_agent(model)).session("s")

    assert session.prompt_sync("refund").text == "Sorry, let me try again later."

    result = session.messages[2]
    assert result["role"] == "tool" and result["tool_call_id"] == "call_bad" and result["is_error"] is True
    assert result["content"] == (
        "Error: activate_skill: the arguments are not valid JSON (Expecting ',' delimiter: line 1 column 19 (char 18)); "
        "send one JSON object"
    )
    sent = fake_api.bodies[1]["messages"]
    assert sent[2] == {
        "role": "assistant",
        "content": "Checking.",
        "tool_calls": [
            function_call("call_bad", "activate_skill", '{"name": "refunds"')
        ],  # sent back as the model wrote it
    }
    assert sent[3] == {"role": "tool", "tool_call_id": "call_bad", "content": result["content"]}


def test_a_second_prompt_resends_the_history_in_a_fresh_event_loop(fake_api: FakeAPI) -> None:
    model = OpenAIModel("gpt-test", api_key="k", base_url=fake_api.url + "/v1", max_completion_tokens=500)
    session = Harness(make_agent(model)).session("s")
    fake_api.reply(completion("Hello."))
    session.prompt_sync("hi")
    fake_api.reply(completion("Bye."))

    session.prompt_sync("bye")

    second = fake_api.bodies[1]
    assert second["max_completion_tokens"] == 500
    assert second["messages"][1:] == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "Hello."},
        {"role": "user", "content": "bye"},
    ]
    assert [r.headers["x-stainless-retry-count"] for r in fake_api.received] == ["0", "0"]


def test_bad_request_is_a_model_error_with_status_type_message_and_model(fake_api: FakeAPI) -> None:
    fake_api.reply(error("invalid_request_error", "Invalid schema for function 'activate_skill'."), status=400)
    model = OpenAIModel("gpt-test", api_key="k", base_url=fake_api.url + "/v1")

    with pytest.raises(ModelError) as caught:
        Harness(make_agent(model)).prompt_sync("hi")

    assert str(caught.value) == (
        "OpenAI model 'gpt-test': the API answered 400 invalid_request_error: Invalid schema for function 'activate_skill'."
    )
    assert isinstance(caught.value.__cause__, openai.BadRequestError)
    assert len(fake_api.received) == 1


def test_server_error_is_retried_within_the_bound_then_reported(fake_api: FakeAPI) -> None:
    for _ in range(2):
        fake_api.reply(error("server_error", "The server had an error."), status=500, headers={"retry-after-ms": "1"})
    model = OpenAIModel("gpt-test", api_key="k", base_url=fake_api.url + "/v1", max_retries=1)

    with pytest.raises(ModelError, match=r"'gpt-test': the API answered 500 server_error: The server had an error\."):
        Harness(make_agent(model)).prompt_sync("hi")
    assert [r.headers["x-stainless-retry-count"] for r in fake_api.received] == ["0", "1"]


def test_rate_limit_names_the_code_and_hints(fake_api: FakeAPI) -> None:
    body = error("insufficient_quota", "You exceeded your current quota.", code="insufficient_quota")
    fake_api.reply(body, status=429, headers={"x-should-retry": "false", "x-request-id": "req_42"})
    model = OpenAIModel("gpt-test", api_key="k", base_url=fake_api.url + "/v1")

    with pytest.raises(
        ModelError,
        match=r"429 insufficient_quota: You exceeded your current quota\. \(request id req_42\); rate limited",
    ):
        Harness(make_agent(model)).prompt_sync("hi")


def test_missing_key_names_the_variable(clean_env: pytest.MonkeyPatch) -> None:
    with pytest.raises(ModelError, match=r"'gpt-test': no API key; set the OPENAI_API_KEY environment variable"):
        resolve_model("openai/gpt-test")


def test_missing_sdk_says_which_extra_to_install(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("OPENAI_API_KEY", "k")
    clean_env.setitem(sys.modules, "openai", None)

    with pytest.raises(ModelError, match=r"pip install 'flue-skills\[openai\]'"):
        resolve_model("openai/gpt-test")


def test_refusal_is_the_text(clean_env: pytest.MonkeyPatch) -> None:
    from flue_runtime.models.openai import convert_response

    body = completion(None)
    body["choices"][0]["message"]["refusal"] = "I can't help with that."
    parsed = openai.types.chat.ChatCompletion.model_validate(body)
    assert convert_response(parsed, "gpt-test").text == "I can't help with that."


def test_params_leave_out_an_empty_tool_list_and_encode_arguments(clean_env: pytest.MonkeyPatch) -> None:
    model = OpenAIModel("gpt-test", api_key="k")
    call = {"id": "call_1", "name": "lookup", "arguments": {"order": "A-1", "note": "café"}}
    params = model.params(ModelRequest("sys", [{"role": "assistant", "content": "", "tool_calls": [call]}], []))
    assert "tools" not in params
    [_, assistant] = params["messages"]
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"order": "A-1", "note": "café"}
