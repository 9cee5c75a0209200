"""What a secret is: the file and folder names refused, and a PEM private key in a file's bytes.

The one owner of these rules and of their diagnostics: the build, `flue-skills check`,
dev mode, workspace skills, sandboxes and `define_skill` all ask here, so they refuse
the same things with the same words.

Names are compared after folding what makes two names look alike to a person or a file
system: case, Unicode compatibility forms (NFKC: a full-width `ｅ` is an `e`), and the
trailing dots and spaces Windows drops. A backup of a refused name (`.netrc.bak`,
`.env~`, `#.env#`) is refused like the name itself. `secret(s).<ext>` is refused unless
the extension is a documentation format (`secrets.md` is a page about secrets); its
content is scanned for keys like every file's.
"""

from __future__ import annotations

import fnmatch
import functools
import re
import unicodedata

from flue_runtime.format.diagnostics import Diagnostic

#: File names refused as secrets, after folding (see `fold`).
SECRET_FILES = (
    ".env",
    ".env.*",
    ".envrc",
    ".dev.vars",
    ".dev.vars.*",
    ".netrc",
    "_netrc",
    ".npmrc",
    ".pypirc",
    ".pgpass",
    ".git-credentials",
    "credentials",
    "credentials.json",
    "*.key",
    "*.pem",
    "*.p12",
    "*.pfx",
    "secret",
    "secrets",
    "secret.*",
    "secrets.*",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
)
#: Folders refused whole, after folding.
SECRET_DIRS = frozenset({".aws", ".ssh", ".gnupg"})
#: `secret.<ext>` and `secrets.<ext>` with one of these extensions are documentation, not secrets.
DOCUMENTATION = frozenset({".md", ".markdown", ".mdx", ".rst", ".adoc", ".asciidoc", ".html", ".htm"})
#: What editors, tools and people append to a file they back up or copy.
BACKUP_SUFFIXES = ("~", ".bak", ".backup", ".old", ".orig", ".save", ".swp", ".swo", ".tmp", ".copy")

_SECRET_FILE = re.compile("|".join(fnmatch.translate(pattern) for pattern in SECRET_FILES))
_SECRET_PREFIX = re.compile(r"^secrets?\.")
# An editor's wrapping (`#name#`, `.#name`), then the name, then any run of backup suffixes.
_COPY = re.compile(
    r"^(?:#(?P<autosave>.+)#|\.#(?P<lock>.+)|(?P<name>.+))$",
    re.DOTALL,
)
_SUFFIXES = re.compile("(?:" + "|".join(re.escape(suffix) for suffix in BACKUP_SUFFIXES) + r")+$")


def fold(name: str) -> str:
    """`name` as a person or a file system would compare it: NFKC, case-folded, no trailing dots or spaces."""
    if name.isascii():  # NFKC leaves ASCII as it is, and ASCII case-folds by lower()
        return name.lower().rstrip(". ")
    return unicodedata.normalize("NFKC", name).casefold().rstrip(". ")


def _originals(name: str) -> tuple[str, ...]:
    """`name`, and the name it is a backup or editor copy of when it is one (`#.env.bak~#` → `.env`)."""
    match = _COPY.match(name)
    inner = (match.group("autosave") or match.group("lock") or match.group("name")) if match else name
    original = _SUFFIXES.sub("", inner).rstrip(". ")
    return (name,) if original in (name, "") else (name, original)


def _refused(folded: str) -> bool:
    if _SECRET_FILE.match(folded) is None:
        return False
    if _SECRET_PREFIX.match(folded):
        return "." + folded.rsplit(".", 1)[1] not in DOCUMENTATION
    return True


#: How many names each verdict remembers: the same few names (SKILL.md, references, scripts)
#: recur in every skill, and folding and matching them costs more than the walk's own work.
NAME_CACHE = 4096


@functools.lru_cache(maxsize=NAME_CACHE)
def is_secret_file(name: str) -> bool:
    """A file name that holds credentials by convention (or a backup of one)."""
    return any(_refused(candidate) for candidate in _originals(fold(name)))


@functools.lru_cache(maxsize=NAME_CACHE)
def is_secret_dir(name: str) -> bool:
    """A folder name that holds credentials by convention (or a backup of one)."""
    return any(candidate in SECRET_DIRS for candidate in _originals(fold(name)))


# --- PEM private keys ------------------------------------------------------------------

