"""OpenTelemetry spans for skill use: each activation, read of a skill file and script run (the `otel` extra).

A call of `activate_skill`, `read_skill_resource` or `run_skill_script` (an explicit activation too)
is a span named as the GenAI semantic conventions name a tool's execution (`execute_tool
activate_skill`), child of whatever span is current, with the draft skill attributes
(`gen_ai.skill.name`, `gen_ai.skill.source.uri` where the skill has one) and ours: where the skill
came from (`flue.skill.origin`, as shown to people, and for a remote skill `flue.skill.server`, its server's
identity), its content id and the SHA-256 of the file served (`flue.skill.*`). Content (the call's
arguments and result) goes into attributes only with `Telemetry(content=True)`.

Only `opentelemetry-api` is needed; nothing here imports it before the first skill tool call of a
harness that traces, so `import flue_runtime` stays free of it.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from flue_runtime.errors import AgentError

if TYPE_CHECKING:
    from flue_runtime.agents.provenance import Served
    from flue_runtime.models.base import ToolCall
    from flue_runtime.mount.reference import SkillReference

__all__ = ["SKILL_TOOLS", "SkillSpan", "Telemetry", "check_telemetry", "skill_span"]

#: The tools whose calls are spans.
SKILL_TOOLS = frozenset({"activate_skill", "read_skill_resource", "run_skill_script"})
_TRACER = "flue_runtime"


@dataclass(frozen=True)
class Telemetry:
    """How a harness traces skill use. `tracer_provider`: an OpenTelemetry `TracerProvider` (None: the global
    one); `content`: also put each call's arguments and result in attributes (`gen_ai.tool.call.arguments`,
    `gen_ai.tool.call.result`), which may hold what users and skills wrote."""

    tracer_provider: Any = None
    content: bool = False


@functools.cache
def _api_importable() -> bool:
    """Whether `opentelemetry-api` can be imported (looked up once, without importing it)."""
    try:
        return importlib.util.find_spec("opentelemetry.trace") is not None
    except ModuleNotFoundError:
        return False


def check_telemetry(setting: Telemetry | bool | None) -> None:
    """`AgentError` for a setting that asks for tracing where `opentelemetry-api` is not installed."""
    if not (setting is None or isinstance(setting, (bool, Telemetry))):
        raise AgentError(f"telemetry takes a Telemetry, True, False or None, not {type(setting).__name__}")
    if setting not in (None, False) and not _api_importable():
        raise AgentError("telemetry needs opentelemetry-api: pip install 'flue-skills[otel]'")


def _chosen(setting: Telemetry | bool | None) -> Telemetry | None:
    if setting is False or (setting is None and not _api_importable()):
        return None
    return setting if isinstance(setting, Telemetry) else Telemetry()


class SkillSpan:
    """The span of one skill tool call, told what the call served and how it ended."""

    def __init__(self, span: Any, telemetry: Telemetry) -> None:
        self.span = span
        self.telemetry = telemetry

    def served(self, item: Served, skill: SkillReference) -> None:
        attributes: dict[str, Any] = {
            "gen_ai.skill.name": item.skill,
            "flue.skill.kind": item.kind,
            "flue.skill.origin": item.origin,
            "flue.skill.digest": item.digest,
            "flue.skill.file.path": item.path,
            "flue.skill.file.sha256": item.sha256,
            "flue.skill.explicit": item.explicit,
        }
        if item.server is not None:
            attributes["flue.skill.server"] = item.server
        uri = source_uri(skill)
        if uri is not None:
            attributes["gen_ai.skill.source.uri"] = uri
        self.span.set_attributes(attributes)

    def result(self, content: str, failed: bool) -> None:
        if self.telemetry.content:
            self.span.set_attribute("gen_ai.tool.call.result", content)
        if failed:
            from opentelemetry.trace import Status, StatusCode

            self.span.set_attribute("error.type", "tool_error")
            self.span.set_status(Status(StatusCode.ERROR, content if self.telemetry.content else None))


def source_uri(skill: SkillReference) -> str | None:
    """Where the skill's files are, as a URI, where the source says: its `uri` (`MountedSource`: a remote MCP
    skill's `skill://…/SKILL.md`), else a folder's `file:` URI."""
    uri = skill.source.uri
    if isinstance(uri, str):
        return uri
    folder = skill.folder
    return folder.as_uri() if folder is not None and folder.is_absolute() else None


@contextlib.contextmanager
def skill_span(setting: Telemetry | bool | None, call: ToolCall, session_id: str) -> Iterator[SkillSpan | None]:
    """A span around a skill tool's `call` when `setting` traces (None: when OpenTelemetry is installed)."""
    telemetry = _chosen(setting) if call.name in SKILL_TOOLS else None
    if telemetry is None:
        yield None
        return
    from opentelemetry import trace

    tracer = trace.get_tracer(_TRACER, tracer_provider=telemetry.tracer_provider)
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": call.name,
        "gen_ai.tool.type": "function",
        "gen_ai.conversation.id": session_id,
    }
    if call.id:
        attributes["gen_ai.tool.call.id"] = call.id
    if telemetry.content:
        attributes["gen_ai.tool.call.arguments"] = json.dumps(call.arguments, ensure_ascii=False, default=str)
    with tracer.start_as_current_span(
        f"execute_tool {call.name}", kind=trace.SpanKind.INTERNAL, attributes=attributes
    ) as span:
        yield SkillSpan(span, telemetry)
