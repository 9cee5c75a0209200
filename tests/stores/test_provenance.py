"""Issue 34 item 3: every model turn's record in the store holds the catalog it rendered and each activation, read
and script run with the digests of what was served; explicit activations are marked; a store written by the
previous schema is brought up to date and its sessions read and go on."""

from __future__ import annotations

import hashlib
import re
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest
from store_backends import Backend

from flue_runtime import Harness, agent, define_skill, use_model, use_skill
from flue_runtime.agents.provenance import CatalogEntry, Served, Turn
from flue_runtime.agents.stores import open_store
from flue_runtime.agents.stores.contract import SessionRecord, Store
from flue_runtime.models import ScriptedModel, ToolCall

REFUNDS = define_skill(
    name="refunds",
    description="Handle refund requests.",
    instructions="# Refunds\n\nRead policy.md.\n",
    files={"policy.md": "Orders younger than 30 days are refundable.\n"},
)
VIP = define_skill(name="vip", description="Extra care for VIP customers.", instructions="Offer a voucher.\n")


def _sha(skill_file: str) -> str:
    return next(f.sha256 for f in REFUNDS.files if f.path == skill_file)


def _harness(store: object, model: ScriptedModel) -> Harness:
    @agent
    def support() -> str:
        use_model(model)
        use_skill(REFUNDS)
        use_skill(VIP)
        return "Answer support questions."

    return Harness(support, store=store, telemetry=False)  # type: ignore[arg-type]


def test_each_turn_keeps_its_catalog_and_what_was_served(backend: Backend) -> None:
    model = ScriptedModel(
        [
            [ToolCall("activate_skill", {"name": "refunds"}), ToolCall("activate_skill", {"name": "nope"})],
            [ToolCall("read_skill_resource", {"path": "/.flue/skills/refunds/policy.md"})],
            "Refunded.",
            "Anything else?",
        ]
    )
    session = _harness(backend.open(), model).session("case-1")
    session.prompt_sync("refund please")
    session.prompt_sync("and a voucher", activate=["vip"])

    # Read back by another worker's store, and through the session.
    turns = backend.open().turns("case-1")
    assert turns == session.provenance()
    assert [(t.step, t.message) for t in turns] == [(0, 1), (1, 4), (2, 6), (0, 10)]
    catalog = (
        CatalogEntry("refunds", REFUNDS.origin, REFUNDS.id),
        CatalogEntry("vip", VIP.origin, VIP.id),
    )
    assert all(t.catalog == catalog for t in turns)
    first_call, read_call = (session.messages[1]["tool_calls"][0]["id"], session.messages[4]["tool_calls"][0]["id"])
    assert turns[0].served == (
        Served("activation", "refunds", REFUNDS.origin, REFUNDS.id, "SKILL.md", _sha("SKILL.md"), first_call),
    )  # the unknown name served nothing
    assert turns[1].served == (
        Served("read", "refunds", REFUNDS.origin, REFUNDS.id, "policy.md", _sha("policy.md"), read_call),
    )
    assert turns[2].served == ()
    explicit_call = session.messages[8]["tool_calls"][0]["id"]
    vip_md = next(f.sha256 for f in VIP.files if f.path == "SKILL.md")
    assert turns[3].served == (
        Served("activation", "vip", VIP.origin, VIP.id, "SKILL.md", vip_md, explicit_call, True),
    )
    assert [s.skill for s in turns[3].activations] == ["vip"]
    assert turns[0].at <= turns[3].at
    # The SHA-256 is the file's as served.
    assert _sha("policy.md") == hashlib.sha256(REFUNDS.read_bytes("policy.md")).hexdigest()
    # A load never brings the turns back with the record; a save that follows adds none twice.
    record = backend.open().load("case-1")
    assert record is not None and record.turns == []
    session.set_state("k", 1)
    assert len(backend.open().turns("case-1")) == 4
    assert backend.open().turns("unknown") == []


def test_a_turn_round_trips_through_its_dict() -> None:
    turn = Turn(1, 3, 12.5, (CatalogEntry("a", "o", "d"),), (Served("script", "a", "o", "d", "scripts/x.py", "ff"),))
    assert Turn.from_dict(turn.to_dict()) == turn


def test_a_save_that_lost_the_race_writes_no_turn(backend: Backend) -> None:
    store = backend.open()
    store.save("s", SessionRecord("sys", turns=[Turn(0, 0, 1.0).to_dict()]))
    stale = SessionRecord("sys", turns=[Turn(0, 1, 2.0).to_dict()])
    with pytest.raises(Exception, match="another worker"):
        store.save("s", stale)
    assert stale.turns  # kept for the caller
    assert [t.message for t in store.turns("s")] == [0]


