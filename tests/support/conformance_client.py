"""An application using our MCP skills host, for the official conformance suite's Skills client scenarios.

The suite starts a Skills server of its own and runs `python conformance_client.py URL`, the scenario named in
`MCP_CONFORMANCE_SCENARIO`; it then judges what the host asked the server for. This client is what an application
writes (`remote_skills` mounted in a `Harness`) and nothing else: the host lists the server's skills, the model
sees the catalog, and when the model activates a skill and reads one of its files, the host fetches and verifies
what it needs then. The scenario only decides what the (scripted) model does: under `sep-2640-client-no-prefetch`
it answers without activating anything; under the others it activates the listed skill, then asks for one of its
support files, which a host must not read after refusing the skill's SKILL.md.

Every tool result the model received is printed to stderr (the suite keeps it as `stderr.txt`); the test reads it.
"""

from __future__ import annotations

import os
import sys

from flue_runtime import Harness, agent, use_model, use_skill
from flue_runtime.mcp import remote_skills
from flue_runtime.models import ScriptedModel, ToolCall


def turns(scenario: str, name: str, files: list[str]) -> list[list[ToolCall] | str]:
    """What the model does: nothing with the skill when the scenario is about listing alone; else load it and
    read its first support file."""
    if scenario == "sep-2640-client-no-prefetch":
        return ["No skill is needed for this."]
    return [
        [ToolCall("activate_skill", {"name": name})],
        [ToolCall("read_skill_resource", {"path": files[0]})],  # as its instructions would name it
        "Done.",
    ]


def main(url: str, scenario: str) -> int:
    with remote_skills(url, timeout=20) as skills:
        [skill] = skills
        model = ScriptedModel(turns(scenario, skill.name, list(skill.resources)))

        @agent
        def assistant() -> str:
            use_model(model)
            use_skill(skill)
            return "Help with documents."

        Harness(assistant).session("conformance").prompt_sync("Fill in the form in form.pdf")
    print(f"catalog: {model.requests[0].system.splitlines()[-1]}", file=sys.stderr)
    for message in model.requests[-1].messages:
        if message["role"] == "tool":
            print(f"tool result: {message['content']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[-1], os.environ.get("MCP_CONFORMANCE_SCENARIO", "")))
