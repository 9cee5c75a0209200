"""Members of a zipped wheel, read through `zipfile` with a bound, from one `ZipFile` per archive and process.

The archive is opened once (`archive(path)`), as a regular file only (`open_regular`: a FIFO in
its place is refused, not waited on), and its index kept for every later read. A member's size in
the index is checked against the caller's limit before anything is inflated, and no read asks
`zipfile` for more than that size plus one byte. Only the two methods wheels use (stored,
deflated) are read: `zipfile` bounds what it inflates for those alone. A name the archive holds
twice is refused (readers disagree on which copy counts). Whatever a damaged archive makes
`zipfile` raise is one `MountError` naming the archive and the member.

Once per process this costs importing `zipfile` and reading the archive's whole index, which grows with its
entries, about what zipimport already spends on the same index. Kept over a reader of our own, which would win
that back for a wheel of thousands of entries at the price of parsing ZIP records ourselves: the figures and the
decision are in BENCHMARKS.md, "Zip reads through `zipfile`".
"""

from __future__ import annotations

import io
import os
import threading
import zipfile
from collections import Counter
from typing import BinaryIO

from flue_runtime.errors import MountError, UnsafeFileError
from flue_runtime.format.safe_read import open_regular

__all__ = ["Archive", "archive", "forget"]

_lock = threading.Lock()
_open: dict[str, Archive] = {}


def archive(path: str) -> Archive:
    """The one `Archive` of `path` in this process."""
    with _lock:
        found = _open.get(path)
        if found is None:
            found = _open[path] = Archive(path)
        return found


def forget() -> None:
    """Close every archive `archive` opened (tests, or after reinstalling packages)."""
    with _lock:
        for found in _open.values():
            found.close()
        _open.clear()


class Archive:
    """A zip archive, indexed on first use, its members read with a bound; safe to share between threads."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()  # a ZipFile reads through one file position
        self._zip: zipfile.ZipFile | None = None
        self._handle: BinaryIO = io.BytesIO()
        self._twice: frozenset[str] = frozenset()

    def read_limited(self, name: str, limit: int) -> bytes:
        """The bytes of member `name`: refused (FLU311) when the archive records more than `limit` bytes,
        before anything is inflated, or when it inflates to another size than it records; `KeyError` if absent."""
        with self._lock:
            info = self._info(name)
            if info.file_size > limit:
                raise UnsafeFileError(name, "FLU311", f"holds {info.file_size:,} bytes, over {limit:,}")
            try:
                with self._index().open(info) as member:
                    data = member.read(info.file_size + 1)  # zipfile stops at the recorded size, checking the CRC
            except Exception as exc:  # what a damaged archive makes zipfile raise: BadZipFile, zlib.error, EOFError...
                raise self._damaged(exc, name) from None
        if len(data) != info.file_size:
            raise UnsafeFileError(
                name, "FLU311", f"does not inflate to the {info.file_size:,} bytes the archive records"
            )
        return data

    def mode(self, name: str) -> int:
        """The Unix mode the archive records for member `name`."""
        with self._lock:
            return self._info(name).external_attr >> 16

    def close(self) -> None:
        with self._lock:
            if self._zip is not None:
                self._zip.close()
                self._handle.close()  # a ZipFile leaves open the file it was given
                self._zip = None

    def _info(self, name: str) -> zipfile.ZipInfo:
        """Member `name`'s record, refused when the archive holds the name twice or compresses it as no wheel
        does; `KeyError` if absent."""
        info = self._index().getinfo(name)
        if name in self._twice:
            raise MountError(f"{self.path}: holds member {name} more than once; refused: reinstall the package")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise MountError(
                f"{self.path}: member {name} is compressed with method {info.compress_type}, which wheels do not use "
                "(only stored or deflated); refused: reinstall the package"
            )
        return info

    def _index(self) -> zipfile.ZipFile:
        if self._zip is None:
            try:
                fd, _ = open_regular(self.path, follow=True)
            except UnsafeFileError as exc:
                raise MountError(f"{self.path}: {exc.reason}; refused: reinstall the package") from None
            except OSError as exc:  # gone or unreadable since the package was imported from it
                raise self._damaged(exc) from None
            self._handle = os.fdopen(fd, "rb")
            try:
                self._zip = zipfile.ZipFile(self._handle)
            except Exception as exc:  # BadZipFile, OSError, EOFError... from a truncated or corrupt archive
                self._handle.close()
                raise self._damaged(exc) from None
            names = self._zip.namelist()
            if len(set(names)) != len(names):
                self._twice = frozenset(name for name, count in Counter(names).items() if count > 1)
        return self._zip

    def _damaged(self, exc: Exception, name: str = "") -> MountError:
        """What a damaged archive made a reader raise, as one error naming the archive and the member."""
        what = f"member {name} cannot be read" if name else "cannot be read"
        return MountError(
            f"{self.path}: {what}: the archive is damaged ({type(exc).__name__}: {str(exc) or type(exc).__name__}); "
            "reinstall the package"
        )
