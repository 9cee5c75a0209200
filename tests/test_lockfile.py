"""The lock file (`flue_runtime.format.lockfile`, issue 43 items 3 and 5): one TOML format for what was published
to each hosted service and what each remote MCP server served when pinned; read strictly (a malformed lock names
its file and line), written whole and atomically, deterministic bytes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from flue_runtime.errors import LockFileError
from flue_runtime.format.lockfile import LOCK_FILE, Lock, Pinned, Published, default_lock, read_lock

DIGEST = "0123456789abcdef"
OTHER = "fedcba9876543210"
SERVER = "mcp-00112233445566aa"
URI = "skill://acme/refunds/SKILL.md"


def full(path: Path) -> Lock:
    return (
        read_lock(path)
        .with_published("anthropic", "refunds", Published("skill_01abc", "skillver_01", DIGEST))
        .with_published("openai", "refunds", Published("skill_9", "2", DIGEST))
        .with_server(SERVER, "MCP server http://127.0.0.1:8000/mcp", {URI: Pinned("refunds", OTHER)})
    )


def test_a_missing_lock_reads_as_empty_and_is_not_created_by_reading(tmp_path: Path) -> None:
    lock = read_lock(tmp_path / LOCK_FILE)
    assert lock.published == {} and lock.servers == {}
    assert not (tmp_path / LOCK_FILE).exists()


def test_what_is_written_reads_back_in_both_tables(tmp_path: Path) -> None:
    path = tmp_path / LOCK_FILE
    full(path).write()
    again = read_lock(path)
    assert again.published["anthropic"]["refunds"] == Published("skill_01abc", "skillver_01", DIGEST)
    assert again.published["openai"]["refunds"].version == "2"
    assert again.servers[SERVER].shown == "MCP server http://127.0.0.1:8000/mcp"
    assert again.servers[SERVER].skills == {URI: Pinned("refunds", OTHER)}
    text = path.read_text()
    assert text.startswith("# ") and "\nversion = 1\n" in text
    assert "[publish.anthropic.refunds]" in text and f'[remote.{SERVER}."{URI}"]' in text


def test_the_bytes_are_the_same_whatever_order_entries_were_added_in(tmp_path: Path) -> None:
    one, two = tmp_path / "one.lock", tmp_path / "two.lock"
    a, b = Published("skill_a", "1", DIGEST), Published("skill_b", "1", OTHER)
    read_lock(one).with_published("openai", "alpha", a).with_published("openai", "beta", b).write()
    read_lock(two).with_published("openai", "beta", b).with_published("openai", "alpha", a).write()
    assert one.read_bytes() == two.read_bytes()


def test_a_server_table_is_replaced_whole_and_other_tables_are_kept(tmp_path: Path) -> None:
    path = tmp_path / LOCK_FILE
    full(path).write()
    read_lock(path).with_server(SERVER, "MCP server x", {"skill://b/SKILL.md": Pinned("b", DIGEST)}).write()
    again = read_lock(path)
    assert set(again.servers[SERVER].skills) == {"skill://b/SKILL.md"}
    assert again.published["anthropic"]["refunds"].id == "skill_01abc"


def test_writing_replaces_the_file_atomically_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    path = tmp_path / LOCK_FILE
    full(path).write()
    before = os.stat(path).st_ino
    read_lock(path).with_published("openai", "triage", Published("skill_t", "1", OTHER)).write()
    assert os.stat(path).st_ino != before  # a new file renamed over the old one, never rewritten in place
    assert sorted(p.name for p in tmp_path.iterdir()) == [LOCK_FILE]


def test_a_failed_write_leaves_what_was_there_and_no_temporary_file(tmp_path: Path) -> None:
    in_the_way = tmp_path / LOCK_FILE
    in_the_way.mkdir()  # the rename cannot replace a folder (root or not)
    (in_the_way / "kept").write_text("kept")
    with pytest.raises(OSError):
        Lock(in_the_way).with_published("openai", "triage", Published("skill_t", "1", OTHER)).write()
    assert sorted(p.name for p in tmp_path.iterdir()) == [LOCK_FILE]
    assert (in_the_way / "kept").read_text() == "kept"


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        ("version = 1\n[publish.anthropic.refunds\n", 2, "invalid TOML"),
        ("version = 2\n", 1, "version 2"),
        ("[publish.openai.refunds]\nid = 'x'\n", 1, "version"),
        ("version = 1\n\n[publish.openai.refunds]\nid = 'x'\nversion = '1'\ndigest = 'nothex'\n", 6, "digest"),
        ("version = 1\n[publish.openai.refunds]\nid = 'x'\ndigest = '0123456789abcdef'\n", 2, "version"),
        ("version = 1\n[publish.openai.refunds]\nid = 7\nversion = '1'\ndigest = '0123456789abcdef'\n", 3, "id"),
        ("version = 1\nsurprise = true\n", 2, "surprise"),
        (f"version = 1\n[remote.{SERVER}]\nserver = 'x'\n[remote.{SERVER}.'http://x']\nname = 'a'\n", 4, "skill://"),
        ("version = 1\n[remote.not-an-identity]\nserver = 'x'\n", 2, "not-an-identity"),
    ],
)
def test_a_malformed_lock_is_an_error_naming_the_file_and_the_line(
    tmp_path: Path, text: str, line: int, says: str
) -> None:
    path = tmp_path / LOCK_FILE
    path.write_text(text)
    with pytest.raises(LockFileError) as caught:
        read_lock(path)
    assert caught.value.path == path and caught.value.line == line
    assert str(caught.value).startswith(f"{path}:{line}: ") and says in str(caught.value)


def test_the_default_lock_lies_beside_the_nearest_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    deep = tmp_path / "src" / "pkg"
    deep.mkdir(parents=True)
    assert default_lock(deep) == tmp_path / LOCK_FILE
    lonely = tmp_path.parent / (tmp_path.name + "-none")
    lonely.mkdir()
    assert default_lock(lonely) == lonely / LOCK_FILE  # no project above: the folder itself
