"""A zipped wheel's members, read through one `zipfile.ZipFile` per archive and process (issue 35 item 3) with
the recorded size as a bound: refused before inflating when the record is over the limit, never inflated past
it, every failure of a damaged or hostile archive one `MountError`; on zips made here and real built wheels."""

from __future__ import annotations

import importlib
import os
import stat
import threading
import tracemalloc
import zipfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from rtsetups import Builds
from support.imports import ImportSandbox
from support.tampered import MIB, damage_deflate

from flue_runtime.errors import FlueError, MountError, UnsafeFileError
from flue_runtime.mount.zipped import Archive, archive

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
    reader = Archive(str(path))
    with zipfile.ZipFile(path) as reference:
        for name, data in MEMBERS.items():
            assert reader.read_limited(name, len(data)) == reference.read(name) == data
            assert reader.mode(name) == reference.getinfo(name).external_attr >> 16
    with pytest.raises(KeyError):
        reader.read_limited("pkg/_flue_skills/skills/fedcba9876543210/missing.md", 3)


def understated(path: Path, name: str, size: int) -> Path:
    """The archive with `name`'s central directory record saying it holds `size` bytes."""
    raw = path.read_bytes()
    record = raw.rfind(b"PK\x01\x02", 0, raw.rfind(name.encode()))
    size_field = record + 24  # the uncompressed size in a central directory record
    path.write_bytes(raw[:size_field] + size.to_bytes(4, "little") + raw[size_field + 4 :])
    return path


def test_a_record_that_understates_a_bomb_never_lets_it_inflate(tmp_path: Path) -> None:
    """64 MiB of zeros deflated to ~64 KB, its record saying 10 bytes: at most a few KB are inflated
    (the read asks zipfile for the recorded size plus one byte), and the CRC refuses the rest."""
    name = "pkg/_flue_skills/manifest.json"
    path = tmp_path / "bomb.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out, out.open(name, "w") as member:
        for _ in range(64):
            member.write(bytes(MIB))
    assert path.stat().st_size < MIB
    understated(path, name, 10)
    tracemalloc.start()
    try:
        with pytest.raises(MountError, match=f"member {name} cannot be read: the archive is damaged"):
            Archive(str(path)).read_limited(name, MIB)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < MIB, f"{peak:,} bytes allocated to read a member recorded as 10 bytes"


@pytest.mark.parametrize("shape", [{}, {"prefix": b"#!/bin/sh\nexit 0\n" * 10}], ids=["plain", "prefixed"])
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


@pytest.mark.parametrize("shape", [{}, {"prefix": b"#!/bin/sh\nexit 0\n" * 10}], ids=["plain", "prefixed"])
def test_a_damaged_deflate_stream_is_a_bundle_error_naming_the_member(tmp_path: Path, shape: dict[str, bytes]) -> None:
    name = "pkg/_flue_skills/skills/0123456789abcdef/SKILL.md"
    path = make_zip(tmp_path / "wheel.whl", **shape)
    damage_deflate(path, name)
    with pytest.raises(MountError, match="damaged") as caught:
        Archive(str(path)).read_limited(name, 1 << 20)
    assert name in str(caught.value) and str(path) in str(caught.value)


# --- hostile and damaged archives ------------------------------------------------------------------

NAME = "pkg/_flue_skills/skills/0123456789abcdef/SKILL.md"


def one_member(path: Path, method: int = zipfile.ZIP_DEFLATED) -> Path:
    """A zip of NAME alone, compressed by `method`."""
    info = zipfile.ZipInfo(NAME, (2024, 1, 1, 0, 0, 0))
    info.compress_type = method
    with zipfile.ZipFile(path, "w") as out:
        out.writestr(info, MEMBERS[NAME])
    return path


@pytest.mark.parametrize("method", [zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA], ids=["bzip2", "lzma"])
def test_a_member_compressed_as_no_wheel_is_refused_before_it_is_inflated(tmp_path: Path, method: int) -> None:
    """zipfile bounds what it inflates per read only for deflate: another method could inflate a bomb whole."""
    path = one_member(tmp_path / "wheel.whl", method)
    with pytest.raises(MountError, match=f"member {NAME} is compressed with method {method}, which wheels do not use"):
        Archive(str(path)).read_limited(NAME, len(MEMBERS[NAME]))


def test_an_encrypted_member_is_a_bundle_error_naming_it(tmp_path: Path) -> None:
    """zipfile writes no encrypted members: the flag is set in the local header and the central record."""
    path = one_member(tmp_path / "wheel.whl")
    raw = bytearray(path.read_bytes())
    for signature, flags in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        raw[raw.index(signature) + flags] |= 0x1
    path.write_bytes(raw)
    with zipfile.ZipFile(path) as written:
        assert written.getinfo(NAME).flag_bits & 0x1
    with pytest.raises(MountError, match=f"{path}: member {NAME} cannot be read: .*encrypted"):
        Archive(str(path)).read_limited(NAME, len(MEMBERS[NAME]))


