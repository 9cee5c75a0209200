"""One member of a zipped wheel, found by its name and read with a bound, without indexing the whole archive.

`zipfile.ZipFile` turns every entry of the central directory into an object before it can
open one: for a large wheel that dominates the first activation of a bundled skill in every
process (BENCHMARKS.md). A member's record is found instead by searching the
directory's bytes for its name (one read, one `bytes.find`); its size there is compared
with the size the build recorded before anything is inflated, and no more than that size
plus one byte is ever inflated. Anything this plain reader does not handle (ZIP64, data
before the archive, encryption, other compression methods, names not in UTF-8) goes to
`zipfile`, which reads it the slow way with the same bound. A damaged archive (a deflate
stream that does not inflate, a record cut short) is a `BundleError` naming the archive and
the member, whichever reader met it.
"""

from __future__ import annotations

import os
import struct
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from flue_runtime.errors import BundleError, UnsafeFileError

if TYPE_CHECKING:
    from zipfile import ZipFile, ZipInfo

__all__ = ["Archive", "Member"]


_END = struct.Struct("<4s4H2LH")  # end of central directory record
_CENTRAL = struct.Struct("<4s4B4HL2L5H2L")  # a central directory record, before its name
_LOCAL = struct.Struct("<4s2B4HL2L2H")  # a local file header, before its name
_ZIP64 = 0xFFFFFFFF
_CHUNK = 1 << 20
_STORED, _DEFLATED = 0, 8


@dataclass(frozen=True, slots=True)
class Member:
    """What the central directory says of one member."""

    method: int
    compressed: int
    size: int
    mode: int  # the Unix mode the archive records (external attributes >> 16)
    offset: int  # of its local header


def _read_errors() -> tuple[type[Exception], ...]:
    """What reading a damaged archive raises: evaluated only when something was raised."""
    from zipfile import BadZipFile

    return (OSError, EOFError, ValueError, RuntimeError, zlib.error, struct.error, BadZipFile)


class Archive:
    """A zip archive's central directory, read once, and its members read on demand."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._directory: bytes | None = None  # None: not read yet; b"": read it with zipfile
        self._zipfile: ZipFile | None = None

    def _read_directory(self) -> bytes:
        if self._directory is None:
            with open(self.path, "rb") as handle:
                end = handle.seek(0, os.SEEK_END)
                handle.seek(max(0, end - _END.size - 0xFFFF))
                tail = handle.read()
                at = tail.rfind(b"PK\x05\x06")
                directory = b""
                if at >= 0 and len(tail) - at >= _END.size:
                    _, disk, _, _, count, size, offset, _ = _END.unpack_from(tail, at)
                    position = end - len(tail) + at  # where the end record is
                    # ZIP64, a multi-disk archive, or bytes before the archive: zipfile's job.
                    if disk == 0 and count != 0xFFFF and size != _ZIP64 and offset + size == position:
                        handle.seek(offset)
                        directory = handle.read(size)
                self._directory = directory
        return self._directory

    def member(self, name: str) -> Member | None:
        """The member's record, None when this reader cannot tell (see the module docstring); `KeyError` if absent."""
        directory = self._read_directory()
        if not directory:
            return None
        wanted = name.encode("utf-8")
        at = directory.find(wanted)
        while at != -1:
            start = at - _CENTRAL.size
            if start >= 0 and directory[start : start + 4] == b"PK\x01\x02":
                record = _CENTRAL.unpack_from(directory, start)
                flags, method, compressed, size, name_length = record[5], record[6], record[10], record[11], record[12]
                if name_length == len(wanted):
                    plain = not flags & 0x1 and (flags & 0x800 or wanted.isascii())  # not encrypted, UTF-8 name
                    if not plain or method not in (_STORED, _DEFLATED) or _ZIP64 in (compressed, size, record[18]):
                        return None
                    return Member(method, compressed, size, record[17] >> 16, record[18])
            at = directory.find(wanted, at + 1)
        raise KeyError(name)

    def read(self, name: str, size: int) -> bytes:
        """At most `size + 1` bytes of member `name`; `UnsafeFileError` (FLU311) when the archive records
        another size, before anything is inflated; `KeyError` when it holds no such member."""
        try:
            found = self.member(name)
            if found is None:
                info = self._zip().getinfo(name)
                if info.file_size != size:
                    raise UnsafeFileError(name, "FLU311", f"holds {info.file_size:,} bytes, not {size:,}")
                return self._read_with_zipfile(info, size)
            if found.size != size:
                raise UnsafeFileError(name, "FLU311", f"holds {found.size:,} bytes, not {size:,}")
            return self._inflate(name, found, size)
        except _read_errors() as exc:
            raise self._damaged(name, exc) from None

    def read_limited(self, name: str, limit: int) -> bytes:
        """The bytes of member `name`, refused (FLU311) when the archive records more than `limit` bytes,
        before anything is inflated, or when it inflates to another size than it records (never more
        than one byte past it is inflated); `KeyError` if absent."""
        try:
            found = self.member(name)
            declared = self._zip().getinfo(name).file_size if found is None else found.size
        except _read_errors() as exc:
            raise self._damaged(name, exc) from None
        if declared > limit:
            raise UnsafeFileError(name, "FLU311", f"holds {declared:,} bytes, over {limit:,}")
        data = self.read(name, declared)
        if len(data) != declared:
            raise UnsafeFileError(name, "FLU311", f"does not inflate to the {declared:,} bytes the archive records")
        return data

    def _inflate(self, name: str, found: Member, size: int) -> bytes:
        """At most `size + 1` bytes of the member `found` describes."""
        with open(self.path, "rb") as handle:
            handle.seek(found.offset)
            header = handle.read(_LOCAL.size)
            if len(header) != _LOCAL.size or header[:4] != b"PK\x03\x04":
                raise ValueError("no local file header where the central directory says")
            *_, name_length, extra_length = _LOCAL.unpack(header)
            handle.seek(found.offset + _LOCAL.size + name_length + extra_length)
            inflate = zlib.decompressobj(-15) if found.method == _DEFLATED else None
            data = bytearray()
            left = found.compressed
            while left and len(data) <= size:
                chunk = handle.read(min(_CHUNK, left))
                if not chunk:
                    break
                left -= len(chunk)
                room = size + 1 - len(data)
                data += inflate.decompress(chunk, room) if inflate is not None else chunk[:room]
        return bytes(data)

    def _damaged(self, name: str, exc: Exception) -> BundleError:
        """Whatever a damaged archive makes a reader raise (zlib.error, BadZipFile, EOFError, struct.error,
        OSError...), as one error naming the archive and the member."""
        detail = str(exc) or type(exc).__name__
        return BundleError(
            f"{self.path}: member {name} cannot be read: the archive is damaged ({type(exc).__name__}: {detail}); "
            "reinstall the package"
        )

    def mode(self, name: str) -> int:
        """The Unix mode the archive records for member `name`."""
        found = self.member(name)
        if found is not None:
            return found.mode
        return self._zip().getinfo(name).external_attr >> 16

    def _zip(self) -> ZipFile:
        if self._zipfile is None:
            import zipfile

            self._zipfile = zipfile.ZipFile(self.path)
        return self._zipfile

    def _read_with_zipfile(self, info: ZipInfo, size: int) -> bytes:
        """At most `size + 1` bytes: zipfile inflates only what a read asks for."""
        with self._zip().open(info) as handle:
            return bytes(handle.read(size + 1))
