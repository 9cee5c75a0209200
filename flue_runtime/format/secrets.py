"""What a secret is: the file and folder names refused, and the private keys and tokens in a file's bytes.

The one owner of these rules and of their diagnostics: the build, `flue-skills check`,
dev mode, workspace skills, sandboxes and `define_skill` all ask here, so they refuse
the same things with the same words.

Names are compared after folding what makes two names look alike to a person or a file
system: case, Unicode compatibility forms (NFKC: a full-width `ｅ` is an `e`), and the
trailing dots and spaces Windows drops. A backup of a refused name (`.netrc.bak`,
`.env~`, `#.env#`) is refused like the name itself. `secret(s).<ext>` is refused unless
the extension is a documentation format (`secrets.md` is a page about secrets); its
content is scanned for keys like every file's.

Content is read through its container: a key behind comment or quote markers, split into
string literals, escaped inside JSON (a notebook cell, JSON in JSON), with any line ending,
in UTF-16/32 or in base64 is found; a header quoted in prose, with no key material after
it, is not a key. Tokens are refused in their providers' full-length formats only: a
placeholder (`sk-...`, `YOUR_API_KEY`, `ghp_xxxx...`) or a documented example
(`AKIAIOSFODNN7EXAMPLE`) is not a token.
"""

from __future__ import annotations

import base64
import binascii
import fnmatch
import functools
import re
import string
import unicodedata
from dataclasses import dataclass

from flue_runtime.format.diagnostics import Diagnostic, diagnostic

__all__ = [
    "BACKUP_SUFFIXES",
    "BASE64_KEY",
    "ContentScan",
    "DOCUMENTATION",
    "Finding",
    "KEY",
    "MATERIAL",
    "NAME_CACHE",
    "SECRET_DIRS",
    "SECRET_FILES",
    "SECRET_IN_FOLDERS",
    "TOKENS",
    "allowed_secret",
    "fold",
    "found_secret",
    "is_secret_dir",
    "is_secret_file",
    "key_follows",
    "placeholder",
    "scan_content",
    "secret_file",
    "secret_folder",
]


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
    # credential files that tools write
    "*.env",
    ".flaskenv",
    "kubeconfig",
    "kubeconfig.*",
    "*.kubeconfig",
    "*.ppk",
    "*service[-_]account*.json",
    "*serviceaccount*.json",
    "*-adminsdk-*.json",
    "application_default_credentials.json",
    "accesstokens.json",
    "msal_token_cache.json",
)
#: Files refused by their name inside a folder a tool keeps them in (folder → names), after folding.
SECRET_IN_FOLDERS = {".docker": frozenset({"config.json"}), ".kube": frozenset({"config"})}
#: Folders refused whole, after folding.
SECRET_DIRS = frozenset({".aws", ".ssh", ".gnupg"})
#: `secret.<ext>` and `secrets.<ext>` with one of these extensions are documentation, not secrets.
DOCUMENTATION = frozenset({".md", ".markdown", ".mdx", ".rst", ".adoc", ".asciidoc", ".html", ".htm"})
#: What editors, tools and people append to a file they back up or copy.
BACKUP_SUFFIXES = ("~", ".bak", ".backup", ".old", ".orig", ".save", ".swp", ".swo", ".tmp", ".copy")

_SECRET_FILE = re.compile("|".join(fnmatch.translate(pattern) for pattern in SECRET_FILES))
_SECRET_PREFIX = re.compile(r"^(?:secrets?|kubeconfig)\.")
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
def is_secret_file(name: str, folder: str = "") -> bool:
    """A file name that holds credentials by convention (or a backup of one); `folder` is the name of
    the folder holding it, for the files a tool keeps in a folder of its own (`.docker/config.json`)."""
    names = _originals(fold(name))
    if any(_refused(candidate) for candidate in names):
        return True
    inside = SECRET_IN_FOLDERS.get(fold(folder)) if folder else None
    return inside is not None and any(candidate in inside for candidate in names)


