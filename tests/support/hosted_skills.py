"""A loopback stand-in of the hosted skill APIs, Anthropic's and OpenAI's, for the real SDK clients to talk to.

Written from the SDKs' own paths and response types (`anthropic.resources.beta.skills`, `openai.resources.skills`):
every answer is built by the SDK's model class (`BetaSkill`, `BetaSkillVersion`, `Skill`, `SkillVersion`) from its
fields, so a field the SDK requires cannot be missing. It keeps state as the services do (skills, their versions,
the default one) and records every request with the files it carried, so a test asserts the exact bytes that left.
It refuses what the services refuse (an upload whose files are not in one top-level folder holding SKILL.md, a name
holding "anthropic" or "claude"; on OpenAI, a zip with more than one SKILL.md), so an upload that passes here has
the services' shape. `out_of_band(...)` makes a version as someone else would, through the service's own web page.
"""

from __future__ import annotations

import email.parser
import email.policy
import io
import itertools
import json
import re
import threading
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import pytest

from support.fakeapi import SDK_VARIABLES
from support.json_server import JsonServer


@dataclass
class Request:
    """One request as the service received it: the files of a multipart upload by their file name."""

    method: str
    path: str
    headers: dict[str, str]
    form: dict[str, str] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)
    body: bytes = b""

    @property
    def writes(self) -> bool:
        return self.method != "GET"


@dataclass
class Version:
    id: str
    number: str
    files: dict[str, bytes]  # path inside the skill's folder -> bytes


@dataclass
class HostedSkill:
    id: str
    name: str
    description: str
    versions: list[Version] = field(default_factory=list)
    default: str = ""


class StandIn:
    """Both services on one loopback port: Anthropic and OpenAI under `/v1/skills` (told apart by
    the `anthropic-version` header only Anthropic's SDK sends)."""

    def __init__(self) -> None:
        self.requests: list[Request] = []
        self.skills: dict[str, dict[str, HostedSkill]] = {"anthropic": {}, "openai": {}}
        #: (status, JSON body) to answer every write request with, instead of doing it (401, 500, ...).
        self.failure: tuple[int, dict[str, Any]] | None = None
        self._ids = itertools.count(1)
        self.lock = threading.Lock()
        self.http = JsonServer(self._serve)

    @property
    def url(self) -> str:
        return self.http.url

    @property
    def writes(self) -> list[Request]:
        return [r for r in self.requests if r.writes]

    def uploads(self, service: str) -> list[dict[str, bytes]]:
        """The files of every upload to `service`, in order, each by its path in the upload (`<folder>/<path>`)."""
        found = []
        for request in self.writes:
            if _service(request) == service and request.files:
                found.append(_upload_files(service, request))
        return found

    def out_of_band(self, service: str, skill_id: str, files: dict[str, bytes]) -> str:
        """A new version made by someone else (it becomes the latest, and OpenAI's default): how the SDK names it."""
        with self.lock:
            version = self._new_version(service, self.skills[service][skill_id], files)
        return version.id if service == "anthropic" else version.number

    # --- what the services do ---

    def _serve(self, method: str, path: str, headers: dict[str, str], body: bytes) -> tuple[int, Any, dict[str, str]]:
        request = Request(method, path, headers, body=body)
        if headers.get("content-type", "").startswith("multipart/form-data"):
            request.form, request.files = _multipart(headers["content-type"], body)
        elif body:
            request.form = {k: str(v) for k, v in json.loads(body).items()}
        status, answer = self.answer(request)
        return status, answer, {"x-should-retry": "false"}

    def answer(self, request: Request) -> tuple[int, Any]:
        with self.lock:
            self.requests.append(request)
            service = _service(request)
            if request.writes and self.failure is not None:
                return self.failure
            parts = urlsplit(request.path).path.strip("/").split("/")  # v1, skills, [id, [versions]]
            if parts[:2] != ["v1", "skills"] or len(parts) > 4:
                return _error(service, 404, f"no route {request.method} {request.path}")
            if len(parts) == 2 and request.method == "POST":
                return self._create(service, request)
            skill = self.skills[service].get(parts[2]) if len(parts) > 2 else None
            if skill is None:
                return _error(service, 404, f"no skill {parts[2] if len(parts) > 2 else ''}")
            if len(parts) == 3 and request.method == "GET":
                return 200, _skill_json(service, skill)
            if len(parts) == 4 and parts[3] == "versions" and request.method == "POST":
                return self._version(service, skill, request)
            return _error(service, 405, f"{request.method} {request.path} is not part of this stand-in")

    def _create(self, service: str, request: Request) -> tuple[int, Any]:
        files, refusal = _checked_upload(service, request)
        if refusal:
            return _error(service, 400, refusal)
        front = _frontmatter(files["SKILL.md"])
        skill = HostedSkill(f"skill_{next(self._ids):04d}", front["name"], front["description"])
        self.skills[service][skill.id] = skill
        self._new_version(service, skill, files)
        return 200, _skill_json(service, skill)

    def _version(self, service: str, skill: HostedSkill, request: Request) -> tuple[int, Any]:
        files, refusal = _checked_upload(service, request)
        if refusal:
            return _error(service, 400, refusal)
        if _frontmatter(files["SKILL.md"])["name"] != skill.name:
            return _error(service, 400, f"a version of {skill.name!r} must keep its name")
        version = self._new_version(service, skill, files, default=request.form.get("default") == "true")
        return 200, _version_json(service, skill, version)

    def _new_version(self, service: str, skill: HostedSkill, files: dict[str, bytes], default: bool = True) -> Version:
        number = str(len(skill.versions) + 1)
        version = Version(f"skillver_{next(self._ids):04d}", number, files)
        skill.versions.append(version)
        if default or not skill.default:
            skill.default = number
        return version


