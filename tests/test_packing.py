"""The packing rules on a real directory: symlinks, secrets, noise, large files, allow."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from support.hostile import planted
from support.paths import FIXTURES

from flue_runtime.errors import MountError
from flue_runtime.format.manifest import MANIFEST_LIMIT, Manifest, MarkdownEntry, Reference, SkillEntry
from flue_runtime.format.records import content_id
from flue_runtime.format.skill_folder import vet_skill
from flue_runtime.format.trees import DiskTree
from flue_runtime.format.vetting import walk

PEM = planted.shaped_pem(random.Random(1), "OPENSSH PRIVATE KEY")


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    target = tmp_path / "pdf-tools"
    shutil.copytree(FIXTURES / "skills" / "good" / "pdf-tools", target)
    return target


def codes_by_path(skill: Path) -> dict[str, str]:
    vetted = vet_skill(skill, display="s")
    return {d.path: d.code for d in vetted.diagnostics}


def test_good_skill_packs_every_file_sorted(skill: Path) -> None:
    vetted = vet_skill(skill)
    assert vetted.ok and vetted.diagnostics == ()
    assert [f.path for f in vetted.files] == ["SKILL.md", "reference.md", "scripts/extract.py"]
    assert vetted.files[0].size == (skill / "SKILL.md").stat().st_size
    assert vetted.metadata is not None and vetted.metadata.name == "pdf-tools"
    body = (skill / "SKILL.md").read_bytes()[vetted.body_offset :].decode()
    assert body.startswith("\n# PDF tools")


@pytest.mark.parametrize(
    "relative",
    [
        ".env",
        ".env.local",
        ".dev.vars",
        "id_ed25519",
        ".ssh/config",
        ".aws/credentials",
        "credentials.json",
        ".npmrc",
        "server.pem",
        "tls.key",
        "secrets.yaml",
        "Secrets.YAML",
        "nested/.netrc",
    ],
)
def test_secrets_by_name_are_refused(skill: Path, relative: str) -> None:
    target = skill / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("x")
    found = codes_by_path(skill)
    refused = f"s/{relative.split('/')[0]}" if relative.startswith((".ssh", ".aws")) else f"s/{relative}"
    assert found == {refused: "FLU302"}
    assert not vet_skill(skill).ok


def test_private_key_content_is_refused(skill: Path) -> None:
    (skill / "notes.txt").write_text("some notes\n" + PEM)
    assert codes_by_path(skill) == {"s/notes.txt": "FLU303"}


def test_private_key_split_across_read_chunks_is_found(skill: Path) -> None:
    (skill / "blob.bin").write_bytes(b"x" * ((1 << 20) - 10) + PEM.encode())
    assert codes_by_path(skill)["s/blob.bin"] == "FLU303"


def test_symlinks_are_refused_never_followed(skill: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("do not ship")
    os.symlink(outside / "secret.txt", skill / "linked.txt")
    os.symlink(outside, skill / "linked-dir")
    os.symlink("/etc/passwd", skill / "passwd")
    vetted = vet_skill(skill, display="s")
    assert {d.path: d.code for d in vetted.diagnostics} == {
        "s/linked.txt": "FLU301",
        "s/linked-dir": "FLU301",
        "s/passwd": "FLU301",
    }
    assert all("linked" not in f.path and f.path != "passwd" for f in vetted.files)


def test_symlinked_skill_md_is_refused(skill: Path) -> None:
    real = skill / "real.md"
    (skill / "SKILL.md").rename(real)
    os.symlink(real, skill / "SKILL.md")
    vetted = vet_skill(skill, display="s")
    assert [d.code for d in vetted.diagnostics] == ["FLU301"]
    assert not vetted.ok


def test_noise_is_skipped_with_a_warning(skill: Path) -> None:
    for relative in (
        "node_modules/x/index.js",
        ".git/HEAD",
        "__pycache__/a.cpython-311.pyc",
        "scripts/b.pyc",
        ".DS_Store",
        "SKILL.md.swp",
    ):
        target = skill / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("x")
    vetted = vet_skill(skill, display="s")
    assert vetted.ok
    assert {d.path for d in vetted.diagnostics if d.code == "FLU304"} == {
        "s/node_modules",
        "s/.git",
        "s/__pycache__",
        "s/scripts/b.pyc",
        "s/.DS_Store",
        "s/SKILL.md.swp",
    }
    assert [f.path for f in vetted.files] == ["SKILL.md", "reference.md", "scripts/extract.py"]


def test_large_file_is_packed_with_a_warning(skill: Path) -> None:
    (skill / "asset.bin").write_bytes(os.urandom(2 * 1024 * 1024))
    vetted = vet_skill(skill, display="s")
    assert vetted.ok
    assert [(d.path, d.code) for d in vetted.diagnostics] == [("s/asset.bin", "FLU305")]
    assert "asset.bin" in [f.path for f in vetted.files]


def test_allow_lets_one_named_file_through_with_a_notice(skill: Path) -> None:
    (skill / ".env.local").write_text("API_KEY=changeme\n")
    (skill / ".env").write_text("API_KEY=real\n")
    vetted = vet_skill(skill, display="s", allow=[skill / ".env.local"])
    assert {d.path: d.code for d in vetted.diagnostics} == {"s/.env": "FLU302", "s/.env.local": "FLU306"}


def test_allow_covers_a_key_or_token_in_content_and_says_what_it_holds(skill: Path) -> None:
    (skill / "recorded.json").write_text(
        planted.TOKEN_CONTEXTS["JSON"](planted.TOKENS["Slack bot token"](random.Random(1)))
    )
    (skill / "test-key.txt").write_text(PEM)
    assert codes_by_path(skill) == {"s/recorded.json": "FLU315", "s/test-key.txt": "FLU303"}
    vetted = vet_skill(skill, display="s", allow=[skill / "recorded.json", skill / "test-key.txt"])
    assert vetted.ok
    assert [d.format().splitlines()[0] for d in vetted.diagnostics] == [
        "s/recorded.json:3:15: FLU306 warning: packed although it holds a Slack token: allowed by [tool.flue] allow",
        "s/test-key.txt:1:1: FLU306 warning: packed although it holds a PEM private key: allowed by [tool.flue] allow",
    ]
    assert {"recorded.json", "test-key.txt"} <= {f.path for f in vetted.files}


def test_fifo_is_refused_without_hanging(skill: Path) -> None:
    os.mkfifo(skill / "pipe")
    assert codes_by_path(skill) == {"s/pipe": "FLU307"}


def test_missing_skill_md(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert [d.code for d in vet_skill(tmp_path / "empty").diagnostics] == ["FLU101"]


def test_content_id_depends_on_paths_and_bytes_only(skill: Path, tmp_path: Path) -> None:
    copy = tmp_path / "elsewhere" / "pdf-tools"
    shutil.copytree(skill, copy)
    first, second = vet_skill(skill), vet_skill(copy)
    assert first.id == second.id == content_id(reversed(first.files))
    (copy / "reference.md").write_text("changed")
    assert vet_skill(copy).id != first.id


def _walk_as_unprivileged_user(skill: Path) -> list[tuple[str, str]]:
    """Run `walk` in a forked child that drops root, so permissions bite; return what it found."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        status = 1
        try:
            os.close(read_end)
            if os.geteuid() == 0:
                os.setgid(65534)
                os.setuid(65534)
            found = sorted((d.path, d.code) for d in walk(DiskTree(skill), display="s").diagnostics)
            os.write(write_end, json.dumps(found).encode())
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        output = pipe.read()
    _, status = os.waitpid(pid, 0)
    assert status == 0
    return [tuple(item) for item in json.loads(output)]


