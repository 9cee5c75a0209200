"""What a remote server lists, taken entry by entry (issue 40 item 9): a malformed entry, whatever JSON stands in
any of its fields, is left out with a `SkillWarning` saying why and the honest entry beside it is mounted; and the
client's memory while it reads a listing stays a small multiple of the reply, whatever JSON the reply holds."""

from __future__ import annotations

import pytest
from support.optional import need

need("mcp", "mcp")

import copy
import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import StdioServerParameters
from support.peak import FROM_HERE, GROWN

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


# --- a reply's memory (issue 40 item 9a) ---------------------------------------------------------

CLIENT = (
    """
import json, sys, warnings
args = json.loads(sys.argv[1])
from flue_runtime.mcp import remote_skills
warnings.simplefilter("ignore")
try:  # the same imports, thread and client made once, so that what grows below is the reply's
    remote_skills([sys.executable, "-c", "raise SystemExit(1)"], timeout=10)
except Exception:
    pass
"""
    + FROM_HERE
    + """try:
    with remote_skills(args["command"], timeout=120) as skills:
        said = {"mounted": [s.name for s in skills]}
except Exception as exc:
    said = {"error": type(exc).__name__, "message": str(exc)}
said["grew"] = """
    + GROWN
    + """
print(json.dumps(said))
"""
)

MiB = 1024 * 1024
#: 16 MiB of JSON in an extra key of one entry, as the issue found it (`[0,0,...]`), and as objects and a string.
HOSTILE = {
    "array": lambda size: [0] * (size // 2),
    "objects": lambda size: [{}] * (size // 3),
    "string": lambda size: "a" * size,
}
#: The replies parsed over an event stream too (the others are refused by the same count, whatever carries them).
PARSED_AS_EVENTS = [("string", "events"), ("listing", "events")]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("kind", "transport"),
    [*((kind, transport) for kind in [*HOSTILE, "listing"] for transport in ("stdio", "http")), *PARSED_AS_EVENTS],
)
def test_a_listing_reply_grows_the_client_by_at_most_8_times_its_bytes_whatever_json_it_holds(
    tmp_path: Path, kind: str, transport: str
) -> None:
    """A `skills/list` reply within the byte limit whose one entry carries 16 MiB of JSON in an extra key, or an
    honest listing of 16 MiB (entries of 40 files each), over stdio, over streamable HTTP as a JSON body or as a
    server-sent event: the client's peak memory grows by at most 8 times the reply (it grew 1.1 GiB, 71 times, for
    the array over stdio; 222 MiB, 14 times, for the honest listing over HTTP); a reply holding more JSON values than
    its size allows is refused before it is parsed, naming the server."""
    from support.scripted_mcp import entry, honest_listing, served, serving, skill_md, write_config

    files = {"SKILL.md": skill_md("refunds", "Handle refunds.")}
    if kind == "listing":
        page = honest_listing(16 * MiB)
    else:
        page = [{**entry("refunds", files), "x": HOSTILE[kind](16 * MiB)}]
    config = write_config(tmp_path, [page], served(files, "refunds"))
    reply = len(json.dumps(page, separators=(",", ":")))
    with serving(config, transport) as target:
        done = subprocess.run(
            [sys.executable, "-c", CLIENT, json.dumps({"command": target})],
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=300,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said["grew"] <= 8 * reply, (said["grew"] / MiB, reply / MiB, said.get("message"))
    if kind == "string":
        assert said.get("mounted") == ["refunds"], said
    elif kind == "listing":  # (its entries list no SKILL.md of theirs: each is left out with a warning)
        assert said.get("mounted") == [], said
    else:
        assert said.get("error") == "RemoteSkillsError", said
        assert "JSON values" in said["message"] and "refused before it was parsed" in said["message"], said


def structure(value: Any) -> int:
    """The `,` `:` `[` `{` of a JSON value's text outside its strings, counted from the value itself."""
    if isinstance(value, list):
        return 1 + max(len(value) - 1, 0) + sum(structure(v) for v in value)
    if isinstance(value, dict):
        return 1 + len(value) + max(len(value) - 1, 0) + sum(structure(v) for v in value.values())
    return 0


@settings(max_examples=200, deadline=None)
@given(value=JSON, cuts=st.lists(st.integers(min_value=0), max_size=6))
def test_a_replys_values_are_counted_outside_strings_wherever_its_chunks_end(value: Any, cuts: list[int]) -> None:
    from flue_runtime.mcp.replies import Values

    text = json.dumps(value, ensure_ascii=False).encode()
    values = Values()
    edges = sorted({min(cut, len(text)) for cut in cuts})
    for start, end in zip([0, *edges], [*edges, len(text)]):
        values.feed(text[start:end])
    assert (values.count, values.bytes) == (structure(value), len(text))