def test_a_name_held_twice_is_refused(tmp_path: Path) -> None:
    """Readers disagree on which copy of a name counts (zipfile and zipimport take the last): neither is served."""
    path = make_zip(tmp_path / "wheel.whl")
    with pytest.warns(UserWarning, match="Duplicate name"), zipfile.ZipFile(path, "a") as out:
        out.writestr(NAME, b"---\nname: other\n---\n")
    reader = Archive(str(path))
    with pytest.raises(MountError, match=f"{path}: holds member {NAME} more than once; refused"):
        reader.read_limited(NAME, 1 << 20)
    other = "pkg/_flue_skills/skills/fedcba9876543210/a.md"
    assert reader.read_limited(other, 6) == MEMBERS[other]  # the rest of the archive still reads


@pytest.mark.parametrize("keep", [0.5, 0.99], ids=["half", "end record cut"])
def test_a_truncated_archive_is_a_bundle_error_naming_it(tmp_path: Path, keep: float) -> None:
    path = make_zip(tmp_path / "wheel.whl")
    raw = path.read_bytes()
    path.write_bytes(raw[: int(len(raw) * keep)])
    with pytest.raises(MountError, match=f"{path}: cannot be read: the archive is damaged"):
        Archive(str(path)).read_limited(NAME, 1 << 20)


def test_a_fifo_in_place_of_the_archive_is_refused_at_once(tmp_path: Path) -> None:
    """Nobody writes to the FIFO: an open that blocked would never return."""
    path = tmp_path / "wheel.whl"
    os.mkfifo(path)
    outcome: list[BaseException] = []

    def read() -> None:
        try:
            Archive(str(path)).read_limited(NAME, 10)
        except BaseException as exc:
            outcome.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(10)
    assert not reader.is_alive(), "reading the archive blocked on a FIFO"
    [error] = outcome
    assert isinstance(error, MountError) and f"{path}: is not a regular file (a FIFO); refused" in str(error)


# --- one ZipFile per archive and process -----------------------------------------------------------


def test_an_archive_is_opened_once_per_process_and_kept(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "wheel.whl")
    first = archive(str(path))
    assert first.read_limited(NAME, len(MEMBERS[NAME])) == MEMBERS[NAME]
    path.unlink()  # what was opened stays readable: every later read goes through the same open file
    again = archive(str(path))
    assert again is first
    for name, data in MEMBERS.items():
        assert again.read_limited(name, len(data)) == data


def test_threads_reading_one_archive_get_whole_members(tmp_path: Path) -> None:
    """The harness reads skill files from worker threads; the archive's one file position is shared."""
    path = make_zip(tmp_path / "wheel.whl")
    reader = Archive(str(path))
    jobs = [name for name in MEMBERS for _ in range(40)]
    with ThreadPoolExecutor(8) as pool:
        found = list(pool.map(lambda name: reader.read_limited(name, len(MEMBERS[name])), jobs))
    assert found == [MEMBERS[name] for name in jobs]


@pytest.mark.slow
def test_a_real_wheel_on_sys_path_serves_threads_and_refuses_a_duplicate(
    builds: Builds, tmp_path: Path, imports: ImportSandbox
) -> None:
    """The fixture project's wheel, built by its backend, on sys.path as it is (zipimport): skill files read
    from many threads at once come back whole; the same wheel with a skill file's name added twice is refused."""
    imports.add(builds.lib)
    imports.add(builds.agent)
    support = importlib.import_module("runtime_agent_demo.agents.support")
    billing = support.BILLING
    reads: list[Callable[[], bytes]] = [lambda path=path: billing.read_bytes(path) for path in billing.resources]
    expected = [read() for read in reads]
    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(lambda read: read(), reads * 20)) == expected * 20

    twice = tmp_path / builds.agent.name
    with zipfile.ZipFile(builds.agent) as source, zipfile.ZipFile(twice, "w", zipfile.ZIP_DEFLATED) as out:
        [policy] = [n for n in source.namelist() if n.endswith("/policy.md")]
        for info in source.infolist():
            out.writestr(info, source.read(info))
        with pytest.warns(UserWarning, match="Duplicate name"):
            out.writestr(policy, b"changed\n")
    with pytest.raises(MountError, match=f"holds member {policy} more than once"):
        archive(str(twice)).read_limited(policy, 1 << 20)
