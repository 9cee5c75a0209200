"""Agents the CLI tests load as MODULE:AGENT (this folder is put on the child's PYTHONPATH).

The scripted model answers from what it is sent, not from a position in its script, so a
second process that resumes a session answers from the stored conversation.
"""

from __future__ import annotations

import asyncio
import time

from flue_runtime import agent, define_skill, use_model, use_skill, use_state, use_tool
from flue_runtime.models import ModelRequest, ModelResponse, ScriptedModel, ToolCall

REFUNDS = define_skill(
    name="refunds",
    description="Handle refund requests. Use when a customer asks for money back.",
    instructions="Check the order with order_status, then apply policy.md.",
    files={"policy.md": "Orders delivered less than 30 days ago are refunded in full.\n"},
)
VIP = define_skill(name="vip", description="Extra care for VIP customers.", instructions="Add a 10% voucher.")


def order_status(order_id: str) -> str:
    """Look up an order's delivery status by its id, like "A-1001"."""
    return f"{order_id}: delivered 3 days ago"


async def slow_lookup(query: str) -> str:
    """Search the archive (takes a minute)."""
    await asyncio.sleep(60)
    return "found nothing"


def blocking_lookup(query: str) -> str:
    """Search the old archive (blocks for a minute)."""
    time.sleep(60)
    return "found nothing"


def said(request: ModelRequest) -> list[str]:
    """What the user typed so far in this conversation (announcements left out)."""
    return [
        m["content"]
        for m in request.messages
        if m["role"] == "user" and not m.get("catalog_update") and not m.get("instructions_update")
    ]


def reply(request: ModelRequest) -> ModelResponse:
    last = request.messages[-1]
    if last["role"] == "tool" and not last.get("explicit"):  # (an explicit activation, `--skill`, is no answer)
        results = [m["content"] for m in request.messages if m["role"] == "tool" and m["name"] == "order_status"]
        return ModelResponse(text=f"Refund approved ({results[-1]}).")
    words = said(request)
    latest = words[-1]
    if "refund" in latest:
        return ModelResponse(
            text="Let me check.",
            tool_calls=(
                ToolCall("activate_skill", {"name": "refunds"}),
                ToolCall("order_status", {"order_id": "A-1001"}),
            ),
        )
    if "archive" in latest:
        return ModelResponse(tool_calls=(ToolCall("slow_lookup", {"query": latest}),))
    if "old files" in latest:
        return ModelResponse(tool_calls=(ToolCall("blocking_lookup", {"query": latest}),))
    return ModelResponse(text=f"You said {len(words)} thing(s) so far: " + " | ".join(words))


model = ScriptedModel([reply] * 100)


@agent
def support() -> str:
    use_model(model)
    use_skill(REFUNDS)
    use_tool(order_status)
    use_tool(slow_lookup)
    use_tool(blocking_lookup)
    if use_state("vip", False):
        use_skill(VIP)
    return "You are the support agent of Example Books."


@agent
def modelless() -> str:
    use_skill(REFUNDS)
    return "You answer questions."


@agent
def broken() -> str:
    raise RuntimeError("the agent's own bug")


#: One answer only: a second prompt fails its turn (the script is exhausted), and `run` exits 1.
short_model = ScriptedModel(["The only answer."])


@agent
def short() -> str:
    use_model(short_model)
    return "You answer once."
