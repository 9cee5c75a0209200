"""Issue 16, turn overhead: a workspace skill's verdict is kept while its folder is unchanged.

`VetCache.vet` must always give the verdict a fresh `vet_skill` gives: any change to what
the walk saw (a file written, added, removed, replaced by a link, chmod-ed; a folder added)
makes it vet again, and an entry changed just before the vetting is never trusted (a second
write in the same clock tick, of the same size, can leave its `lstat` as it was). The whole
hostile corpus gives the same verdict through it (tests/hostile/test_vet_cache_corpus.py).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from flue_runtime.format.skill_folder import VettedSkill, vet_skill
from flue_runtime.format.vet_cache import VetCache
from flue_runtime.format.vetting import Limits

PEM = b"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7s2Yk9Cq3x0vLm8Jb4N2pQe1uZ5rT6wX8yA0bC3dE4fG5hI6\n-----END RSA PRIVATE KEY-----\n"


def make_skill(folder: Path, name: str = "notes") -> Path:
    (folder / "references").mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Take notes.\n---\n# Notes\n")
    (folder / "references" / "style.md").write_text("Short sentences.\n")
    return folder


def same(a: VettedSkill, b: VettedSkill) -> bool:
    return (a.metadata, a.files, a.body_offset, a.diagnostics) == (b.metadata, b.files, b.body_offset, b.diagnostics)


def vet_twice(cache: VetCache, folder: Path) -> tuple[VettedSkill, VettedSkill]:
    return cache.vet(folder, display="notes"), cache.vet(folder, display="notes")


def test_an_unchanged_folder_is_not_vetted_again(tmp_path: Path) -> None:
    folder = make_skill(tmp_path / "notes")
    cache = VetCache(settle_ns=0)  # every entry old enough to trust: what a folder left alone for a while gets
    first, second = vet_twice(cache, folder)
    assert second is first
    assert same(first, vet_skill(folder, display="notes"))


def test_every_change_the_walk_would_see_vets_again(tmp_path: Path) -> None:
    folder = make_skill(tmp_path / "notes")
    cache = VetCache(settle_ns=0)
    changes = [
        lambda: (folder / "references" / "style.md").write_text("Short sentences, active voice.\n"),  # new size
        lambda: (folder / "references" / "extra.md").write_text("More.\n"),  # a file added in a subfolder
        lambda: (folder / "references" / "extra.md").unlink(),  # and removed again
        lambda: (folder / "assets").mkdir(),  # a folder added at the top
        lambda: os.chmod(folder / "references" / "style.md", 0o600),  # the mode (its ctime moves too)
        lambda: (folder / ".env").write_text("KEY=1\n"),  # a secret added: refused
        lambda: (folder / ".env").unlink(),
        lambda: (
            (folder / "references" / "style.md").unlink()
            or os.symlink("/etc/hostname", folder / "references" / "style.md")
        ),
    ]
    kept = cache.vet(folder, display="notes")
    for change in changes:
        change()
        again = cache.vet(folder, display="notes")
        assert again is not kept
        assert same(again, vet_skill(folder, display="notes"))
        kept = again
    assert [d.code for d in kept.diagnostics if d.is_error] == ["FLU301"]


def test_a_rewrite_of_the_same_size_keeping_the_mtime_is_seen(tmp_path: Path) -> None:
    """Same size, mtime put back: only the inode's ctime moved, and within the same clock tick not even that.
    A file that changed that recently is never trusted, so the key is found."""
    folder = make_skill(tmp_path / "notes")
    target = folder / "references" / "style.md"
    target.write_bytes(b"x" * len(PEM))
    cache = VetCache()
    assert cache.vet(folder, display="notes").ok
    before = os.stat(target)
    target.write_bytes(PEM)
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(target).st_size == before.st_size and os.stat(target).st_mtime_ns == before.st_mtime_ns
    again = cache.vet(folder, display="notes")
    assert [d.code for d in again.diagnostics if d.is_error] == ["FLU303"]


def test_recent_entries_are_vetted_again_until_they_settle(tmp_path: Path) -> None:
    folder = make_skill(tmp_path / "notes")
    cache = VetCache(settle_ns=3600 * 10**9)  # nothing written in the last hour is trusted
    first, second = vet_twice(cache, folder)
    assert second is not first and same(first, second)


def test_only_the_changed_folder_is_vetted_again(tmp_path: Path) -> None:
    a, b = make_skill(tmp_path / "a", "a"), make_skill(tmp_path / "b", "b")
    cache = VetCache(settle_ns=0)
    kept_a, kept_b = cache.vet(a, display="a"), cache.vet(b, display="b")
    (b / "SKILL.md").write_text("---\nname: b\ndescription: Take other notes.\n---\n# B\n")
    assert cache.vet(a, display="a") is kept_a
    changed = cache.vet(b, display="b")
    assert changed is not kept_b and changed.metadata is not None
    assert changed.metadata.description == "Take other notes."


def test_the_least_recently_used_folder_is_forgotten_first(tmp_path: Path) -> None:
    folders = [make_skill(tmp_path / name, name) for name in ("a", "b", "c")]
    cache = VetCache(2, settle_ns=0)
    kept = [cache.vet(folder, display=folder.name) for folder in folders]  # "a" is forgotten
    assert cache.vet(folders[2], display="c") is kept[2]
    assert cache.vet(folders[0], display="a") is not kept[0]


def test_a_folder_that_cannot_be_listed_gets_its_verdict_too(tmp_path: Path) -> None:
    missing = tmp_path / "gone"
    cache = VetCache(settle_ns=0)
    first, second = vet_twice(cache, missing)
    assert second is first and same(first, vet_skill(missing, display="notes"))
    assert [d.code for d in first.diagnostics] == ["FLU308", "FLU101"]
    make_skill(missing, "gone")  # it appears: vetted again
    assert cache.vet(missing, display="notes").ok


def test_a_verdict_is_kept_per_rules(tmp_path: Path) -> None:
    """Dev mode vets with its project's `[tool.flue]` (allow, strict, limits): a verdict under one set of
    rules is never given for another, and each is the verdict `vet_skill` gives under those rules."""
    folder = make_skill(tmp_path / "notes")
    (folder / ".env.local").write_text("KEY=changeme\n")
    (folder / "SKILL.md").write_text("---\nname: notes\ndescription: Take notes.\nauthor: me\n---\n# Notes\n")
    cache = VetCache(settle_ns=0)
    allowed = [folder / ".env.local"]
    rules: list[dict[str, Any]] = [
        {},
        {"allow": allowed},
        {"allow": allowed, "strict": True},
        {"allow": allowed, "limits": Limits(skill_files=2)},
    ]
    verdicts = [cache.vet(folder, display="notes", **kw) for kw in rules]
    for kw, verdict in zip(rules, verdicts):
        assert same(verdict, vet_skill(folder, display="notes", **kw))
        assert cache.vet(folder, display="notes", **kw) is verdict  # kept under its own rules
    assert [sorted({d.code for d in v.diagnostics if d.is_error}) for v in verdicts] == [
        ["FLU302"],
        [],
        ["FLU210", "FLU306"],
        ["FLU310"],
    ]