@functools.lru_cache(maxsize=NAME_CACHE)
def is_secret_dir(name: str) -> bool:
    """A folder name that holds credentials by convention (or a backup of one)."""
    return any(candidate in SECRET_DIRS for candidate in _originals(fold(name)))


# --- what a file's bytes hold: private keys and credential tokens ------------------------


@dataclass(frozen=True, slots=True)
class Finding:
    """A secret in a file's content: a private key (FLU303) or a credential token (FLU315)."""

    code: str
    #: What was found, for messages: "a PEM private key", "a GitHub token", ...
    what: str
    #: The line it starts on (1-based), where it was found in ASCII-compatible text.
    line: int | None = None


KEY = "a PEM private key"
BASE64_KEY = "a base64-encoded PEM private key"

#: How `-----BEGIN` starts in each common text encoding; ASCII-compatible ones (UTF-8, Latin-1) share the first.
_MARKERS = tuple(
    ("-----BEGIN".encode(codec), codec) for codec in ("latin-1", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")
)
_LONGEST_MARKER = max(len(marker) for marker, _ in _MARKERS)
#: Characters after a header that can hold its armor headers and the start of its key material,
#: however it is wrapped (a notebook cell's JSON, a double-escaped string, a comment block).
_WINDOW = 2048
#: Base64 characters after the start of a base64-encoded PEM that hold its header and first material.
_BASE64_WINDOW = 2048
#: Bytes before a token run kept in view: a Slack webhook's URL, the other half of an AWS key pair.
_LOOKBEHIND = 1024
#: Bytes after a search's end kept for the next chunk: a header and its window in the widest
#: encoding, the other half of an AWS key pair.
_CARRY = _LONGEST_MARKER + _WINDOW * 4

#: Key material: this many base64 characters at least. The smallest private key (PKCS#8 Ed25519)
#: has 64, less what unwrapping a line may take for a container's (a leading `+` or `/`, a
#: trailing `+`); a header followed by a word, `MIIE...` or a line of the structure every
#: key shares is prose about keys, not a key.
MATERIAL = 60
#: A key's material lines are full (64 to 76 characters); a shorter one is its last.
_FULL_LINE = 40

_HEADER = re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
#: Characters a header can take (`-----BEGIN SSH2 ENCRYPTED PRIVATE KEY-----` is 42).
_HEADER_LIMIT = 100
_DASHES = {codec: "-----".encode(codec) for _, codec in _MARKERS}
# A line break written inside a string: `\n`, `\r\n`, `\r` escaped once or more (JSON in JSON,
# a notebook cell), `\u000a`, or an XML character reference.
_ESCAPED_BREAK = re.compile(r"\\+(?:r(?:\\+n)?|n|u000[aAdD])|&#(?:1[03]|[xX]0*[aAdD]);")
_ESCAPED_SLASH = re.compile(r"\\+/")
# Where two string literals meet: `" "`, `" + "`, `' . '`, with or without a prefix (`b"`, `r'`, `@"`).
_JOINT = re.compile(r"""["'`][ \t]*[+.]?[ \t]*[bBrRuUfF@]{0,2}["'`]""")
# What a container puts before a line of a key: indentation, comment and quote markers (`#`,
# `//`, `;`, `>`, `*`, `--`, `%`, `!`), a string's opening quote, a concatenation's `+` or `,`.
_PREFIX = re.compile(r"""(?:[\s#;>*%!,+(\[{|\\/-]|[bBrRuUfF@]{0,2}["'`])*""")
# ...and after it: a closing quote (and PHP's ` .`), `,`, `+`, `;`, `\`, brackets.
_SUFFIX = re.compile(r"""(?:["'`][ \t]*\.)?[\s"'`,;+)\]}\\]*\Z""")
_BASE64_WORD = re.compile(r"=?[A-Za-z0-9+/]+={0,2}")  # (PGP armor ends in a checksum, `=Ab1c`)
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/]*")
_ARMOR = re.compile(r"[A-Za-z][A-Za-z0-9-]*:")
_WORDLESS = re.compile(r"(?:(?!\.\.|…)[^A-Za-z0-9])*")


