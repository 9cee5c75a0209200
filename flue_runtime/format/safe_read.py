"""Reading a regular file safely: the one way flue opens a file it did not write.

Never through a symbolic link (`O_NOFOLLOW`), never blocking on a FIFO (`O_NONBLOCK`),
only a regular file (checked with `fstat` on the open descriptor, so a file swapped
after an `lstat` is caught), its size checked against a bound before any byte is read,
and no more than the bound read even if the file grows meanwhile. The SHA-256 (with a
CRC-32), the secrets scan (private keys, tokens) and the hidden-text scan (tag characters, bidi
controls, zero-width characters) run over the same chunks, so a file is read once.

The verdicts a refused read leads to (their codes and texts) are the packing rules':
`flue_runtime.format.vetting`.
"""

from __future__ import annotations

import errno
import functools
import hashlib
import os
import stat
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from flue_runtime.errors import UnsafeFileError

if TYPE_CHECKING:
    from flue_runtime.format.hidden_text import Hidden, HiddenScan
    from flue_runtime.format.secrets import ContentScan, Finding

__all__ = ["CHUNK", "FileBytes", "inspect_bytes", "kind", "open_regular", "read_regular"]


#: Bytes read per call: big enough to be fast, small enough that memory stays bounded by it.
CHUNK = 1 << 20
_FOLLOW = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
_FLAGS = _FOLLOW | getattr(os, "O_NOFOLLOW", 0)


@dataclass(frozen=True, slots=True)
class FileBytes:
    """What one read found: the size, and what the caller asked for (bytes, SHA-256, secrets scan)."""

    size: int
    #: The bytes; None unless asked for (`keep`).
    data: bytes | None = None
    #: Hex SHA-256; "" unless asked for (`digest`).
    sha256: str = ""
    #: CRC-32, computed with the SHA-256: what a zip records of an entry, so a built wheel is checked without inflating it.
    crc32: int = 0
    #: The private keys and credential tokens in the bytes (`ContentScan.findings`); none unless asked for (`scan`).
    secrets: tuple[Finding, ...] = ()
    #: (mtime in ns, size, inode) when opened: tells a later read whether the file changed.
    stamp: tuple[int, int, int] = (0, 0, 0)
    #: Permission bits when opened (`stat.S_IMODE`); 0 for bytes that were not read from a file.
    mode: int = 0
    #: The hidden text in a text file's characters (`hidden_text`); None if none, or unless asked for (`scan`).
    hidden: Hidden | None = None


class _Reader:
    """Accumulates what a caller wants from a file's chunks, in one pass."""

    def __init__(self, *, keep: bool, digest: bool, scan: bool) -> None:
        self.size = 0
        self._chunks: list[bytes] | None = [] if keep else None
        self._digest = hashlib.sha256() if digest else None
        self._crc = 0
        self._scan = _content_scan()() if scan else None
        self._hidden = _hidden_scan()() if scan else None

    def feed(self, chunk: bytes) -> None:
        self.size += len(chunk)
        if self._chunks is not None:
            self._chunks.append(chunk)
        if self._digest is not None:
            self._digest.update(chunk)
            self._crc = zlib.crc32(chunk, self._crc)
        if self._scan is not None:
            self._scan.feed(chunk)
        if self._hidden is not None:
            self._hidden.feed(chunk)

    def result(self, stamp: tuple[int, int, int] = (0, 0, 0), mode: int = 0) -> FileBytes:
        if self._scan is not None:
            self._scan.finish()
        return FileBytes(
            self.size,
            None if self._chunks is None else b"".join(self._chunks),
            "" if self._digest is None else self._digest.hexdigest(),
            self._crc,
            () if self._scan is None else self._scan.findings,
            stamp,
            mode,
            None if self._hidden is None else self._hidden.finish(),
        )


@functools.cache
def _content_scan() -> type[ContentScan]:
    """`ContentScan`, imported on first use: an installed bundle's reads never scan, and its mount path stays light
    (cached: this runs for every file a walk reads, where even an import statement shows)."""
    from flue_runtime.format.secrets import ContentScan

    return ContentScan


@functools.cache
def _hidden_scan() -> type[HiddenScan]:
    """`HiddenScan`, imported on first use, as `_content_scan` is."""
    from flue_runtime.format.hidden_text import HiddenScan

    return HiddenScan


def read_regular(
    path: str | os.PathLike[str],
    *,
    limit: int | None = None,
    keep: bool = True,
    digest: bool = False,
    scan: bool = False,
    follow: bool = False,
) -> FileBytes:
    """The bytes (`keep`), SHA-256 (`digest`) and secrets scan (`scan`) of the regular file at `path`.

    Raises `UnsafeFileError` for a symbolic link (FLU301; `follow` lets a link to a
    regular file through: an installed package's files, which the manifest's hashes
    check), a FIFO, socket or device (FLU307) and a file larger than `limit` bytes
    (FLU311: checked before reading, and never more than `limit + 1` bytes read);
    `OSError` when the OS refuses, `IsADirectoryError` for a folder.
    """
    fd, info = open_regular(path, follow=follow)
    try:
        if limit is not None and info.st_size > limit:
            raise UnsafeFileError(os.fspath(path), "FLU311", f"holds {info.st_size:,} bytes, over {limit:,}")
        reader = _Reader(keep=keep, digest=digest, scan=scan)
        budget = None if limit is None else limit + 1
        # Plain os.read on the descriptor: a buffered file object per file would be needless work on every read.
        while budget is None or budget > 0:
            chunk = os.read(fd, CHUNK if budget is None else min(CHUNK, budget))
            if not chunk:
                break
            reader.feed(chunk)
            if budget is not None:
                budget -= len(chunk)
        if limit is not None and reader.size > limit:
            raise UnsafeFileError(os.fspath(path), "FLU311", f"grew past {limit:,} bytes while it was read")
        return reader.result((info.st_mtime_ns, info.st_size, info.st_ino), stat.S_IMODE(info.st_mode))
    finally:
        os.close(fd)


def open_regular(path: str | os.PathLike[str], *, follow: bool = False) -> tuple[int, os.stat_result]:
    """A descriptor open on the regular file at `path`, and its `fstat`: for a caller that reads in pages.

    The same refusals as `read_regular` (a link unless `follow`, anything but a regular file,
    `IsADirectoryError` for a folder); the caller closes the descriptor.
    """
    try:
        fd = os.open(path, _FOLLOW if follow else _FLAGS)
    except OSError as exc:
        if exc.errno == errno.ELOOP and _is_link(path):
            raise UnsafeFileError(os.fspath(path), "FLU301", "is a symbolic link") from None
        raise
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeFileError(
                os.fspath(path), "FLU307", f"is not a regular file ({kind(info.st_mode)})", info.st_mode
            )
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def inspect_bytes(data: bytes, *, digest: bool = False, scan: bool = False) -> FileBytes:
    """What `read_regular` reports, for bytes already in memory (files given in code, memory sandboxes)."""
    reader = _Reader(keep=False, digest=digest, scan=scan)
    for start in range(0, len(data), CHUNK):  # in chunks, as from disk: the scan's memory is a chunk's, not the file's
        reader.feed(data[start : start + CHUNK])
    found = reader.result()
    return FileBytes(found.size, data, found.sha256, found.crc32, found.secrets, hidden=found.hidden)


def _is_link(path: str | os.PathLike[str]) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def kind(mode: int) -> str:
    """What a file that is not regular is, for messages."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a special file"
