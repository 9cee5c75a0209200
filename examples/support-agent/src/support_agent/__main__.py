"""Run one support conversation and show what the model sees.

python -m support_agent                               # offline, with a scripted model
python -m support_agent --model anthropic/claude-haiku-4-5   # a real provider (needs its API key)
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from flue_runtime import Harness
from flue_runtime.models import ModelError, ScriptedModel, ToolCall, check_api_key

from . import agent

FIRST = "Hi! Order A-1001 arrived with a torn cover. Can I get my money back?"
SECOND = "Thanks. By the way, I am a VIP customer."

SCRIPT = [
    [ToolCall("activate_skill", {"name": "refunds"})],
    [ToolCall("read_skill_resource", {"path": "/.flue/skills/refunds/policy.md"})],
    "I'm sorry about the torn cover! Books returned within 30 days are refunded in full; "
    "send it back and the refund reaches you within 5 business days.",
    [ToolCall("activate_skill", {"name": "vip"})],
    "Thank you for being a VIP customer: I've added a 10% voucher and free express shipping on a replacement.",
]


def show(title: str, text: str) -> None:
    print(f"\n=== {title} ===\n{text.rstrip()}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="support-agent", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", help="provider/model, e.g. anthropic/claude-haiku-4-5 or openai/gpt-5-mini")
    args = parser.parse_args(argv)
    if args.model:
        try:
            check_api_key(args.model)
        except ModelError as exc:
            print(f"{parser.prog}: error: {exc}", file=sys.stderr)
            return 2
    scripted = ScriptedModel(SCRIPT)
    agent.MODEL = args.model or scripted

    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder) / "sessions.db"
        session = Harness(agent.support, store=store).session("case-42")
        first_system_prompt = session.system_prompt
        show("skills", "\n".join(f"{s.name}: {s.origin}" for s in (agent.REFUNDS, agent.VIP, agent.ESCALATION)))
        show("system prompt", first_system_prompt)
        show("tools", json.dumps([t["name"] for t in session.tools]))
        for prompt, unlock_vip in ((FIRST, False), (SECOND, True)):
            if unlock_vip:
                session.set_state("vip", True)
            show("customer", prompt)
            result = session.prompt_sync(prompt)
            for message in result.messages:
                if message.get("catalog_update"):
                    show("catalog update (appended message)", message["content"])
                for call in message.get("tool_calls", []):
                    show(f"tool call: {call['name']}", json.dumps(call["arguments"]))
                if message["role"] == "tool":
                    show(f"tool result: {message['name']}", message["content"])
            show("agent", result.text)
        resumed = Harness(agent.support, store=store).session("case-42")
        sent = {request.system for request in scripted.requests} or {first_system_prompt}
        same = sent == {first_system_prompt} and resumed.system_prompt == first_system_prompt
        print(f"\nsystem prompt byte-identical in every request and after resuming from {store.name}: {same}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
