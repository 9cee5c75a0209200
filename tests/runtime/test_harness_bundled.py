"""The harness tools over a skill installed from a real wheel (unpacked and zipped): exact bundled bytes."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from rtsetups import Setup
from support.paths import PROJECTS

from flue_runtime.agents.reading import page
from flue_runtime.format.text_files import is_text

pytestmark = pytest.mark.slow  # the run-time setups: built wheels, installed into fresh venvs

SKILL = PROJECTS / "runtime-agent" / "skills" / "data-tools"

SESSION = """
import json
from flue_runtime import Harness, MemorySandbox, agent, use_model, use_skill
from flue_runtime.models import ScriptedModel, ToolCall
from runtime_agent_demo.agents import support

model = ScriptedModel([
    [ToolCall("activate_skill", {"name": "data-tools"})],
    [ToolCall("read_skill_resource", {"path": "/.flue/skills/data-tools/assets/blob.bin"}),
     ToolCall("read", {"path": "/.flue/skills/data-tools/assets/blob.bin"}),
     ToolCall("read_skill_resource", {"path": "/.flue/skills/data-tools/scripts/summarise.py"}),
     ToolCall("read", {"path": "/.flue/skills/data-tools/../billing/policy.md"})],
    "done",
])

@agent
def a():
    use_model(model)
    use_skill(support.DATA)
    return "x"

Harness(a, sandbox=MemorySandbox()).session("s").prompt_sync("go")
print(json.dumps({"origin": support.DATA.origin, "results": [m for m in model.requests[-1].messages if m["role"] == "tool"],
                  "activation": model.requests[1].messages[-1]["content"]}))
"""


@pytest.mark.parametrize("name", ["wheel", "zip"])
def test_tools_return_the_exact_bundled_bytes(setups: dict[str, Setup], name: str) -> None:
    out: dict[str, Any] = json.loads(setups[name].code(SESSION).stdout)
    assert "_flue_skills/skills/" in out["origin"] and "bundled" in out["origin"]
    assert "- /.flue/skills/data-tools/assets/blob.bin" in out["activation"]
    by_resource, by_read, script, escape = out["results"][-4:]
    blob = (SKILL / "assets" / "blob.bin").read_bytes()
    assert not is_text(blob)  # so it must come back as base64
    for result in (by_resource, by_read):
        assert result["is_error"] is False
        header, body = result["content"].split("\n")[:2]
        assert (
            header
            == f"[binary file /.flue/skills/data-tools/assets/blob.bin, {len(blob)} bytes; base64 of bytes 0-{len(blob)}]"
        )
        assert base64.b64decode(body) == blob
    source = (SKILL / "scripts" / "summarise.py").read_bytes()
    assert script["content"] == page(source, "/.flue/skills/data-tools/scripts/summarise.py", "read_skill_resource")
    policy = (
        PROJECTS / "runtime-agent" / "src" / "runtime_agent_demo" / "skills" / "billing" / "policy.md"
    ).read_text()
    assert (
        escape["is_error"] is True and "Refunds within 30 days" in policy and "Refunds within" not in escape["content"]
    )