def test_walk_reports_unreadable_folder_and_file() -> None:
    # Root reads everything, so the walk runs as an unprivileged user when the suite runs as root.
    base = Path(tempfile.mkdtemp(prefix="flue-unreadable-"))
    try:
        base.chmod(0o755)
        skill = base / "pdf-tools"
        shutil.copytree(FIXTURES / "skills" / "good" / "pdf-tools", skill)
        for path in [skill, *skill.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        (skill / "locked").mkdir(mode=0)
        (skill / "sealed.md").write_text("x")
        (skill / "sealed.md").chmod(0)
        assert _walk_as_unprivileged_user(skill) == [("s/locked", "FLU308"), ("s/sealed.md", "FLU308")]
    finally:
        shutil.rmtree(base)


def test_manifest_round_trip_is_deterministic(skill: Path) -> None:
    vetted = vet_skill(skill)
    assert vetted.metadata is not None
    entry = SkillEntry.of(vetted.id, vetted.metadata, vetted.files, vetted.body_offset)
    digest = hashlib.sha256(b"abc").hexdigest()
    md = MarkdownEntry(digest[:16], 3, digest)
    manifest = Manifest(
        "pkg",
        {entry.id: entry},
        {md.id: md},
        {"pkg.b": {"./x.md": Reference("markdown", md.id)}, "pkg.a": {"../s/SKILL.md": Reference("skill", entry.id)}},
    )
    data = manifest.dumps()
    again = Manifest.loads(data)
    assert again.dumps() == data
    assert again.skill(entry.id) == entry
    assert again.reference("pkg.a", "../s/SKILL.md") == Reference("skill", entry.id)
    assert again.reference("pkg.a", "nope") is None
    assert again.markdown(md.id) == md


def test_manifest_refuses_unknown_format() -> None:
    with pytest.raises(MountError, match="format 3"):
        Manifest.loads(b'{"format": 3}')


def test_a_format_1_manifest_is_refused_by_name(skill: Path) -> None:
    """Format 1 (files as lists) was never released: its reader is gone, and such a manifest says so."""
    vetted = vet_skill(skill)
    assert vetted.metadata is not None
    entry = SkillEntry.of(vetted.id, vetted.metadata, vetted.files, vetted.body_offset)
    data = json.loads(Manifest("pkg", {entry.id: entry}).dumps())
    assert data["format"] == 2 and isinstance(data["skills"][entry.id]["files"], str)
    data["format"] = 1
    with pytest.raises(MountError, match="format 1; this flue_runtime reads format 2"):
        Manifest.loads(json.dumps(data))


def _manifest_json(skill: Path) -> tuple[str, dict[str, Any]]:
    vetted = vet_skill(skill)
    assert vetted.metadata is not None
    entry = SkillEntry.of(vetted.id, vetted.metadata, vetted.files, vetted.body_offset)
    return entry.id, json.loads(Manifest("pkg", {entry.id: entry}).dumps())


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (lambda m, id: m["skills"][id]["fields"].update(name="../../x"), "field name must match the pattern"),
        (lambda m, id: m["skills"][id]["fields"].update(name="pdf\x1b[2J"), "field name must match the pattern"),
        (lambda m, id: m["skills"][id]["fields"].update(description=7), "field description must be"),
        (lambda m, id: m["skills"].update({"../../x": m["skills"].pop(id)}), "not a content id"),
        (lambda m, id: m["skills"][id].update(body_offset=-1), "body_offset is not a whole number"),
        (lambda m, id: m["skills"][id].update(source="relative/folder"), "source is not an absolute path"),
        (lambda m, id: m.update(package="../pkg"), "`package` is not a package name"),
        (lambda m, id: m.update(skills=[]), "`skills` is not a JSON object"),
        (lambda m, id: m.update(references={"pkg": {"./a/SKILL.md": {"skill": "../x"}}}), "is not a content id"),
    ],
)
def test_a_manifest_entry_is_checked_by_the_build_rules_when_parsed(skill: Path, edit: Any, words: str) -> None:
    """Issue 20: what a manifest says is input; each part is checked where it is parsed, one MountError."""
    id, data = _manifest_json(skill)
    edit(data, id)
    with pytest.raises(MountError, match=re.escape(words)) as caught:
        manifest = Manifest.loads(json.dumps(data), "pkg/_flue_skills/manifest.json")
        for found in manifest.skill_ids():
            manifest.skill(found)
        manifest.references_of("pkg")
        manifest.reference("pkg", "./a/SKILL.md")
    assert str(caught.value).startswith("pkg/_flue_skills/manifest.json: malformed skill bundle manifest")


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("../escape.md", "`..` segment"),
        ("/etc/passwd", "absolute"),
        ("a\x1bb.md", "control character"),
        ("%2e%2e/x.md", "percent-encoded"),
    ],
)
def test_a_file_path_in_a_manifest_is_a_clean_skill_path(skill: Path, line: str, words: str) -> None:
    id, data = _manifest_json(skill)
    files = data["skills"][id]["files"]
    first = files.split("\n")[0].split("\t")[0]
    data["skills"][id]["files"] = files.replace(f"{first}\t", f"{line}\t", 1)
    entry = Manifest.loads(json.dumps(data)).skill(id)
    with pytest.raises(MountError, match=re.escape(words)):
        assert entry.files is None  # never reached: parsing the list raises


