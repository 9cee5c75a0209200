"""Issue 20 item 6: session ids are validated by one owner (`check_session_id`), where a session is
made (`Harness.session`) and by every store before it touches its data, so an id no store can keep
(a lone surrogate broke SQLite with `UnicodeEncodeError`) is a `StoreError` naming the problem."""

from __future__ import annotations

import re

import pytest
from store_backends import Backend

from flue_runtime import Harness, agent, use_model
from flue_runtime.agents.stores.contract import MAX_SESSION_ID, SessionRecord
from flue_runtime.errors import StoreError
from flue_runtime.models import ScriptedModel

pytestmark = pytest.mark.slow  # a PostgreSQL server

BAD = [
    ("case-\ud800", "lone surrogate (U+D800)"),
    ("case\x00nul", "unprintable character (U+0000)"),
    ("case\x1b[2J", "unprintable character (U+001B)"),
    ("two\nlines", "unprintable character (U+000A)"),
    ("case-\u202etxt.exe", "unprintable character (U+202E)"),
    ("", "must not be empty"),
    ("x" * (MAX_SESSION_ID + 1), f"the limit is {MAX_SESSION_ID}"),
]
GOOD = ["case-42", "Fall 2024 / café ✓", "x" * MAX_SESSION_ID, "550e8400-e29b-41d4-a716-446655440000"]


def harness(backend: Backend) -> Harness:
    @agent
    def support() -> str:
        use_model(ScriptedModel(["Done."]))
        return "Answer questions."

    return Harness(support, store=backend.open())


@pytest.mark.parametrize(("session_id", "words"), BAD, ids=[repr(b[0][:12]) for b in BAD])
def test_a_bad_session_id_is_refused_by_the_harness_and_by_every_store(
    backend: Backend, session_id: str, words: str
) -> None:
    with pytest.raises(StoreError, match=re.escape(words)):
        harness(backend).session(session_id).prompt_sync("hello")
    store = backend.open()
    with pytest.raises(StoreError):
        store.load(session_id)
    with pytest.raises(StoreError):
        store.save(session_id, SessionRecord("prompt"))


def test_printable_ids_of_any_script_round_trip(backend: Backend) -> None:
    made = harness(backend)
    for session_id in GOOD:
        assert made.session(session_id).prompt_sync("hello").text == "Done."
        assert made.session(session_id).messages[-1]["content"] == "Done."
