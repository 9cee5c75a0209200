"""Installed artifacts changed after the build, as an attacker or a broken disk would: a real wheel's
members rewritten (a manifest naming paths, a deflate bomb), a deflate stream damaged in place, an
installed manifest edited. Each starts from a wheel a real backend built."""

from __future__ import annotations

import json
import struct
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

MIB = 1024 * 1024


def edit_manifest(data: bytes, edit: Callable[[dict[str, Any]], None]) -> bytes:
    """The manifest `data` after `edit` changed its parsed JSON in place."""
    manifest = json.loads(data)
    edit(manifest)
    return json.dumps(manifest, ensure_ascii=False).encode("utf-8")


def rewrite_wheel(source: Path, dest: Path, members: dict[str, bytes]) -> Path:
    """A copy of `source` with the bytes of `members` replaced (each keeps its name, mode and compression)."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(dest, "w") as new:
        for info in old.infolist():
            new.writestr(info, members.get(info.filename, old.read(info)))
    return dest


def bomb_wheel(source: Path, dest: Path, member: str, size: int) -> Path:
    """A copy of `source` whose `member` (a manifest) is valid JSON padded to `size` bytes, deflated: a
    member of a few hundred KB that inflates to `size`. Written in chunks: the test never holds it."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as new:
        for info in old.infolist():
            if info.filename != member:
                new.writestr(info, old.read(info))
                continue
            text = old.read(info).decode("utf-8").rstrip()
            assert text.endswith("}")
            head, tail = text[:-1].encode() + b',"padding":"', b'"}\n'
            bomb = zipfile.ZipInfo(member, info.date_time)
            bomb.compress_type = zipfile.ZIP_DEFLATED
            with new.open(bomb, "w") as out:
                out.write(head)
                left = size - len(head) - len(tail)
                chunk = b"a" * MIB
                while left > 0:
                    out.write(chunk[:left])
                    left -= min(left, MIB)
                out.write(tail)
    return dest


def damage_deflate(wheel: Path, member: str) -> None:
    """Overwrite `member`'s compressed bytes in place with 0xFF: a deflate block of the reserved type,
    which zlib refuses ("invalid block type"); the central directory and local header stay as they were."""
    with zipfile.ZipFile(wheel) as archive:
        info = archive.getinfo(member)
    assert info.compress_type == zipfile.ZIP_DEFLATED and info.compress_size > 0, member
    with open(wheel, "r+b") as handle:
        handle.seek(info.header_offset)
        header = handle.read(30)
        name_length, extra_length = struct.unpack("<2H", header[26:30])
        handle.seek(info.header_offset + 30 + name_length + extra_length)
        handle.write(b"\xff" * info.compress_size)