def _lines(text: str) -> list[str]:
    """`text` as lines, its escaped line breaks as real ones (CR, LF, CRLF and Unicode's own all end a line)."""
    return _ESCAPED_SLASH.sub("/", _ESCAPED_BREAK.sub("\n", text)).splitlines()


def key_follows(text: str, before: str = "") -> bool:
    """Whether `text`, which starts at a `-----BEGIN`, is a private key: its header, then key material.

    Each line is read through its container first: what a comment, a quote, a string
    literal or a notebook cell puts around it is stripped, so the material is the base64
    that is left. Armor headers (`Proc-Type:`, PGP's `Version:`) and blank lines may come
    first; the material must fill its lines (all but the last at least `_FULL_LINE`
    characters, or long words on one line) and add up to `MATERIAL` characters. A header
    in inline code (`before` is the character before it: a backtick, and one follows it)
    is a mention in prose, whatever comes next.
    """
    header = _HEADER.match(text)
    if header is None or (before == "`" and text.startswith("`", header.end())):
        return False
    rest = text[header.end() :].split("-----END", 1)[0]
    if len(rest) - rest.count(" ") < MATERIAL:  # too short to hold material: most headers in prose
        return False
    material: list[str] = []
    for raw in _lines(rest):
        line = _unwrap(raw)
        if _WORDLESS.fullmatch(line):
            continue  # what is left of a container's punctuation (`' .`, `);`), not an ellipsis
        words = line.split()
        if not material and _ARMOR.match(line):
            # An armor header; when a key's line ends became spaces, its material follows on this line.
            words = words[next((i for i, word in enumerate(words) if _long_base64(word)), len(words)) :]
            if not words:
                continue
        if not all(_BASE64_WORD.fullmatch(word) for word in words) or not all(map(_long_base64, words[:-1])):
            break
        material.extend(words)
        if sum(map(len, material)) >= MATERIAL or len(words[-1]) < _FULL_LINE:
            break
    found = "".join(material)
    return len(found) >= MATERIAL and len(set(found)) >= 20


def _unwrap(line: str) -> str:
    """`line` without what its container put around it: string joints, prefixes, closing quotes."""
    line = _JOINT.sub("", line)
    line = line[_PREFIX.match(line).end() :]  # type: ignore[union-attr]
    return line[: _SUFFIX.search(line, max(0, len(line) - 32)).start()]  # type: ignore[union-attr]


def _long_base64(word: str) -> bool:
    return len(word) >= _FULL_LINE and _BASE64_WORD.fullmatch(word) is not None


def _key_at(data: bytes, start: int, codec: str) -> bool:
    """`key_follows` for the header at `start`, encoded in `codec`. What it reads ends at the next
    `-----` (no key material holds one): a file of headers costs a pass, not a window per header."""
    width = 1 if codec == "latin-1" else int(codec[4:6]) // 8
    header = _HEADER.match(data[start : start + _HEADER_LIMIT * width].decode(codec, errors="ignore"))
    if header is None:
        return False
    window = start + _WINDOW * width
    stop = data.find(_DASHES[codec], start + header.end() * width, window)
    before = data[max(0, start - width) : start].decode(codec, errors="ignore")
    return key_follows(data[start : window if stop == -1 else stop].decode(codec, errors="ignore"), before)


