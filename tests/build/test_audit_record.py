"""The wheel audit reads RECORD (the SHA-256 the backend computed from the bytes it wrote) and the
zip's directory (size, CRC-32), and inflates only what RECORD does not list; a tampered RECORD,
a rewritten entry and a second entry of one name are each caught."""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path

import pytest
from support.builds import Result

from flue_build.audit import audit
from flue_build.collect import check_project
from flue_build.pack import BundlePlan, plan

pytestmark = pytest.mark.slow  # the fixture projects built (`built`)

ORIGINALS = ["hatch_src_demo/skills/refunds/"]


def rewrite(wheel: Path, target: Path, change: dict[str, bytes | None], extra: dict[str, bytes] | None = None) -> None:
    """A copy of `wheel` with entries replaced (None: left out) and `extra` entries appended."""
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as copy:
        for info in source.infolist():
            data = change.get(info.filename, source.read(info))
            if data is not None:
                copy.writestr(info, data)
        for name, data in (extra or {}).items():
            copy.writestr(name, data)


def bundles_of(built: dict[str, tuple[Path, Result]], from_sdist: dict[str, Path]) -> tuple[Path, list[BundlePlan]]:
    return built["hatch-src"][1].wheel, plan(check_project(from_sdist["hatch-src"]).collection)


def record_name(wheel: Path) -> str:
    with zipfile.ZipFile(wheel) as archive:
        [name] = [n for n in archive.namelist() if n.endswith(".dist-info/RECORD")]
    return name


def test_a_record_that_disagrees_with_the_vetted_file_fails_the_audit(
    built: dict[str, tuple[Path, Result]], from_sdist: dict[str, Path], tmp_path: Path
) -> None:
    wheel, bundles = bundles_of(built, from_sdist)
    policy = next(f.dest for b in bundles for f in b.files if f.dest.endswith("/policy.md"))
    with zipfile.ZipFile(wheel) as archive:
        record = archive.read(record_name(wheel)).decode()
    other = base64.urlsafe_b64encode(hashlib.sha256(b"other bytes").digest()).rstrip(b"=").decode()
    lines = [
        line if not line.startswith(policy + ",") else f"{policy},sha256={other},{line.rsplit(',', 1)[1]}"
        for line in record.splitlines()
    ]
    bad = tmp_path / wheel.name
    rewrite(wheel, bad, {record_name(wheel): "\n".join(lines).encode()})
    problems = audit(bad, bundles, ORIGINALS).problems
    assert [(d.code, d.path.split("/", 1)[1]) for d in problems] == [("FLU409", policy)]


def test_an_entry_missing_from_record_is_inflated_and_checked(
    built: dict[str, tuple[Path, Result]], from_sdist: dict[str, Path], tmp_path: Path
) -> None:
    wheel, bundles = bundles_of(built, from_sdist)
    with zipfile.ZipFile(wheel) as archive:
        record = archive.read(record_name(wheel)).decode()
    kept = "\n".join(line for line in record.splitlines() if "/_flue_skills/" not in line)
    bare = tmp_path / wheel.name
    rewrite(wheel, bare, {record_name(wheel): kept.encode()})
    checked = audit(bare, bundles, ORIGINALS)
    assert checked.problems == []  # every bundle entry hashed from its bytes instead, and right
    assert checked.shipped.line(wheel.name).endswith("bundled in hatch_src_demo/_flue_skills/")


def test_a_second_entry_of_one_name_fails_the_audit(
    built: dict[str, tuple[Path, Result]], from_sdist: dict[str, Path], tmp_path: Path
) -> None:
    wheel, bundles = bundles_of(built, from_sdist)
    policy = next(f.dest for b in bundles for f in b.files if f.dest.endswith("/policy.md"))
    twice = tmp_path / wheel.name
    with zipfile.ZipFile(wheel) as archive:
        data = archive.read(policy)
    with pytest.warns(UserWarning, match="Duplicate name"):
        rewrite(wheel, twice, {}, {policy: data})
    problems = audit(twice, bundles, ORIGINALS).problems
    assert [d.message for d in problems] == ["a second entry of this name: which one an installer keeps is undefined"]


def test_an_entry_that_cannot_be_read_back_fails_the_audit(
    built: dict[str, tuple[Path, Result]], from_sdist: dict[str, Path], tmp_path: Path
) -> None:
    """An entry whose stored bytes disagree with its CRC-32 (and that RECORD does not list, so it is
    inflated): named, as no installer could unpack it either, instead of the audit crashing (which
    would leave the artifact in place)."""
    wheel, bundles = bundles_of(built, from_sdist)
    policy = next(f.dest for b in bundles for f in b.files if f.dest.endswith("/policy.md"))
    with zipfile.ZipFile(wheel) as archive:
        record = archive.read(record_name(wheel)).decode()
        data = archive.read(policy)
    kept = "\n".join(line for line in record.splitlines() if not line.startswith(policy + ","))
    stored = tmp_path / "stored.whl"
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(stored, "w") as copy:  # stored: the bytes as they are
        for info in source.infolist():
            content = kept.encode() if info.filename == record_name(wheel) else source.read(info)
            info.compress_type = zipfile.ZIP_STORED
            copy.writestr(info, content)
    raw = stored.read_bytes()
    assert raw.count(data) == 1
    damaged = tmp_path / wheel.name
    damaged.write_bytes(raw.replace(data, bytes([data[0] ^ 1]) + data[1:]))
    problems = audit(damaged, bundles, ORIGINALS).problems
    assert [(d.code, d.path.split("/", 1)[1]) for d in problems] == [("FLU409", policy)]
    assert problems[0].message.startswith("cannot be read back (Bad CRC-32")
