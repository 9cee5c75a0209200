"""What a remote server lists, taken entry by entry (issue 40 item 9): a malformed entry, whatever JSON stands in
any of its fields, is left out with a `SkillWarning` saying why and the honest entry beside it is mounted; and the
client's memory while it reads a listing stays a small multiple of the reply, whatever JSON the reply holds."""

from __future__ import annotations

import pytest
from support.optional import need

need("mcp", "mcp")

import copy
import hashlib
import sys
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import StdioServerParameters

from flue_runtime.errors import SkillVerificationError
from flue_runtime.format.vetting import DEFAULT_LIMITS
from flue_runtime.mcp.host import check_entry
from flue_runtime.mcp.remote import mount_entries
from flue_runtime.mcp.remote_connection import Connection

SHOWN = "MCP server `scripted`"


def honest(name: str) -> dict[str, Any]:
    data = f"---\nname: {name}\ndescription: Handle {name}.\n---\nDo it.\n".encode()
    uri = f"skill://{name}/SKILL.md"
    return {
        "uri": uri,
        "frontmatter": {"name": name, "description": f"Handle {name}."},
        "resources": [{"uri": uri, "digest": "sha256:" + hashlib.sha256(data).hexdigest(), "size": len(data)}],
    }


#: Any JSON value: what a hostile server may put in any field.
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
#: Every field of an entry, by its path in the entry (the empty path: the entry itself).
FIELDS = [
    (),
    ("uri",),
    ("frontmatter",),
    ("frontmatter", "name"),
    ("frontmatter", "description"),
    ("frontmatter", "license"),
    ("frontmatter", "compatibility"),
    ("frontmatter", "metadata"),
    ("frontmatter", "allowed-tools"),
    ("resources",),
    ("resources", 0),
    ("resources", 0, "uri"),
    ("resources", 0, "digest"),
    ("resources", 0, "size"),
]


def replaced(entry: dict[str, Any], path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    changed = copy.deepcopy(entry)
    holder = changed
    for part in path[:-1]:
        holder = holder[part]
    holder[path[-1]] = value
    return changed


def connection() -> Connection:
    """A connection that is never opened: mounting from entries reads nothing."""
    server = StdioServerParameters(command=sys.executable, args=["-c", "raise SystemExit(1)"])
    return Connection(server, SHOWN, 5.0, None, DEFAULT_LIMITS)


def is_loadable(entry: object) -> bool:
    try:
        check_entry(entry, allow_dynamic=True)  # type: ignore[arg-type]
    except (SkillVerificationError, AttributeError, TypeError):
        return False
    return True


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field=st.sampled_from(FIELDS), value=JSON, first=st.booleans())
def test_a_malformed_entry_is_left_out_with_a_warning_and_the_honest_one_is_mounted(
    field: tuple[Any, ...], value: Any, first: bool
) -> None:
    hostile = replaced(honest("alpha"), field, value)
    entries = [hostile, honest("refunds")] if first else [honest("refunds"), hostile]
    sent = [e if isinstance(e, dict) else {"uri": repr(e)[:200]} for e in entries]  # (as `list_skills` keeps it)
    mounted, notes = mount_entries(connection(), sent, allow_dynamic=False, limits=DEFAULT_LIMITS)
    names = [skill.name for skill in mounted]
    assert "refunds" in names or is_loadable(hostile), (names, notes)
    assert len(mounted) + sum("not mounted" in note for note in notes) == 2, (names, notes)
    assert all(note.startswith(SHOWN) for note in notes)  # (each names the server)


@pytest.mark.parametrize(
    ("field", "value"),
    [(("uri",), ["skill://x/SKILL.md"]), (("uri",), {"a": 1}), (("resources", 0, "uri"), [1]), ((), [1, 2])],
)
def test_entries_the_host_met_as_type_errors_are_left_out_naming_why(field: tuple[Any, ...], value: Any) -> None:
    hostile = replaced(honest("alpha"), field, value)
    sent = [hostile if isinstance(hostile, dict) else {"uri": repr(hostile)}, honest("refunds")]
    mounted, notes = mount_entries(connection(), sent, allow_dynamic=False, limits=DEFAULT_LIMITS)
    assert [skill.name for skill in mounted] == ["refunds"]
    [note] = notes
    assert "not mounted" in note
