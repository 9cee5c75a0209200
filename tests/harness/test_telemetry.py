"""Issue 34 item 4: activations, reads of skill files and script runs are OpenTelemetry spans with the draft
`gen_ai.skill.*` attributes and our digests, recorded by the real SDK's in-memory exporter; no content in
attributes unless asked; `import flue_runtime` imports no OpenTelemetry."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402
from opentelemetry.trace import StatusCode  # noqa: E402

from flue_runtime import Harness, agent, define_skill, use_model, use_skill  # noqa: E402
from flue_runtime.agents.telemetry import Telemetry  # noqa: E402
from flue_runtime.models import ScriptedModel, ToolCall  # noqa: E402

REFUNDS = define_skill(
    name="refunds",
    description="Handle refund requests.",
    instructions="# Refunds\n\nSECRET-INSTRUCTIONS\n",
    files={"policy.md": "SECRET-POLICY\n"},
)


def _run(content: bool) -> tuple[list[ReadableSpan], Harness]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    model = ScriptedModel(
        [
            [ToolCall("activate_skill", {"name": "refunds"}), ToolCall("lookup", {})],
            [ToolCall("read_skill_resource", {"path": "/.flue/skills/refunds/policy.md"})],
            [ToolCall("read_skill_resource", {"path": "/.flue/skills/refunds/missing.md"})],
            "Done.",
        ]
    )

    @agent
    def support() -> str:
        use_model(model)
        use_skill(REFUNDS)
        return "Help."

    harness = Harness(support, telemetry=Telemetry(tracer_provider=provider, content=content))
    harness.session("case-7").prompt_sync("refund", activate=["refunds"])
    return list(exporter.get_finished_spans()), harness


def _sha(path: str) -> str:
    return next(f.sha256 for f in REFUNDS.files if f.path == path)


def test_skill_tool_calls_are_spans_with_the_skill_attributes_and_digests() -> None:
    spans, _ = _run(content=False)
    assert [s.name for s in spans] == [
        "execute_tool activate_skill",  # the explicit activation
        "execute_tool activate_skill",
        "execute_tool read_skill_resource",
        "execute_tool read_skill_resource",
    ]  # the unknown tool `lookup` is no skill tool: no span
    explicit, chosen, read, missing = (dict(s.attributes or {}) for s in spans)
    assert explicit["flue.skill.explicit"] is True and chosen["flue.skill.explicit"] is False
    assert chosen["gen_ai.operation.name"] == "execute_tool"
    assert chosen["gen_ai.tool.name"] == "activate_skill"
    assert chosen["gen_ai.conversation.id"] == "case-7"
    assert chosen["gen_ai.skill.name"] == "refunds"
    assert chosen["flue.skill.digest"] == REFUNDS.id
    assert chosen["flue.skill.origin"] == REFUNDS.origin
    assert chosen["flue.skill.file.sha256"] == _sha("SKILL.md")
    assert read["flue.skill.kind"] == "read"
    assert read["flue.skill.file.path"] == "policy.md"
    assert read["flue.skill.file.sha256"] == _sha("policy.md")
    assert "gen_ai.skill.name" not in missing and spans[3].status.status_code is StatusCode.ERROR
    assert spans[1].status.status_code is StatusCode.UNSET
    # No content anywhere unless asked.
    for span in spans:
        text = repr(dict(span.attributes or {})) + repr(span.status.description)
        assert "SECRET" not in text and "gen_ai.tool.call.result" not in text


def test_content_goes_into_attributes_only_when_asked() -> None:
    spans, _ = _run(content=True)
    attributes = [dict(s.attributes or {}) for s in spans]
    assert "SECRET-INSTRUCTIONS" in str(attributes[1]["gen_ai.tool.call.result"])
    assert "SECRET-POLICY" in str(attributes[2]["gen_ai.tool.call.result"])
    assert attributes[2]["gen_ai.tool.call.arguments"] == '{"path": "/.flue/skills/refunds/policy.md"}'


def test_importing_flue_runtime_imports_no_opentelemetry_and_tracing_off_imports_none() -> None:
    code = (
        "import sys, flue_runtime\n"
        "from flue_runtime import Harness, agent, define_skill, use_model, use_skill\n"
        "from flue_runtime.models import ScriptedModel, ToolCall\n"
        "assert not [m for m in sys.modules if m.startswith('opentelemetry')]\n"
        "s = define_skill(name='a', description='d', instructions='x')\n"
        "m = ScriptedModel([[ToolCall('activate_skill', {'name': 'a'})], 'ok'])\n"
        "@agent\n"
        "def f():\n"
        "    use_model(m); use_skill(s); return 'x'\n"
        "Harness(f, telemetry=False).session('s').prompt_sync('hi')\n"
        "assert not [m for m in sys.modules if m.startswith('opentelemetry')]\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_guide_runs_as_shown(tmp_path: Path) -> None:
    from support.site import page

    found = re.search(r"```python\n(.*?)```\n\n```\n(.*?)```", page("guides/opentelemetry.md"), re.DOTALL)
    assert found is not None, "a python block followed by its output"
    (tmp_path / "snippet.py").write_text(found.group(1), encoding="utf-8")
    out = subprocess.run([sys.executable, "snippet.py"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout == found.group(2)
