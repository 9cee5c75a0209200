"""Which skills a remote Skills server serves: every page of `skills/list`, or the entries of given URIs through
`skills/get` (SEP-2640: a host MUST support loading a skill given only its URI), each entry as sent (the host's
checks look at it one by one, `mcp.host`); and the warning for a skill left out."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import mcp_types as types
from mcp import Client
from mcp_types.jsonrpc import METHOD_NOT_FOUND
from pydantic import BaseModel, ConfigDict, Field

from flue_runtime.errors import RemoteSkillsError
from flue_runtime.format.diagnostics import cut, printable
from flue_runtime.format.records import SKILL_FILE
from flue_runtime.mcp.remote_connection import SHOWN, Connection, Refused

__all__ = ["MAX_PAGES", "MAX_SKILLS", "asked_uris", "get_skills", "list_skills", "skipped"]

#: `skills/list` pages and skills one call reads at most: a server that pages forever cannot hang it.
MAX_PAGES = 1_000
MAX_SKILLS = 10_000
#: An absolute URI's start: its scheme (RFC 3986, section 3.1) and the colon after it.
_ABSOLUTE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


class _ListSkills(types.Request[types.PaginatedRequestParams | None, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"
    params: types.PaginatedRequestParams | None = None


class _GetSkillParams(types.RequestParams):
    uri: str


class _GetSkill(types.Request[_GetSkillParams, Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"
    params: _GetSkillParams


class _GotSkill(BaseModel):
    """A `skills/get` result: the entry as sent (the host's checks read it)."""

    model_config = ConfigDict(extra="allow", strict=True)
    skill: Any


class _SkillsPage(BaseModel):
    """A `skills/list` result: its entries kept as sent (the host's checks read them), and the next cursor."""

    model_config = ConfigDict(extra="allow", strict=True)  # (lax, a string would pass as a list of letters)
    skills: list[Any]
    next_cursor: str | None = Field(default=None, alias="nextCursor")


def list_skills(connection: Connection, deadline: float) -> list[Mapping[str, Any]]:
    """Every entry of every page of `skills/list`, bounded in pages and entries; each entry as sent (the host's
    checks look at it one by one)."""
    entries: list[Mapping[str, Any]] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):

        async def page(client: Client, cursor: str | None = cursor) -> _SkillsPage:
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            return await client.session.send_request(_ListSkills(params=params), _SkillsPage)

        try:
            result = connection.call("skills/list", page, deadline)
        except Refused as refused:
            raise RemoteSkillsError(connection.shown, f"skills/list: the server answered {refused}") from None
        cursor = result.next_cursor
        entries.extend(e if isinstance(e, Mapping) else {"uri": repr(e)[:SHOWN]} for e in result.skills)
        if len(entries) > MAX_SKILLS:
            raise RemoteSkillsError(connection.shown, f"skills/list lists more than {MAX_SKILLS:,} skills")
        if not cursor:
            return entries
        if cursor in seen:
            raise RemoteSkillsError(connection.shown, "skills/list gave a cursor it gave before: its pages never end")
        seen.add(cursor)
    raise RemoteSkillsError(connection.shown, f"skills/list has more than {MAX_PAGES:,} pages")


def asked_uris(shown: str, uris: Sequence[str]) -> list[str]:
    """`uris` as given, each an absolute URI of a SKILL.md, under any scheme (the caller's mistake is said before
    connecting). No scheme is privileged (final text, "Resource Mapping"): whether a URI is a skill is for the
    server's answer to `skills/get` to say, never for its scheme."""
    if isinstance(uris, str) or not isinstance(uris, Sequence):
        raise RemoteSkillsError(shown, f"uris= is a list of URIs of a {SKILL_FILE}, not {printable(repr(uris), SHOWN)}")
    for uri in uris:
        if not (isinstance(uri, str) and _ABSOLUTE.match(uri) and uri.endswith("/" + SKILL_FILE)):
            raise RemoteSkillsError(
                shown,
                f"uris= holds {printable(repr(uri), SHOWN)}: a skill's URI is the absolute URI of its {SKILL_FILE} "
                f"(skill://acme/refunds/{SKILL_FILE}, or under the scheme the server serves it by)",
            )
    return list(uris)


def get_skills(connection: Connection, uris: list[str], deadline: float) -> tuple[list[Mapping[str, Any]], list[str]]:
    """The entry of each of `uris`, by `skills/get` (SEP-2640: loading a skill by URI alone), in their order, and a
    warning for each URI the server refused or answered with another skill's entry; a server without `skills/get`
    is a `RemoteSkillsError`."""
    entries: list[Mapping[str, Any]] = []
    notes: list[str] = []
    for uri in uris:

        async def get(client: Client, uri: str = uri) -> _GotSkill:
            return await client.session.send_request(_GetSkill(params=_GetSkillParams(uri=uri)), _GotSkill)

        try:
            got = connection.call(f"skills/get {uri}", get, deadline).skill
        except Refused as refused:
            if refused.code == METHOD_NOT_FOUND:
                raise RemoteSkillsError(
                    connection.shown, f"skills/get: the server does not support it ({refused}); it lists skills only"
                ) from None
            notes.append(skipped(connection, {"uri": uri}, f"skills/get: the server answered {refused}"))
            continue
        if not isinstance(got, Mapping) or got.get("uri") != uri:
            said = printable(repr(got.get("uri") if isinstance(got, Mapping) else got), SHOWN)
            notes.append(skipped(connection, {"uri": uri}, f"skills/get answered with another entry ({said})"))
            continue
        entries.append(got)
    return entries, notes


def skipped(connection: Connection, entry: Mapping[str, Any], reason: str) -> str:
    """The warning for a skill left out: the server, the entry's URI, why."""
    uri = str(entry.get("uri"))
    shown = cut(uri, SHOWN)
    reason = reason.removeprefix(connection.shown + " ")  # (a source's error names the server first, as here)
    return f"{connection.shown}: skill {shown!r} not mounted: {printable(reason)}"