def _base64_markers() -> tuple[tuple[bytes, int], ...]:
    """`-----BEGIN ` in base64 at each of its three alignments: (the characters only it determines,
    how far they start from the 4-character group they belong to)."""
    text = b"-----BEGIN "
    found = []
    for shift in range(3):
        encoded = base64.b64encode(bytes(shift) + text)
        own = [shift <= 6 * c // 8 and (6 * c + 5) // 8 < shift + len(text) for c in range(len(encoded))]
        first, last = own.index(True), len(own) - own[::-1].index(True)
        found.append((encoded[first:last], first))
    return tuple(found)


_BASE64_MARKERS = _base64_markers()


def _base64_key_at(data: bytes, start: int) -> bool:
    """Whether the base64 starting at `start` (wrapped over lines or not) decodes to a private key."""
    runs: list[str] = []
    for line in _lines(data[start : start + _BASE64_WINDOW].decode("latin-1")):
        line = line.strip(" \t\"'`,") if runs else line  # the first starts at the block
        run = _BASE64_RUN.match(line).group()  # type: ignore[union-attr]
        whole = len(run) == len(line.rstrip("="))
        if runs and not (run and whole):
            break  # not a line of the block
        runs.append(run)
        if not whole or len(run) < _FULL_LINE:
            break  # the block's last line
    encoded = "".join(runs)
    decoded = binascii.a2b_base64(encoded[: len(encoded) // 4 * 4])
    at = decoded.find(b"-----BEGIN")
    return at != -1 and key_follows(decoded[at:].decode("latin-1"))


# --- credential tokens ---------------------------------------------------------------------

#: A token, a base64 block and an AWS secret are runs of these characters; in `_RUN_TABLE` they map to
#: `a` and every other byte to a space, so one `find` locates every run long enough to hold one.
_RUN_CHARS = string.ascii_letters + string.digits + "_-+/"
_RUN_TABLE = bytes(b"a"[0] if chr(c) in _RUN_CHARS else b" "[0] for c in range(256))
#: The shortest run a credential makes: a Stripe key, `sk_live_` and 24 characters.
_RUN = b"a" * 32
#: Base64's alphabet, its padding and line ends map to `a` (a block of base64 or hex lines is a run of
#: them); no token is made of these alone.
_BLOCK_TABLE = bytes(
    b"a"[0] if chr(c) in string.ascii_letters + string.digits + "+/=\r\n" else b" "[0] for c in range(256)
)
_LINE_ENDS = (b"\n", b"\r")
#: Runs in one search past which blocks of base64 lines are looked at whole.
_DENSE = 16
#: Every base64 marker holds this (see `_BASE64_MARKERS`).
_BASE64_DASHES = b"LS0t"
#: Each provider's format at full length: its name, the prefixes a run holding it starts with, and
#: its pattern, matched where the run starts (a webhook's run starts at `com/services/`: `.` ends a
#: run, so its pattern is matched from `hooks.slack.`, 12 bytes before).
_FORMATS = tuple(
    (kind, prefixes, re.compile(pattern + rb"(?![A-Za-z0-9])"))
    for kind, prefixes, pattern in (
        ("github", (b"ghp_", b"gho_", b"ghu_", b"ghs_", b"ghr_"), rb"gh[pousr]_[A-Za-z0-9]{36}"),
        ("github_pat", (b"github_pat_",), rb"github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}"),
        (
            "slack",
            tuple(b"xox" + c + b"-" for c in (b"a", b"b", b"p", b"o", b"s", b"r")),
            rb"xox[abposr]-(?:[0-9]{6,14}-){1,3}[A-Za-z0-9]{24,64}",
        ),
        ("slack_app", (b"xapp-",), rb"xapp-[0-9]-[A-Z0-9]{8,14}-[0-9]{8,14}-[a-f0-9]{64}"),
        (
            "slack_webhook",
            (b"com/services/T",),
            rb"hooks\.slack\.com/services/T[A-Z0-9]{8,12}/B[A-Z0-9]{8,12}/[A-Za-z0-9]{24}",
        ),
        ("stripe", (b"sk_live_", b"rk_live_"), rb"[rs]k_live_[A-Za-z0-9]{24,99}"),
        ("anthropic", (b"sk-ant-",), rb"sk-ant-[a-z]{2,8}[0-9]{2}-[A-Za-z0-9_-]{80,}"),
        # Every OpenAI key holds `T3BlbkFJ` (base64 of "OpenAI"): looked for before the pattern is tried.
        ("openai", (b"sk-",), rb"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,}"),
    )
)
#: How a run holding a token starts: every format's prefixes.
_TOKEN_STARTS = tuple(prefix for _, prefixes, _ in _FORMATS for prefix in prefixes)
_WEBHOOK_HOST = b"hooks.slack."
#: What every token prefix holds besides letters and digits (`_`, `-`, `/`): text without any holds no token.
_PREFIX_MARKS = frozenset(bytes([c]) for prefix in _TOKEN_STARTS for c in prefix if not chr(c).isalnum())
#: A run of exactly 40 characters (an AWS secret key's length) in `_RUN_TABLE`'s translation.
_FORTY = b" " + b"a" * 40 + b" "
#: Bytes of a run a token can take: the longest format (an OpenAI project key) is about 170.
_TOKEN_SPAN = 512
TOKENS = {
    "aws": "an AWS access key pair",
    "github": "a GitHub token",
    "github_pat": "a GitHub fine-grained token",
    "slack": "a Slack token",
    "slack_app": "a Slack app token",
    "slack_webhook": "a Slack webhook URL",
    "stripe": "a Stripe live key",
    "openai": "an OpenAI API key",
    "anthropic": "an Anthropic API key",
}
# An AWS access key id, and the secret that goes with it: 40 characters of base64's alphabet
# with both cases and a digit or symbol (a 40-digit hex commit hash has no capital).
_AWS_ID = re.compile(rb"(?<![A-Za-z0-9])A(?:KI|SI)A[A-Z0-9]{16}(?![A-Za-z0-9])")
_AWS_SECRET = re.compile(rb"(?=[^a-z]*[a-z])(?=[^A-Z]*[A-Z])(?=[^0-9/+]*[0-9/+])[A-Za-z0-9/+]{40}")
#: Words a placeholder or a documented example spells (`AKIAIOSFODNN7EXAMPLE`, `sk-ant-xxxx...`).
_PLACEHOLDER_WORDS = (b"example", b"sample", b"dummy", b"placeholder", b"your", b"xxxx", b"fake", b"redacted")
#: Five characters in sequence (`abcde`, `12345`): what a person types, not what a generator draws.
_SEQUENCES = frozenset(
    alphabet[i : i + 5]
    for alphabet in (b"abcdefghijklmnopqrstuvwxyz", b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"0123456789")
    for i in range(len(alphabet) - 4)
)
_REPEATED = re.compile(rb"(.)\1{4}")
_BODY = re.compile(rb"[A-Za-z0-9]+")


def placeholder(token: bytes) -> bool:
    """Whether `token` is a stand-in rather than a credential: it spells a placeholder word, runs a
    sequence (`abcde`, `12345`) or repeats a character five times, or its random part uses too few
    characters to be random."""
    lowered = token.lower()
    if any(word in lowered for word in _PLACEHOLDER_WORDS) or _REPEATED.search(token):
        return True
    if any(token[i : i + 5] in _SEQUENCES for i in range(len(token) - 4)):
        return True
    body = max(_BODY.findall(token), key=len)
    return len(set(body)) < min(10, len(body) // 2)


def _aws_pair(data: bytes, start: int, end: int) -> bool:
    """Whether the 40-character run at `start`-`end` is an AWS secret key with its access key id
    within `_LOOKBEHIND` bytes: one half alone is not a credential (an id names a key; 40
    characters alone could be anything)."""
    near = max(0, start - _LOOKBEHIND), end + _LOOKBEHIND
    if data.find(b"AKIA", *near) == -1 and data.find(b"ASIA", *near) == -1:
        return False
    secret = data[start:end]
    if not _AWS_SECRET.fullmatch(secret) or placeholder(secret):
        return False
    return any(not placeholder(match.group()) for match in _AWS_ID.finditer(data, *near))


def _no_candidate(data: bytes, runs: bytes, start: int) -> bool:
    """Whether no run from `start` on can be a credential, found at the speed of `bytes.find`: a token's run
    starts with a prefix holding one of `_PREFIX_MARKS`, a base64-encoded key holds `LS0t`, an AWS key pair
    is a run of exactly 40. Text of long runs of letters and digits alone (a hex dump, a file of padding)
    then costs one pass, not a look at every run."""
    if any(data.find(mark, start) != -1 for mark in _PREFIX_MARKS) or data.find(_BASE64_DASHES, start) != -1:
        return False
    return (b" " + runs[start:] + b" ").find(_FORTY) == -1


def _credential_at(data: bytes, start: int, end: int) -> str:
    """What credential the run at `start`-`end` is ("" if none): a base64-encoded key, a token, an AWS key pair."""
    head = min(end, start + _LOOKBEHIND)
    for marker, back in _BASE64_MARKERS:
        at = data.find(marker, start, head)
        if at != -1 and _base64_key_at(data, max(0, at - back)):
            return BASE64_KEY
    for kind, prefixes, pattern in _FORMATS if data.startswith(_TOKEN_STARTS, start) else ():
        if not data.startswith(prefixes, start):
            continue
        at = start
        if kind == "slack_webhook":
            at -= len(_WEBHOOK_HOST)
            if at < 0 or not data.startswith(_WEBHOOK_HOST, at):
                continue
        elif kind == "openai" and data.find(b"T3BlbkFJ", start, end) == -1:
            continue
        match = pattern.match(data, at, min(end, start + _TOKEN_SPAN))
        if match and not placeholder(match.group()):
            return TOKENS[kind]
    if end - start == 40 and _aws_pair(data, start, end):
        return TOKENS["aws"]
    return ""


class ContentScan:
    """What secret a file's bytes hold, read in chunks: a private key or a token split between two is found.

    Private keys in any common text encoding (UTF-8, Latin-1, UTF-16 and UTF-32 in either byte
    order, with or without a BOM), in base64 too; tokens in ASCII-compatible text. Memory is
    bounded: each chunk is searched once, and only `_CARRY` bytes after it (and `_LOOKBEHIND`
    before) are kept for the next.
    """

    def __init__(self) -> None:
        self.found: Finding | None = None
        self._pending = b""
        self._from = 0  # where in `_pending` the bytes not yet searched start
        self._lines: int | None = 0  # line breaks in the bytes before `_pending`; None past a binary chunk

    def feed(self, chunk: bytes) -> None:
        if self.found is not None:
            return
        data = self._pending + chunk if self._pending else chunk
        if len(data) - self._from <= _CARRY:  # most files, whole: searched once, by finish()
            self._pending = data
        else:
            self._search(data, final=False)

    def finish(self) -> Finding | None:
        if self.found is None:
            self._search(self._pending, final=True)
        self._pending = b""
        return self.found

    def _line(self, data: bytes, at: int) -> int | None:
        return None if self._lines is None else self._lines + data.count(b"\n", 0, at) + 1

    def _search(self, data: bytes, *, final: bool) -> None:
        """Look at every header and run starting before `settled` (all of them once `final`)."""
        settled = len(data) if final else len(data) - _CARRY
        text = b"\0" not in data
        # Only the ASCII-compatible marker can be in bytes without a NUL (most text files): the
        # others would each be searched for in vain.
        for marker, codec in _MARKERS[:1] if text else _MARKERS:
            start = data.find(marker, self._from, settled + len(marker) - 1)
            while start != -1:
                if _key_at(data, start, codec):
                    self.found = Finding("FLU303", KEY, self._line(data, start) if text else None)
                    return
                start = data.find(marker, start + 1, settled + len(marker) - 1)
        # Tokens (and base64) are looked for in text only.
        if text:
            self.found = self._credential(data, settled)
            if self.found is not None:
                return
        if not final:
            cut = max(0, settled - _LOOKBEHIND)
            # Lines are counted in text only: a binary file has none to point to.
            self._lines = self._lines + data.count(b"\n", 0, cut) if text and self._lines is not None else None
            self._pending, self._from = data[cut:], settled - cut

    def _credential(self, data: bytes, settled: int) -> Finding | None:
        """The first credential in a run of token characters starting before `settled`.

        Most long runs are paths, identifiers, hashes or base64 data: how a run starts and how
        long it is rule them out before any pattern is tried. Where runs come one a line (base64
        wrapped at 76, a list of digests), looking at each costs more than the reading: past
        `_DENSE` runs, a block of lines made of base64's alphabet is looked at once, for the one
        credential it can hold (a base64-encoded key; an AWS pair sends it back to run by run).
        Text whose runs can hold none at all (`_no_candidate`) is not looked at run by run.
        """
        runs = data.translate(_RUN_TABLE)
        if _no_candidate(data, runs, self._from):
            return None
        blocks = b""
        limit = settled + len(_RUN) - 1
        seen = 0
        start = runs.find(_RUN, self._from, limit)
        while start != -1:
            end = runs.find(b" ", start)
            end = len(data) if end == -1 else end
            seen += 1
            if seen > _DENSE and data.startswith(_LINE_ENDS, end):
                blocks = blocks or data.translate(_BLOCK_TABLE)
                block = blocks.find(b" ", start)
                block = len(data) if block == -1 else block
                near = max(0, start - _LOOKBEHIND), block  # an AWS key id may come first
                if (
                    block > end + 2
                    and not data.startswith(_TOKEN_STARTS, start)  # a webhook's `com/services/...` is base64's too
                    and data.find(b"AKIA", *near) == data.find(b"ASIA", *near) == -1
                ):
                    for marker, back in _BASE64_MARKERS:
                        at = data.find(marker, start, block)
                        if at != -1 and _base64_key_at(data, max(0, at - back)):
                            return Finding("FLU303", BASE64_KEY, self._line(data, at))
                    # On from the start of the run the block ends in (`ghp` of `ghp_...`: `_` ends a block).
                    start = runs.find(_RUN, runs.rfind(b" ", end, block) + 1, limit)
                    continue
            if (
                data.startswith(_TOKEN_STARTS, start)
                or end - start == 40
                or data.find(_BASE64_DASHES, start, min(end, start + _LOOKBEHIND)) != -1
            ):
                what = _credential_at(data, start, end)
                if what:
                    return Finding("FLU303" if what == BASE64_KEY else "FLU315", what, self._line(data, start))
            start = runs.find(_RUN, end, limit)
        return None


def scan_content(data: bytes) -> Finding | None:
    """The first private key or credential token in `data` (see `ContentScan`), or None."""
    scan = ContentScan()
    scan.feed(data)
    return scan.finish()


# --- the verdicts (their words: `messages.TEXTS`) -----------------------------------------
# `in_project`: the skill belongs to a project, whose `[tool.flue] allow` can let a harmless
# file through. Outside any project (a folder of skills, a workspace, `define_skill`) there
# is no such list, so the hint says what to do instead.


def secret_file(shown: str, name: str, *, in_project: bool) -> Diagnostic:
    return diagnostic("FLU302 file" if in_project else "FLU302 file, no project", shown, name=name)


def secret_folder(shown: str, name: str, *, in_project: bool) -> Diagnostic:
    return diagnostic("FLU302 folder" if in_project else "FLU302 folder, no project", shown, name=name)


#: The words of a finding, by its code: in a project, and in none.
_FOUND = {"FLU303": ("FLU303", "FLU303 no project"), "FLU315": ("FLU315", "FLU315 no project")}


def found_secret(shown: str, found: Finding, *, in_project: bool) -> Diagnostic:
    """FLU303 for a private key, FLU315 for a credential token, at the line it starts on."""
    in_one, in_none = _FOUND[found.code]
    return diagnostic(in_one if in_project else in_none, shown, found.line, what=found.what)


def allowed_secret(shown: str, found: Finding | None = None) -> Diagnostic:
    """FLU306: a file packed although its name or content looks like a secret, because `allow` lists it."""
    if found is None:
        return diagnostic("FLU306 name", shown)
    return diagnostic("FLU306 content", shown, found.line, what=found.what)
