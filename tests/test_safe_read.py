"""Reading a regular file safely (flue_runtime.format.safe_read): the one way flue opens a file it did not write."""

from __future__ import annotations

import hashlib
import os
import random
from pathlib import Path

import pytest
from support.hostile import planted

from flue_build.scan.scanner import scan_file
from flue_runtime.errors import UnsafeFileError
from flue_runtime.format.safe_read import CHUNK, read_regular

KEY = planted.shaped_pem(random.Random(1), "OPENSSH PRIVATE KEY").encode()


def test_bytes_hash_and_key_scan_in_one_read(tmp_path: Path) -> None:
    data = os.urandom(CHUNK + 123) + KEY
    (tmp_path / "f").write_bytes(data)
    found = read_regular(tmp_path / "f", digest=True, scan=True)
    assert (found.size, found.data, found.sha256, len(found.secrets)) == (
        len(data),
        data,
        hashlib.sha256(data).hexdigest(),
        1,
    )
    light = read_regular(tmp_path / "f", keep=False)
    assert (light.size, light.data, light.sha256, light.secrets) == (len(data), None, "", ())


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")  # nobody writes: a blocking open or read would hang here
    with pytest.raises(UnsafeFileError) as caught:
        read_regular(tmp_path / "pipe")
    assert caught.value.code == "FLU307" and "FIFO" in caught.value.reason


def test_a_folder_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError):
        read_regular(tmp_path)


def test_a_link_is_refused_unless_followed(tmp_path: Path) -> None:
    (tmp_path / "real").write_bytes(b"bytes")
    os.symlink(tmp_path / "real", tmp_path / "link")
    with pytest.raises(UnsafeFileError) as caught:
        read_regular(tmp_path / "link")
    assert caught.value.code == "FLU301"
    assert read_regular(tmp_path / "link", follow=True).data == b"bytes"


def test_a_file_over_the_limit_is_refused_by_its_size(tmp_path: Path) -> None:
    with open(tmp_path / "big", "wb") as handle:
        handle.truncate(1 << 40)  # 1 TiB, sparse: reading it would never end
    with pytest.raises(UnsafeFileError) as caught:
        read_regular(tmp_path / "big", limit=1 << 20)
    assert caught.value.code == "FLU311"


def test_no_more_than_the_limit_is_read_from_a_file_that_says_it_is_smaller() -> None:
    """/proc files report size 0 and then hold more: the read stops one byte past the limit."""
    assert os.stat("/proc/self/status").st_size == 0
    with pytest.raises(UnsafeFileError, match="grew past 10 bytes"):
        read_regular("/proc/self/status", limit=10)
    assert read_regular("/proc/self/status", limit=1 << 20).size > 10


def test_os_errors_pass_through(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_regular(tmp_path / "missing")


def test_the_scanner_reads_modules_through_the_one_safe_read(tmp_path: Path) -> None:
    """A module that is a link or a FIFO is refused with the vetting's own codes, without blocking."""
    (tmp_path / "real.py").write_text("from flue_runtime import skill\nS = skill('./x/SKILL.md')\n")
    os.symlink(tmp_path / "real.py", tmp_path / "linked.py")
    os.mkfifo(tmp_path / "piped.py")
    assert [c.spec for c in scan_file(tmp_path / "real.py", "real.py").calls] == ["./x/SKILL.md"]
    assert [d.code for d in scan_file(tmp_path / "linked.py", "linked.py").diagnostics] == ["FLU301"]
    assert [d.code for d in scan_file(tmp_path / "piped.py", "piped.py").diagnostics] == ["FLU307"]