def test_a_manifest_over_the_limit_is_refused_before_it_is_decoded() -> None:
    with pytest.raises(MountError, match="over the 16,777,216-byte limit"):
        Manifest.loads(b" " * (MANIFEST_LIMIT + 1))
    with pytest.raises(MountError, match="not JSON"):
        Manifest.loads(b"\xff\xfe{")


def test_a_hard_linked_file_is_packed_with_a_warning_and_refused_under_strict(skill: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_text("shared\n")
    os.link(elsewhere, skill / "notes.md")
    vetted = vet_skill(skill, display="s")
    assert vetted.ok and "notes.md" in [f.path for f in vetted.files]
    [warning] = vetted.diagnostics
    assert (warning.path, warning.code, warning.is_error) == ("s/notes.md", "FLU314", False)
    assert "2 names share these bytes" in warning.message
    strict = vet_skill(skill, display="s", strict=True)
    assert not strict.ok and [(d.code, d.is_error) for d in strict.diagnostics] == [("FLU314", True)]


def test_a_noise_folder_is_skipped_never_entered(skill: Path, tmp_path: Path) -> None:
    """What `npm install` leaves in a JS skill (`node_modules/.bin` links, a `.env` a package ships, a
    FIFO, a secret's name) is neither vetted nor packed: one warning names the folder. The build's
    audit, not the vetting, proves none of it reaches an artifact (tests/hostile/test_audit_routes.py)."""
    modules = skill / "node_modules" / "pkg"
    modules.mkdir(parents=True)
    (modules / "cli.js").write_text("x")
    (skill / "node_modules" / ".bin").mkdir()
    os.symlink("../pkg/cli.js", skill / "node_modules" / ".bin" / "pkg")
    os.mkfifo(modules / "pipe")
    os.symlink(tmp_path, modules / "out")
    (modules / ".npmrc").write_text("//registry/:_authToken=x\n")
    (skill / "node_modules" / ".env").write_text("API_KEY=live\n")
    vetted = vet_skill(skill, display="s")
    assert vetted.ok
    assert [(d.path, d.code, d.is_error) for d in vetted.diagnostics] == [("s/node_modules", "FLU304", False)]
    assert [f.path for f in vetted.files] == ["SKILL.md", "reference.md", "scripts/extract.py"]
