"""Issue 11 part 3: a zipped wheel's member is found by its name and read with the recorded size as a bound,
without indexing every entry of the archive, and reads what zipfile reads, member for member."""

from __future__ import annotations

import stat
import zipfile
from pathlib import Path

import pytest
from support.tampered import damage_deflate

from flue_runtime.errors import BundleError, FlueError, UnsafeFileError
from flue_runtime.mount.zipped import Archive

MEMBERS = {
    "pkg/_flue_skills/skills/0123456789abcdef/SKILL.md": b"---\nname: a\n---\n" + b"Body text. " * 500,
    "pkg/_flue_skills/skills/0123456789abcdef/scripts/run.sh": b"#!/bin/sh\necho hi\n",
    "pkg/_flue_skills/skills/fedcba9876543210/references/a.md": b"inner\n",
    "pkg/_flue_skills/skills/fedcba9876543210/a.md": b"outer\n",  # its name ends another member's name
    "pkg/_flue_skills/skills/fedcba9876543210/d\u00e9j\u00e0-vu.md": "caf\u00e9\n".encode(),
    "pkg/_flue_skills/skills/fedcba9876543210/empty.txt": b"",
    "pkg/_flue_skills/skills/fedcba9876543210/random.bin": bytes(range(256)) * 64,
}


def make_zip(path: Path, *, prefix: bytes = b"", comment: bytes = b"") -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for index, (name, data) in enumerate(MEMBERS.items()):
            info = zipfile.ZipInfo(name, (2024, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED if index % 3 == 2 else zipfile.ZIP_DEFLATED
            info.external_attr = (stat.S_IFREG | (0o755 if name.endswith(".sh") else 0o644)) << 16
            archive.writestr(info, data)
        archive.comment = comment
    if prefix:  # bytes before the archive (a self-extracting stub): the offsets no longer add up
        path.write_bytes(prefix + path.read_bytes())
    return path


@pytest.mark.parametrize(
    "shape", [{}, {"comment": b"built for the tests"}, {"prefix": b"#!/bin/sh\nexit 0\n" * 10}], ids=str
)
def test_every_member_reads_as_zipfile_reads_it(tmp_path: Path, shape: dict[str, bytes]) -> None:
    path = make_zip(tmp_path / "wheel.whl", **shape)
    archive = Archive(str(path))
    with zipfile.ZipFile(path) as reference:
        for name, data in MEMBERS.items():
            assert archive.read(name, len(data)) == reference.read(name) == data
            assert archive.mode(name) == reference.getinfo(name).external_attr >> 16
    with pytest.raises(KeyError):
        archive.read("pkg/_flue_skills/skills/fedcba9876543210/missing.md", 3)
    uses_index = "prefix" not in shape
    assert (archive.member(next(iter(MEMBERS))) is not None) is uses_index  # bytes before it: zipfile's job


def test_a_member_of_another_size_is_refused_before_it_is_inflated(tmp_path: Path) -> None:
    archive = Archive(str(make_zip(tmp_path / "wheel.whl")))
    name = "pkg/_flue_skills/skills/0123456789abcdef/SKILL.md"
    with pytest.raises(UnsafeFileError, match="holds 5,516 bytes, not 100") as caught:
        archive.read(name, 100)
    assert caught.value.code == "FLU311"


def test_no_more_than_the_recorded_size_and_one_byte_is_inflated(tmp_path: Path) -> None:
    """A directory that understates a member's size (a tampered archive): the read stops at the bound."""
    path = make_zip(tmp_path / "wheel.whl")
    name = "pkg/_flue_skills/skills/0123456789abcdef/SKILL.md"
    real = len(MEMBERS[name])
    raw = path.read_bytes()
    record = raw.rfind(b"PK\x01\x02", 0, raw.rfind(name.encode()))
    size_field = record + 24  # the uncompressed size in a central directory record
    assert int.from_bytes(raw[size_field : size_field + 4], "little") == real
    path.write_bytes(raw[:size_field] + (10).to_bytes(4, "little") + raw[size_field + 4 :])
    assert Archive(str(path)).read(name, 10) == MEMBERS[name][:11]


def understated(path: Path, name: str, size: int) -> Path:
    """The archive with `name`'s central directory record saying it holds `size` bytes."""
    raw = path.read_bytes()
    record = raw.rfind(b"PK\x01\x02", 0, raw.rfind(name.encode()))
    size_field = record + 24
    path.write_bytes(raw[:size_field] + size.to_bytes(4, "little") + raw[size_field + 4 :])
    return path


@pytest.mark.parametrize("shape", [{}, {"prefix": b"#!/bin/sh\nexit 0\n" * 10}], ids=["index", "zipfile"])
def test_a_bounded_read_refuses_a_record_over_the_limit_before_inflating(
    tmp_path: Path, shape: dict[str, bytes]
) -> None:
    """Issue 20: what the run time reads without knowing its size (a manifest) has a limit, checked
    against the record first, and never inflated past the recorded size when the record lies."""
    name = "pkg/_flue_skills/skills/0123456789abcdef/SKILL.md"
    path = make_zip(tmp_path / "wheel.whl", **shape)
    assert Archive(str(path)).read_limited(name, len(MEMBERS[name])) == MEMBERS[name]
    with pytest.raises(UnsafeFileError, match=f"holds {len(MEMBERS[name]):,} bytes, over 100") as caught:
        Archive(str(path)).read_limited(name, 100)
    assert caught.value.code == "FLU311"
    lying = understated(path, name, 10)
    with pytest.raises(FlueError) as refused:  # inflated to 11 bytes at most, then refused
        Archive(str(lying)).read_limited(name, 100)
    assert name in str(refused.value)


@pytest.mark.parametrize("shape", [{}, {"prefix": b"#!/bin/sh\nexit 0\n" * 10}], ids=["index", "zipfile"])
def test_a_damaged_deflate_stream_is_a_bundle_error_naming_the_member(tmp_path: Path, shape: dict[str, bytes]) -> None:
    name = "pkg/_flue_skills/skills/0123456789abcdef/SKILL.md"
    path = make_zip(tmp_path / "wheel.whl", **shape)
    damage_deflate(path, name)
    for read in (lambda a: a.read(name, len(MEMBERS[name])), lambda a: a.read_limited(name, 1 << 20)):
        with pytest.raises(BundleError, match="damaged") as caught:
            read(Archive(str(path)))
        assert name in str(caught.value) and str(path) in str(caught.value)