# --- the wire ---------------------------------------------------------------------------------------


def _service(request: Request) -> str:
    """Anthropic's SDK sends `anthropic-version` with every request; OpenAI's does not."""
    return "anthropic" if "anthropic-version" in request.headers else "openai"


def _upload_files(service: str, request: Request) -> dict[str, bytes]:
    if service == "openai" and len(request.files) == 1 and next(iter(request.files)).endswith(".zip"):
        with zipfile.ZipFile(io.BytesIO(next(iter(request.files.values())))) as archive:
            return {info.filename: archive.read(info) for info in archive.infolist() if not info.is_dir()}
    return dict(request.files)


def _checked_upload(service: str, request: Request) -> tuple[dict[str, bytes], str]:
    """The skill's files by their path inside its folder, or why the service would refuse the upload."""
    uploaded = _upload_files(service, request)
    tops = {path.split("/", 1)[0] for path in uploaded}
    if len(tops) != 1 or any("/" not in path for path in uploaded):
        return {}, f"all files must be in one top-level folder, not {sorted(tops)}"
    [top] = tops
    files = {path.split("/", 1)[1]: data for path, data in uploaded.items()}
    if "SKILL.md" not in files:
        return {}, "SKILL.md must be at the root of the folder"
    name = _frontmatter(files["SKILL.md"]).get("name", "")
    if service == "anthropic":
        if re.search("anthropic|claude", name):
            return {}, "name cannot contain reserved words"
        if top != name:
            return {}, f"the folder {top!r} must be named as the skill {name!r}"
        if sum(len(data) for data in files.values()) > 8_000_000:
            return {}, "total upload size exceeds 8 MB"
    elif sum(1 for path in files if path.lower().rsplit("/", 1)[-1] == "skill.md") != 1:
        return {}, "exactly one SKILL.md is allowed"
    return files, ""


def _frontmatter(data: bytes) -> dict[str, str]:
    head = data.decode().split("---\n")[1]
    return dict(line.split(": ", 1) for line in head.splitlines() if ": " in line)


def _skill_json(service: str, skill: HostedSkill) -> Any:
    if service == "anthropic":
        from anthropic.types.beta import BetaSkill

        latest = skill.versions[-1].id
        return BetaSkill.model_validate(
            {
                "id": skill.id,
                "created_at": "2026-10-01T00:00:00Z",
                "display_name": skill.name,
                "latest_version_id": latest,
                "source": {"type": "custom"},
                "type": "skill",
                "updated_at": "2026-10-01T00:00:00Z",
            }
        ).model_dump(mode="json")
    from openai.types import Skill

    return Skill.model_validate(
        {
            "id": skill.id,
            "created_at": 1_790_000_000,
            "default_version": skill.default,
            "description": skill.description,
            "latest_version": skill.versions[-1].number,
            "name": skill.name,
            "object": "skill",
        }
    ).model_dump(mode="json")


def _version_json(service: str, skill: HostedSkill, version: Version) -> Any:
    if service == "anthropic":
        from anthropic.types.beta.skills import BetaSkillVersion

        return BetaSkillVersion.model_validate(
            {
                "id": version.id,
                "created_at": "2026-10-01T00:00:00Z",
                "description": skill.description,
                "name": skill.name,
                "skill_id": skill.id,
                "type": "skill_version",
            }
        ).model_dump(mode="json")
    from openai.types.skills import SkillVersion

    return SkillVersion.model_validate(
        {
            "id": version.id,
            "created_at": 1_790_000_000,
            "description": skill.description,
            "name": skill.name,
            "object": "skill.version",
            "skill_id": skill.id,
            "version": version.number,
        }
    ).model_dump(mode="json")


def _error(service: str, status: int, message: str) -> tuple[int, Any]:
    kind = {400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error"}.get(status, "api_error")
    if service == "anthropic":
        return status, {"type": "error", "error": {"type": kind, "message": message}}
    return status, {"error": {"type": kind, "message": message, "code": None, "param": None}}


def failure(service: str, status: int, message: str) -> tuple[int, Any]:
    """What `StandIn.failure` answers with: the service's error body."""
    return _error(service, status, message)


def _multipart(content_type: str, body: bytes) -> tuple[dict[str, str], dict[str, bytes]]:
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body
    )
    form: dict[str, str] = {}
    files: dict[str, bytes] = {}
    for part in message.iter_parts():
        data = part.get_payload(decode=True)
        assert isinstance(data, bytes)
        filename = part.get_param("filename", header="content-disposition")
        if filename is not None:
            assert str(filename) not in files, f"{filename} sent twice"
            files[str(filename)] = data
        else:
            form[str(part.get_param("name", header="content-disposition"))] = data.decode()
    return form, files


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> Iterator[StandIn]:
    """The stand-in, and both SDKs pointed at it as a user points them (the variables they read), with test keys."""
    for name in SDK_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    standin = StandIn()
    standin.http.start()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", standin.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", standin.url + "/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")
    try:
        yield standin
    finally:
        standin.http.stop()
