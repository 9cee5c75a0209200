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


def _guide_samples() -> list[tuple[str, str]]:
    """Each Python sample of the guide and the output shown after it."""
    from support.site import blocks, page

    found = blocks(page("guides/opentelemetry.md"))
    return [
        (block.code, after.code)
        for block, after in zip(found, found[1:], strict=False)
        if block.language == "python" and after.language == ""
    ]


def test_the_guide_runs_as_shown(tmp_path: Path) -> None:
    """The first sample prints exactly what the guide shows; the console recipe prints each line the guide shows of
    it, in order (`...` stands for lines left out: ids and times change from run to run)."""
    samples = _guide_samples()
    assert len(samples) == 2, "the in-memory sample and the console recipe, each followed by its output"
    for number, (code, shown) in enumerate(samples):
        (tmp_path / "snippet.py").write_text(code, encoding="utf-8")
        out = subprocess.run([sys.executable, "snippet.py"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
        assert out.returncode == 0, out.stderr
        if number == 0:
            assert out.stdout == shown
            continue
        position = 0
        for line in (line for line in shown.splitlines() if line.strip() != "..."):
            found = out.stdout.find(line + "\n", position)
            assert found >= 0, (line, out.stdout)
            position = found + len(line)


def _provided_by(module: str) -> str:
    """The distribution that installed `module` (found by the file Python would import it from)."""
    import importlib.metadata
    import importlib.util

    if module.split(".")[0] == "flue_runtime":
        return "flue-skills"  # (installed editable here: its files are the checkout's)
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None, module
    origin = Path(spec.origin).resolve()
    for dist in importlib.metadata.distributions():
        if any(Path(str(dist.locate_file(file))).resolve() == origin for file in dist.files or ()):
            return _normal(dist.metadata["Name"])
    raise AssertionError(f"no distribution installed {module}")


def _module_of(module: str, name: str) -> str:
    """The module `from MODULE import NAME` loads: `MODULE.NAME` when that is a module (`from opentelemetry import
    trace`: the namespace package `opentelemetry` is no one's), else `MODULE`."""
    import importlib.util

    spec = importlib.util.find_spec(module)
    if spec is not None and spec.submodule_search_locations is not None:
        if importlib.util.find_spec(f"{module}.{name}") is not None:
            return f"{module}.{name}"
    return module


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _installed_by(requirements: list[str]) -> set[str]:
    """The distributions `pip install REQUIREMENTS` brings: each named one with its extras, and what they require."""
    import importlib.metadata

    from packaging.requirements import Requirement

    seen: set[tuple[str, frozenset[str]]] = set()
    pending = [Requirement(text) for text in requirements]
    while pending:
        requirement = pending.pop()
        key = (_normal(requirement.name), frozenset(requirement.extras))
        if key in seen:
            continue
        seen.add(key)
        extras = sorted(requirement.extras) or [""]
        for text in importlib.metadata.distribution(key[0]).requires or []:
            needed = Requirement(text)
            if needed.marker is None or any(needed.marker.evaluate({"extra": extra}) for extra in extras):
                pending.append(needed)
    return {name for name, _ in seen}


def test_the_guides_install_line_brings_what_its_samples_import() -> None:
    """`pip install 'flue-skills[otel]'` brings the API only: the SDK the samples import is on the line too."""
    import ast
    import shlex

    from support.site import blocks, page

    [line] = [
        line
        for block in blocks(page("guides/opentelemetry.md"))
        if block.language == "bash"
        for line in block.code.splitlines()
        if line.startswith("pip install ")
    ]
    installed = _installed_by(shlex.split(line)[2:])
    imported = {
        _module_of(node.module, alias.name)
        for code, _ in _guide_samples()
        for node in ast.walk(ast.parse(code))
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }
    assert {module: _provided_by(module) in installed for module in sorted(imported)} == dict.fromkeys(
        sorted(imported), True
    )
