"""`mcp.http_replies`: over streamable HTTP each reply's messages are parsed by the standard library before the SDK's
transport sees them (issue 40 item 9a), and everything else the transport does is as it was: a real `MCPServer`
(`scripted_mcp.py`) answers with JSON bodies, and the same server behind a loopback proxy answers with server-sent
event streams framed every way a server may frame them (line ends, comments, priming events, a notification before
the answer, data over many lines, events of other types, bytes cut anywhere). Its memory: test_remote_listing.py."""

from __future__ import annotations

import pytest
from support.optional import need

need("mcp", "mcp")

import json
import warnings
from collections.abc import Iterator

from support.event_streams import FRAMES, Answer, event_streams
from support.scripted_mcp import entry, served, serving, skill_md, uri, write_config

from flue_runtime import SkillWarning
from flue_runtime.errors import SkillError
from flue_runtime.mcp import remote_skills

pytestmark = pytest.mark.slow  # a server, a proxy

FILES = {"SKILL.md": skill_md("refunds", "Handle refunds."), "policy.md": b"Refund within 30 days.\n"}


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The server over streamable HTTP (its replies JSON bodies), for the whole module."""
    folder = tmp_path_factory.mktemp("server")
    config = write_config(folder, [[entry("refunds", FILES)]], served(FILES, "refunds"))
    with serving(config, "http") as url:
        assert isinstance(url, str)
        yield url


def used(url: str) -> tuple[list[str], bytes, bytes, list[str]]:
    """What `remote_skills(url)` mounts, the two files of its skill, and what `uris=` loads."""
    with remote_skills(url, timeout=30) as skills:
        names = [skill.name for skill in skills]
        files = skills[0].read_bytes("SKILL.md"), skills[0].read_bytes("policy.md")
    with remote_skills(url, uris=[uri("refunds")], timeout=30) as got:
        return names, *files, [skill.name for skill in got]


@pytest.mark.parametrize("frame", ["json", *FRAMES])
def test_replies_as_json_bodies_or_event_streams_framed_any_way_are_read_as_the_server_sent_them(
    upstream: str, frame: str
) -> None:
    if frame == "json":
        assert used(upstream) == (["refunds"], FILES["SKILL.md"], FILES["policy.md"], ["refunds"])
        return
    with event_streams(upstream, FRAMES[frame]) as url:
        assert used(url) == (["refunds"], FILES["SKILL.md"], FILES["policy.md"], ["refunds"])


def replacing(method: str, status: int, kind: str, body: bytes, about: str = "") -> Answer:
    """An answer to the first `method` request (whose params mention `about`) replaced by (status, content type,
    body); the rest passed on."""
    done: list[bool] = []

    def answer(request: dict[str, object], _status: int, _body: bytes) -> tuple[int, str, bytes] | None:
        if request.get("method") != method or about not in json.dumps(request.get("params")) or done:
            return None
        done.append(True)
        return status, kind, body.replace(b"ID", json.dumps(request["id"]).encode())

    return answer


@pytest.mark.parametrize("status", [200, 400])
def test_an_error_answered_with_any_status_reaches_the_caller_as_the_server_said_it(upstream: str, status: int) -> None:
    """A JSON-RPC error in a JSON body, at HTTP 200 or at an error status (the SDK takes only an error from such a
    body): the caller hears the server's own words."""
    error = b'{"jsonrpc":"2.0","id":ID,"error":{"code":-32602,"message":"no skill refunds here today"}}'
    with event_streams(upstream, FRAMES["plain"], replacing("skills/get", status, "application/json", error)) as url:
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always", SkillWarning)
            with remote_skills(url, uris=[uri("refunds")], timeout=30) as got:
                assert list(got) == []
    assert ["no skill refunds here today" in str(w.message) for w in said] == [True], [str(w.message) for w in said]


@pytest.mark.parametrize(
    ("kind", "body"),
    [
        ("application/json", b'{"jsonrpc":"2.0","id":ID,"result":'),
        ("application/json", b'{"jsonrpc":"1.0","id":ID,"result":{}}'),
        ("text/event-stream", b"data: [1, 2\n\n"),
    ],
)
def test_a_reply_that_is_no_json_rpc_message_is_refused_and_the_session_goes_on(
    upstream: str, kind: str, body: bytes
) -> None:
    """The SDK answers it as any malformed reply (a parse error, -32700): the read fails naming the file, the next
    read over the same session succeeds."""
    with event_streams(upstream, FRAMES["plain"], replacing("resources/read", 200, kind, body, "policy.md")) as url:
        with remote_skills(url, timeout=30) as skills:
            with pytest.raises(SkillError, match="-32700"):
                skills[0].read_bytes("policy.md")
            assert skills[0].read_bytes("policy.md") == FILES["policy.md"]
