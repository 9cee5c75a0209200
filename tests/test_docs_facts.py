"""Facts the pages state about the code, read from both, so that a page cannot drift from the code it describes:
the commands the exit-status policy covers, the session stores' schema versions, which errors `flue_runtime`
exports, and what the module map says a package holds (issue 44, item 9)."""

from __future__ import annotations

import importlib
import re

from support.site import nav_pages, page, section

from flue_build.cli import COMMANDS


def test_the_exit_status_policy_names_every_command() -> None:
    policy = section("reference/cli.md", "## Exit status of every command")
    sentence = policy.split("One policy, the same in ", 1)[1].split("\n(", 1)[0]
    named = re.findall(r"`([a-z]+)`", sentence)
    assert named == [command.name for command in COMMANDS]


def test_every_schema_version_a_page_states_is_the_stores() -> None:
    """Pages say `SQLite schema N` and `PostgreSQL schema N`; any other wording of a version is refused, so that
    each one is found here."""
    from flue_runtime.agents.stores import postgres, sqlite

    versions = {"SQLite": sqlite.SCHEMA_VERSION, "PostgreSQL": postgres.SCHEMA_VERSION}
    stated = []
    for name in nav_pages():
        text = " ".join(page(name).split())
        assert not re.search(r"schema version \d+ in (SQLite|PostgreSQL)|\d+ in (SQLite|PostgreSQL)\b", text), name
        stated += [
            (name, store, int(number)) for store, number in re.findall(r"\b(SQLite|PostgreSQL) schema (\d+)", text)
        ]
    assert {store for _, store, _ in stated} == set(versions), stated
    assert [(name, store, versions[store]) for name, store, _ in stated] == stated


def _exported_errors() -> list[str]:
    import flue_runtime
    from flue_runtime import errors

    return [name for name in errors.__all__ if name in flue_runtime.__all__]


def test_the_pages_name_the_errors_flue_runtime_exports() -> None:
    """The module map and the errors page list them alike, and the count of the others is the code's."""
    from flue_runtime import errors

    exported = sorted(_exported_errors())
    for text in (section("internals.md", "## Errors"), section("reference/errors.md", "## Errors")):
        said = " ".join(text.split())
        listed = said.split("`flue_runtime` itself exports ", 1)[1].split(")", 1)[0]
        assert sorted(re.findall(r"`(\w+)`", listed)) == exported
    said = " ".join(section("internals.md", "## Errors").split())
    assert f"{len(exported)} of the {len(errors.__all__)}" in said


def test_the_module_map_says_what_each_stores_module_holds() -> None:
    """The map's `stores` row: each `stores...:` clause names only what that module exports."""
    row = next(line for line in page("internals.md").splitlines() if line.startswith("| `stores` |"))
    clauses = re.findall(r"`(stores(?:\.\w+)?)`: (.*?)(?=; `stores(?:\.\w+)?`: |\s*\|$)", row)
    assert [module for module, _ in clauses][:2] == ["stores", "stores.contract"], row
    for module, text in clauses:
        exported = importlib.import_module(f"flue_runtime.agents.{module}").__all__
        names = [name for name in re.findall(r"`(\w+)`", text) if not name.startswith("stores")]
        assert set(names) <= set(exported), (module, names, exported)
        if module == "stores":
            assert names == exported and "its one name" in text, text
    assert "re-export" not in row
