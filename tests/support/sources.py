"""A skill source as a user writes one (the `flue_runtime.SkillSource` protocol), over files held in a dict,
recording every read: what the hostile-source tests feed `load_skill`."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Mapping
from contextlib import closing

from flue_runtime import ListedFile

#: A PEM private key as a file holds one (header, key material, footer).
PEM_KEY = (
    b"-----BEGIN RSA PRIVATE KEY-----\n"
    + b"MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n" * 4
    + b"-----END RSA PRIVATE KEY-----\n"
)


def skill_md(
    name: str, description: str = "Handle refund requests.", body: str = "# Steps\n\nRead policy.md.\n"
) -> bytes:
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}".encode()


class DictSource:
    """`files` by path; listed with their SHA-256 when `digests`; `listed` overrides what the listing says of a
    file, `served` what `read` returns for it (an exception instance is raised). `reads` records every read."""

    def __init__(
        self,
        name: str,
        files: Mapping[str, bytes],
        *,
        digests: bool = False,
        listed: Mapping[str, ListedFile] | None = None,
        served: Mapping[str, bytes | BaseException | object] | None = None,
        where: str = "",
    ) -> None:
        self.name = name
        self.files = dict(files)
        self.digests = digests
        self.listed = dict(listed or {})
        self.served = dict(served or {})
        self.where = where or f"dict source {name!r}"
        self.reads: list[str] = []

    def describe(self) -> str:
        return self.where

    def listing(self) -> list[ListedFile]:
        out = []
        for path, data in self.files.items():
            digest = hashlib.sha256(data).hexdigest() if self.digests else None
            out.append(self.listed.get(path, ListedFile(path, len(data), digest)))
        out.extend(entry for path, entry in self.listed.items() if path not in self.files)
        return out

    def read(self, path: str) -> bytes:
        self.reads.append(path)
        served = self.served.get(path, self.files.get(path))
        if isinstance(served, BaseException):
            raise served
        return served  # type: ignore[return-value]  (a hostile source may return anything)


class SQLiteSkill:
    """A skill kept as rows of a real SQLite file, as the README's example keeps it: listed with sizes and
    digests, each file fetched (through a connection of its own) when it is read."""

    def __init__(self, db: str, name: str) -> None:
        self.db, self.name = db, name

    def describe(self) -> str:
        return f"{self.db} skill {self.name!r}"

    def listing(self) -> list[ListedFile]:
        with closing(sqlite3.connect(self.db)) as db:
            rows = db.execute("SELECT path, length(data), sha256 FROM skill_files WHERE skill = ?", (self.name,))
            return [ListedFile(path, size, sha256) for path, size, sha256 in rows]

    def read(self, path: str) -> bytes:
        with closing(sqlite3.connect(self.db)) as db:
            query = "SELECT data FROM skill_files WHERE skill = ? AND path = ?"
            [data] = db.execute(query, (self.name, path)).fetchone()
            return bytes(data)


def save_rows(db: str, skill: str, files: Mapping[str, bytes]) -> None:
    """`files` as the rows of `skill` in the SQLite file `db` (the table made if missing)."""
    with closing(sqlite3.connect(db)) as connection, connection:
        connection.execute(
            "CREATE TABLE IF NOT EXISTS skill_files (skill TEXT, path TEXT, data BLOB, sha256 TEXT, "
            "PRIMARY KEY (skill, path))"
        )
        connection.executemany(
            "INSERT OR REPLACE INTO skill_files VALUES (?, ?, ?, ?)",
            [(skill, path, data, hashlib.sha256(data).hexdigest()) for path, data in files.items()],
        )