#: The SQLite schema of the release before turns (version 4), and a session in it.
SQLITE_4 = """
CREATE TABLE flue_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, system_prompt TEXT NOT NULL, state TEXT NOT NULL, announced TEXT NOT NULL,
    message_count INTEGER NOT NULL, updated_at REAL NOT NULL, version INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE messages (
    session_id TEXT NOT NULL REFERENCES sessions(id), seq INTEGER NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
);
INSERT INTO flue_meta VALUES ('schema_version', '4');
"""
#: The PostgreSQL schema of the release before turns (version 3).
POSTGRES_3 = """
CREATE TABLE flue_meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE flue_sessions (
    id text PRIMARY KEY, version bigint NOT NULL, system_prompt text NOT NULL, state text NOT NULL,
    announced text NOT NULL, message_count integer NOT NULL, saved_by uuid NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE flue_messages (
    session_id text NOT NULL REFERENCES flue_sessions (id) ON DELETE CASCADE, seq integer NOT NULL,
    body text NOT NULL, PRIMARY KEY (session_id, seq)
);
INSERT INTO flue_meta VALUES ('schema_version', '3');
"""
ANNOUNCED = (
    '{"catalog": [["refunds", "Handle refund requests."], ["vip", "Extra care for VIP customers."]], '
    '"instructions": "Answer support questions.", "skill_switches": {}, "tools": ["activate_skill", '
    '"read_skill_resource"]}'
)
ROWS = [
    ("user", '{"content": "hello", "role": "user"}'),
    ("assistant", '{"content": "Hi.", "role": "assistant"}'),
]


def _write_previous_schema(durable: Backend, system_prompt: str) -> None:
    prompt = system_prompt.replace("'", "''")
    if durable.name == "sqlite":
        with closing(sqlite3.connect(durable.location)) as raw:
            raw.executescript(SQLITE_4)
            raw.execute("INSERT INTO sessions VALUES ('old', ?, '{}', ?, 2, 0, 1)", (system_prompt, ANNOUNCED))
            raw.executemany("INSERT INTO messages VALUES ('old', ?, ?)", [(n, b) for n, (_, b) in enumerate(ROWS)])
            raw.commit()
        return
    for statement in POSTGRES_3.strip().split(";\n"):
        durable.sql(statement)
    durable.sql(
        f"INSERT INTO flue_sessions VALUES ('old', 1, '{prompt}', '{{}}', '{ANNOUNCED}', 2, gen_random_uuid(), now())"
    )
    for seq, (_, body) in enumerate(ROWS):
        durable.sql(f"INSERT INTO flue_messages VALUES ('old', {seq}, '{body}')")


def test_a_store_of_the_previous_schema_is_migrated_and_its_sessions_read_and_go_on(durable: Backend) -> None:
    model = ScriptedModel(["Done."])
    harness = _harness(None, model)
    system_prompt = harness.session("probe").system_prompt
    _write_previous_schema(durable, system_prompt)

    store = open_store(durable.location)
    durable.opened.append(store)
    old = store.load("old")
    assert old is not None and old.version == 1
    assert [m["content"] for m in old.messages] == ["hello", "Hi."]
    assert store.turns("old") == []  # saved before turns were kept
    assert durable.sql("SELECT value FROM flue_meta WHERE key = 'schema_version'") == [
        ("4",) if durable.name == "postgresql" else ("5",)
    ]
    # The old session goes on: its next turn is recorded.
    session = _harness(store, model).session("old")
    assert session.prompt_sync("more").text == "Done."
    turns = session.provenance()
    assert [(t.step, t.message) for t in turns] == [(0, 3)]
    assert [e.name for e in turns[0].catalog] == ["refunds", "vip"]


def test_a_store_without_turns_says_so(tmp_path: Path) -> None:
    class Plain(Store):
        def __init__(self) -> None:
            self.records: dict[str, SessionRecord] = {}

        def load(self, session_id: str) -> SessionRecord | None:
            return self.records.get(session_id)

        def save(self, session_id: str, record: SessionRecord) -> None:
            record.version += 1
            self.records[session_id] = record.copy()

    session = _harness(Plain(), ScriptedModel(["ok"])).session("p")
    session.prompt_sync("hi")
    with pytest.raises(Exception, match="keeps no turns"):
        session.provenance()


def test_the_guide_runs_as_shown(tmp_path: Path) -> None:
    from support.site import page

    found = re.search(r"```python\n(.*?)```\n\n```\n(.*?)```", page("guides/provenance.md"), re.DOTALL)
    assert found is not None, "a python block followed by its output"
    (tmp_path / "snippet.py").write_text(found.group(1), encoding="utf-8")
    out = subprocess.run([sys.executable, "snippet.py"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout == found.group(2)


def test_a_script_run_is_kept_with_the_digest_of_what_ran(tmp_path: Path) -> None:
    from flue_runtime import LocalSandbox

    tool = define_skill(
        name="tool",
        description="Run the tool script.",
        instructions="Run scripts/hello.py.\n",
        files={"scripts/hello.py": "print('hello')\n"},
    )
    model = ScriptedModel([[ToolCall("run_skill_script", {"skill": "tool", "script": "scripts/hello.py"})], "Ran."])

    @agent
    def runner() -> str:
        use_model(model)
        use_skill(tool)
        return "Run scripts."

    workspace = tmp_path / "work"
    workspace.mkdir()
    harness = Harness(runner, sandbox=LocalSandbox(workspace, allow_exec=True), telemetry=False)
    session = harness.session("s")
    session.prompt_sync("run it")
    assert "hello" in str(session.messages[2]["content"])  # the script ran
    [first, _] = session.provenance()
    ran = next(f.sha256 for f in tool.verdict if f.path == "scripts/hello.py")
    call = session.messages[1]["tool_calls"][0]["id"]
    assert first.served == (Served("script", "tool", tool.origin, tool.id, "scripts/hello.py", ran, call),)