#: How `-----BEGIN` starts in each common text encoding; ASCII-compatible ones (UTF-8, Latin-1) share the first.
#: (`_KEY` checks the space after it: a marker that ends in a space, common in text, is found more slowly.)
_MARKERS = tuple(
    ("-----BEGIN".encode(codec), codec) for codec in ("latin-1", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")
)
_LONGEST_MARKER = max(len(marker) for marker, _ in _MARKERS)
#: Characters after a header that can hold its armor headers and the start of its key material.
_WINDOW = 1024
#: Bytes kept between two chunks of a streamed file: a header and its window in the widest encoding.
_CARRY = _LONGEST_MARKER + _WINDOW * 4

# A line break, real or escaped inside a string literal (a JSON file holding a key has "\n").
_BREAK = r"(?:\r?\n|\\r\\n|\\n)"
# The header, optional armor headers (`Proc-Type: 4,ENCRYPTED`, PGP's `Version: ...`) and blank
# lines, then key material: base64 filling the rest of its line, or a run too long to be a word.
_KEY = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
    rf"(?:[ \t]*{_BREAK})*[ \t]*"
    rf"(?:[A-Za-z][A-Za-z0-9-]*:[^\r\n\\]*{_BREAK}(?:[ \t]*{_BREAK})*[ \t]*)*"
    rf"(?:[A-Za-z0-9+/]{{4,}}={{0,2}}(?=[ \t]*(?:{_BREAK}|$)|[\"']|-----END)|[A-Za-z0-9+/]{{40,}})"
)


def _key_at(data: bytes, start: int, codec: str) -> bool:
    width = 1 if codec == "latin-1" else int(codec[4:6]) // 8
    text = data[start : start + _WINDOW * width].decode(codec, errors="ignore")
    return _KEY.match(text) is not None


def holds_private_key(data: bytes) -> bool:
    """True when `data` holds a PEM private key: a BEGIN header followed by key material.

    Any common text encoding (UTF-8, Latin-1, UTF-16 and UTF-32 in either byte order,
    with or without a BOM). A header quoted in prose, with no key material after it, is
    not a key.
    """
    scan = KeyScan()
    scan.feed(data)
    return scan.finish()


class KeyScan:
    """`holds_private_key` over a file read in chunks: a key split between two chunks is found."""

    def __init__(self) -> None:
        self.found = False
        self._pending = b""

    def feed(self, chunk: bytes) -> None:
        if self.found:
            return
        data = self._pending + chunk
        # Less than a window so far (most files, whole): searched once, by finish().
        self._pending = data if len(data) <= _CARRY else self._search(data, final=False)

    def finish(self) -> bool:
        if not self.found:
            self._search(self._pending, final=True)
            self._pending = b""
        return self.found

    def _search(self, data: bytes, *, final: bool) -> bytes:
        """Look at every header whose window is complete; return the bytes to look at again with the next chunk."""
        settled = len(data) if final else len(data) - _CARRY  # a header starting here has its whole window
        keep = max(0, len(data) - _LONGEST_MARKER + 1)
        # Only the ASCII-compatible marker can be in bytes without a NUL (most text files): the
        # others would each be searched for in vain.
        for marker, codec in _MARKERS if b"\0" in data else _MARKERS[:1]:
            start = data.find(marker)
            while start != -1:
                if start > settled:
                    keep = min(keep, start)
                    break
                if _key_at(data, start, codec):
                    self.found = True
                    return b""
                start = data.find(marker, start + 1)
        return b"" if final else data[keep:]


# --- the verdicts, one text and hint each ------------------------------------------------
# `in_project`: the skill belongs to a project, whose `[tool.flue] allow` can let a harmless
# file through. Outside any project (a folder of skills, a workspace, `define_skill`) there
# is no such list, so the hint says what to do instead.

#: Why the hints outside a project do not point to `[tool.flue] allow`.
NO_PROJECT = "this skill belongs to no project (no pyproject.toml), so no [tool.flue] allow can let it through"


def secret_file(shown: str, name: str, *, in_project: bool) -> Diagnostic:
    return Diagnostic.make(
        "FLU302",
        shown,
        f"`{name}` looks like a secret; refused",
        "move it out of the skill folder; if it is harmless (an example, a test key), "
        + (
            "list its path, relative to the project root, in [tool.flue] allow"
            if in_project
            else f"rename it so that it no longer looks like a secret: {NO_PROJECT}"
        ),
    )


def secret_folder(shown: str, name: str, *, in_project: bool) -> Diagnostic:
    return Diagnostic.make(
        "FLU302",
        shown,
        f"`{name}/` holds credentials; refused",
        f"move `{name}/` out of the skill folder "
        + ("(add it to [tool.flue] allow only if it is test data)" if in_project else f"({NO_PROJECT})"),
    )


def private_key(shown: str, *, in_project: bool) -> Diagnostic:
    return Diagnostic.make(
        "FLU303",
        shown,
        "holds a PEM private key; refused",
        "remove the key from the file; never ship private keys inside a package "
        + ("(a throwaway test key may be listed in [tool.flue] allow)" if in_project else f"({NO_PROJECT})"),
    )


def allowed_secret(shown: str) -> Diagnostic:
    return Diagnostic.make(
        "FLU306",
        shown,
        "packed although it looks like a secret: allowed by [tool.flue] allow",
        "remove it from [tool.flue] allow if this is not intended",
    )
