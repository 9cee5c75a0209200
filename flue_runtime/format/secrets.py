"""What a secret is: the file and folder names refused, and the private keys and tokens in a file's bytes.

The one owner of these rules and of their diagnostics: the build, `flue-skills check`,
dev mode, workspace skills, sandboxes and `define_skill` all ask here, so they refuse
the same things with the same words.

Names are compared after folding what makes two names look alike to a person or a file
system: case, Unicode compatibility forms (NFKC: a full-width `ｅ` is an `e`), and the
trailing dots and spaces Windows drops. A backup of a refused name (`.netrc.bak`,
`.env~`, `#.env#`) is refused like the name itself. `secret(s).<ext>` is refused unless
the extension is a documentation format (`secrets.md` is a page about secrets); its
content is scanned for keys like every file's. A `.env` template (`.env.example`) is
documentation too, unless a credential variable in it holds a value (`template_value`).

Content is read through its container: a key behind comment or quote markers, split into
string literals, escaped inside JSON (a notebook cell, JSON in JSON, a JSON array of its
lines), in HTML, URL-encoded, in a numbered listing, with any line ending, in UTF-16/32 or
in base64 is found; a header quoted in prose, with no key material after it (or only the
structure every key of its kind shares), is not a key. Tokens are refused in their
providers' full-length formats only, wherever they start (after punctuation in a URL, as a
base64 value): a placeholder (`sk-...`, `YOUR_API_KEY`, `ghp_xxxx...`) or a documented
example (`AKIAIOSFODNN7EXAMPLE`) is not a token, judged by the whole token.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import dataclasses
import fnmatch
import functools
import heapq
import re
import string
import unicodedata
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass

from flue_runtime.format.diagnostics import PER_FILE, Diagnostic, bounded, deferred, diagnostic

__all__ = [
    "BACKUP_SUFFIXES",
    "BASE64_KEY",
    "ContentScan",
    "DOCUMENTATION",
    "ENV_TEMPLATES",
    "Finding",
    "IN_BASE64",
    "KEY",
    "MATERIAL",
    "NAME_CACHE",
    "SECRET_DIRS",
    "SECRET_FILES",
    "SECRET_IN_FOLDERS",
    "TOKENS",
    "allowed_secret",
    "fold",
    "found_secrets",
    "is_env_template",
    "is_secret_dir",
    "is_secret_file",
    "key_follows",
    "placeholder",
    "scan_content",
    "scan_findings",
    "secret_file",
    "secret_folder",
    "template_refused",
    "template_value",
]


#: File names refused as secrets, after folding (see `fold`).
SECRET_FILES = (
    ".env",
    ".env.*",
    ".env_*",  # dotenv variants written with an underscore (`.env_prod`)
    ".envrc",
    ".dev.vars",
    ".dev.vars.*",
    ".netrc",
    "_netrc",
    ".npmrc",
    ".pypirc",
    ".pgpass",
    ".pgpass*",  # PostgreSQL's libpq password file, and its copies (`.pgpass.prod`)
    ".git-credentials",
    ".git-credentials*",  # git's credential store (`git credential-store --file ...`)
    "credentials",
    "credentials.json",
    "*.key",
    "*.pem",
    "*.p12",  # PKCS#12 key stores (openssl pkcs12, Windows and macOS exports)
    "*.pfx",
    "secret",
    "secrets",
    "secret.*",
    "secrets.*",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "id_*_sk",  # OpenSSH's FIDO/U2F security-key handles (`ssh-keygen -t ed25519-sk`: id_ed25519_sk, id_ecdsa_sk)
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
    ".boto",  # boto and gsutil (AWS and Google Cloud Storage keys)
    ".s3cfg",  # s3cmd (AWS keys)
    ".my.cnf",  # the MySQL and MariaDB clients (a password)
    "*.tfstate",  # Terraform state: every resource's attributes, secrets included, in plain text
    "*.tfstate.backup",  # ... and the copy Terraform keeps of the previous state
    "client_secret*.json",  # a Google OAuth client, as the Cloud Console downloads it
    "credentials.csv",  # an AWS access key, as the IAM console downloads it
    ".htpasswd",  # Apache's password file (htpasswd)
    "*.jks",  # Java KeyStore (keytool)
    "*.keystore",  # Java and Android key stores (keytool; Android's debug.keystore)
    "*.kdbx",  # a KeePass database
    "credentials.db",  # gcloud's credential store (~/.config/gcloud/credentials.db)
)
#: Templates of a `.env` file: documentation of the variables a program reads, not secrets by
#: name. Their content is scanned like every file's, and a template whose credential variables
#: hold values rather than placeholders is refused (`template_value`).
ENV_TEMPLATES = frozenset({".env.example", ".env.sample", ".env.template"})
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
    folded = fold(name)
    if folded in ENV_TEMPLATES:
        return False
    names = _originals(folded)
    if any(_refused(candidate) for candidate in names):
        return True
    inside = SECRET_IN_FOLDERS.get(fold(folder)) if folder else None
    return inside is not None and any(candidate in inside for candidate in names)


def is_env_template(name: str) -> bool:
    """A `.env` template (`.env.example`, `.env.sample`, `.env.template`): shipped when its values are placeholders."""
    return fold(name) in ENV_TEMPLATES


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
    #: The column it starts at (1-based, in characters), with `line`.
    column: int | None = None
    #: How many findings of its code it stands for: itself, and those after it the scan only counted.
    count: int = 1


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
_SPACES = {codec: " ".encode(codec) for _, codec in _MARKERS}
# A line break written inside a string or markup: `\n`, `\r\n`, `\r` escaped once or more (JSON in JSON,
# a notebook cell), `\u000a`, an XML character reference, PowerShell's `` `n `` and `` `r`n ``, an HTML tag
# (`<br>`, one `<div>` a line: no tag is key material), and the joint between the items of a list
# written on one line (`"...", "..."`: a JSON array of the key's lines).
_ESCAPED_BREAK = re.compile(
    r"""\\+(?:r(?:\\+n)?|n|u000[aAdD])|&#(?:1[03]|[xX]0*[aAdD]);|`r`n|`[nr]|</?[A-Za-z][^<>]{0,200}>"""
    r"""|["'`][ \t]*,[ \t]*[bBrRuUfF@]{0,2}["'`]"""
)
_ESCAPED_SLASH = re.compile(r"\\+/")
# Where two string literals meet: `" "`, `" + "`, `' . '`, with or without a prefix (`b"`, `r'`, `@"`).
_JOINT = re.compile(r"""["'`][ \t]*[+.]?[ \t]*[bBrRuUfF@]{0,2}["'`]""")
# What a container puts before a line of a key: a listing's line number (`12. `, `  12 | `, `12:`, `cat -n`'s
# `    12<tab>`), indentation, comment and quote markers (`#`, `//`, `;`, `>`, `*`, `--`, `%`, `!`), a
# string's opening quote, a concatenation's `+` or `,`. (No line of key material holds a space, so digits
# followed by one are a number, not material.)
_PREFIX = re.compile(r"""(?:[ \t]*[0-9]{1,7}[.):]?(?=[ \t|]))?(?:[\s#;>*%!,+(\[{|\\/-]|[bBrRuUfF@]{0,2}["'`])*""")
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
    literal, a notebook cell, a listing's line numbers or HTML put around it is stripped, so
    the material is the base64 that is left (URL-encoded text, `-----BEGIN%20...`, is decoded
    first). Armor headers (`Proc-Type:`, PGP's `Version:`) and blank lines may come first; the
    material must fill its lines (all but the last at least `_FULL_LINE` characters, or long
    words on one line) and add up to `MATERIAL` characters past the structure every key of its
    kind shares (an OpenSSH key's first line is the same for every key of its type: see
    `_structure`). A header in inline code (`before` is the character before it: a backtick,
    and one follows it) is a mention in prose, whatever comes next.
    """
    text = _url_decoded(text)
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
        if sum(map(len, material)) >= MATERIAL + _structure(material) or len(words[-1]) < _FULL_LINE:
            break
    found = "".join(material)
    return len(found) - _structure(material) >= MATERIAL and len(set(found)) >= 20


#: How the material of an OpenSSH private key starts: base64 of `openssh-key-v1` and its NUL.
_OPENSSH = "b3BlbnNzaC1rZXktdjE"


def _structure(material: list[str]) -> int:
    """How many of the first base64 characters of `material` are structure that every key of its kind
    shares rather than key material: for an OpenSSH key, its magic, cipher, KDF and its options, the
    key count, and the public key's length and type (`ssh-ed25519`): 83 characters for every
    unencrypted Ed25519 key, more than its first line. 0 for any other kind (PEM's DER structure is a
    few characters: `MIIE...`)."""
    if not material or not material[0].startswith(_OPENSSH):
        return 0
    found = "".join(material)
    try:
        decoded = binascii.a2b_base64(found[: len(found) // 4 * 4])
    except binascii.Error:
        return 0
    at = len(b"openssh-key-v1\0")
    for _ in range(3):  # the cipher's name, the KDF's name, the KDF's options
        at += 4 + int.from_bytes(decoded[at : at + 4], "big")
    at += 4 + 4  # how many keys; the public key's length
    at += 4 + int.from_bytes(decoded[at : at + 4], "big")  # the public key's type (`ssh-ed25519`)
    return min(len(found), -(-at * 4 // 3))


def _unwrap(line: str) -> str:
    """`line` without what its container put around it: string joints, prefixes, closing quotes."""
    line = _JOINT.sub("", line)
    line = line[_PREFIX.match(line).end() :]  # type: ignore[union-attr]
    return line[: _SUFFIX.search(line, max(0, len(line) - 32)).start()]  # type: ignore[union-attr]


def _long_base64(word: str) -> bool:
    return len(word) >= _FULL_LINE and _BASE64_WORD.fullmatch(word) is not None


def _url_decoded(text: str) -> str:
    """`text`, which starts at a `-----BEGIN`, URL-decoded when it is URL-encoded (a space after `BEGIN`
    written `%20`, or `+` as a form writes it; line ends `%0A`, `/` and `+` of the material `%2F`, `%2B`)."""
    if text.startswith("%20", 10):
        return urllib.parse.unquote(text)
    if text.startswith("+", 10):
        return urllib.parse.unquote_plus(text)
    return text


def _key_at(data: bytes, start: int, codec: str) -> bool:
    """`key_follows` for the header at `start`, encoded in `codec`. What it reads ends at the next
    `-----` after the header (no key material holds one): a file of headers costs a pass, not a
    window per header. A header URL-encoded (`-----BEGIN%20...`, `-----BEGIN+...`) is decoded first."""
    width = 1 if codec == "latin-1" else int(codec[4:6]) // 8
    after = data[start + 10 * width : start + 11 * width]
    if after == _SPACES[codec]:
        header = _HEADER.match(data[start : start + _HEADER_LIMIT * width].decode(codec, errors="ignore"))
        end = -1 if header is None else start + header.end() * width
    elif after in (b"%", b"+"):  # (URL-encoded text is ASCII)
        close = data.find(b"-----", start + 10, start + _HEADER_LIMIT * 3)
        text = data[start : close + 5].decode("latin-1") if close != -1 else ""
        end = close + 5 if close != -1 and _HEADER.fullmatch(_url_decoded(text)) else -1
    else:
        return False
    if end == -1:
        return False
    window = start + _WINDOW * width
    stop = data.find(_DASHES[codec], end, window)
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
#: The shortest run a credential makes but one: a Stripe key, `sk_live_` and 24 characters. (A GitLab token
#: of the first format, `glpat-` and 20, is shorter: `_gitlab` looks for its prefix instead.)
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
_END = rb"(?![A-Za-z0-9])"
#: Each provider's format at full length, with its source: its name, the prefixes a token starts with,
#: and its pattern (each ends where no letter or digit follows). A webhook's run starts at
#: `com/services/` (`.` ends a run), so its pattern is matched from `hooks.slack.`, 12 bytes before. A
#: body a hostile run could stretch is matched possessively (`{27,300}+`): read once, never backtracked.
_PATTERNS = (
    # GitHub: docs.github.com, "About authentication to GitHub" (the prefixes); 36 characters of base62 after
    # them, `github_pat_` then 22 and 59: github.blog, "Behind GitHub's new authentication token formats".
    ("github", (b"ghp_", b"gho_", b"ghu_", b"ghs_", b"ghr_"), rb"gh[pousr]_[A-Za-z0-9]{36}"),
    ("github_pat", (b"github_pat_",), rb"github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}"),
    # GitLab: docs.gitlab.com, "GitLab token overview", Token prefixes (`glpat-`): 20 characters; the routable
    # format, a base64 payload (27 to 300), `.`, 2 characters of its length and 7 of a CRC: GitLab's own
    # rules (gitlab-org/security-products/analyzers/secrets, gitleaks.toml); tokens seen with a `.` after
    # the 2 as well (`.01.`) are taken too.
    ("gitlab", (b"glpat-",), rb"glpat-(?:[A-Za-z0-9_-]{27,300}+\.[0-9a-z]{2}\.?[0-9a-z]{7}|[A-Za-z0-9_-]{20})"),
    # Slack: docs.slack.dev, "Token types" (`xoxb-`, `xoxp-`, `xoxa-`, `xoxo-`, `xoxs-`, `xoxr-`; `xoxc-`, a
    # browser session's, has the same shape: inferred), and "Using token rotation": refresh tokens `xoxe-`,
    # rotated access tokens `xoxe.xoxb-`/`xoxe.xoxp-` (found from their `xoxb-`/`xoxp-`: `.` ends a run).
    # Their `N-` then 140 characters or more is inferred from issued tokens (146, 163 to 166): Slack does
    # not document it.
    (
        "slack",
        tuple(b"xox" + bytes([c]) + b"-" for c in b"abcposre"),
        rb"xox(?:[abcposr]-(?:[0-9]{6,14}-){1,3}[A-Za-z0-9]{24,64}|[bpe]-[0-9]-[A-Za-z0-9-]{140,}+)",
    ),
    ("slack_app", (b"xapp-",), rb"xapp-[0-9]-[A-Z0-9]{8,14}-[0-9]{8,14}-[a-f0-9]{64}"),
    (
        "slack_webhook",
        (b"com/services/T",),
        rb"hooks\.slack\.com/services/T[A-Z0-9]{8,12}/B[A-Z0-9]{8,12}/[A-Za-z0-9]{24}",
    ),
    # Stripe: docs.stripe.com/keys (`sk_live_`, `rk_live_`). No upper bound: Stripe told GitLab its live keys
    # run to 128 characters and may grow (gitlab-org/gitlab#458019); 24 is the oldest keys' length.
    ("stripe", (b"sk_live_", b"rk_live_"), rb"[rs]k_live_[A-Za-z0-9]{24,}+"),
    ("anthropic", (b"sk-ant-",), rb"sk-ant-[a-z]{2,8}[0-9]{2}-[A-Za-z0-9_-]{80,}+"),
    # Every OpenAI key holds `T3BlbkFJ` (base64 of "OpenAI"): looked for before the pattern is tried.
    ("openai", (b"sk-",), rb"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,}"),
    # Google API keys: `AIza` and 35 letters, digits, `-` or `_`, 39 in all (cloud.google.com/docs/authentication/
    # api-keys shows one; learn.microsoft.com/purview/sit-defn-google-api-key gives the shape).
    ("google", (b"AIza",), rb"AIza[A-Za-z0-9_-]{35}"),
    # Hugging Face: huggingface.co/docs/hub/security-tokens (`hf_`); 34 letters after it is inferred from issued
    # tokens (the docs give no length), digits allowed in case they come.
    ("huggingface", (b"hf_",), rb"hf_[A-Za-z0-9]{34}"),
    # PyPI: `pypi-`, then a macaroon in unpadded URL-safe base64 whose first bytes name its location, so every
    # pypi.org token starts `pypi-AgEIcHlwaS5vcmc` and every test.pypi.org one `pypi-AgENdGVzdC5weXBpLm9yZw`
    # (pypi.org/help/#apitoken; pypi/warehouse, warehouse/macaroons/services.py). 50 characters or more after
    # them is inferred: an identifier and a 32-byte signature make more.
    (
        "pypi",
        (b"pypi-AgEIcHlwaS5vcmc", b"pypi-AgENdGVzdC5weXBpLm9yZw"),
        rb"pypi-Ag(?:EIcHlwaS5vcmc|ENdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,}+",
    ),
    # npm: `npm_` and GitHub's format, 36 characters of base62 ending in a CRC-32 (github.blog, "Announcing
    # npm's new access token format").
    ("npm", (b"npm_",), rb"npm_[A-Za-z0-9]{36}"),
)
_FORMATS = tuple((kind, prefixes, re.compile(pattern + _END)) for kind, prefixes, pattern in _PATTERNS)
#: How a run holding a token starts: every format's prefixes.
_TOKEN_STARTS = tuple(prefix for _, prefixes, _ in _FORMATS for prefix in prefixes)
#: A token also starts inside a run, right after `-`, `_`, `+` or `/`: in a URL (`https://<token>@host`, a
#: git `insteadOf` rule), after a name it is joined to (`TOKEN_<token>`). Such a start is found with the
#: whole token, in one search (an OpenAI key by its start only: `_openai_in` reads it from its
#: `T3BlbkFJ`; a webhook starts at its host).
_PUNCTUATION = frozenset(b"-_+/")
_OPENAI = next(pattern for kind, _, pattern in _FORMATS if kind == "openai")
_INNER = re.compile(
    rb"[-_+/](?=[Aghnprsx])(?=(?:"
    + b"|".join(pattern for kind, _, pattern in _PATTERNS if kind not in ("openai", "slack_webhook"))
    + rb")"
    + _END
    + rb"|sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16})"
)
#: The longest run a token is looked for inside of (after punctuation): a URL, a path, names joined by `_`
#: are shorter; a longer run is a blob (base64 or hex data on one line), where a `/` or `+` is data, not a
#: place a credential starts, and which is looked at by how it starts only.
_INNER_RUN = 2048
#: What a token run can hold past its run's end: the routable GitLab format's `.`, 2, `.` and 7 characters.
_PAST_RUN = 11
#: How a token's prefix starts in base64, when the token is a base64 value of its own (a Kubernetes Secret's
#: `data:`, a JSON or YAML value): the characters its prefix alone decides, standard and URL-safe.
_BASE64_TOKEN_STARTS = tuple(
    sorted(
        {
            encode(prefix)[: len(prefix) * 4 // 3]
            for prefix in (*_TOKEN_STARTS, b"AKIA", b"ASIA", b"https://hooks.slack.com/services/T")
            if prefix != b"com/services/T"
            for encode in (base64.b64encode, base64.urlsafe_b64encode)
        }
    )
)
#: The first two bytes of `_BASE64_TOKEN_STARTS` map to `F` and `S` (no byte is both), every other run
#: character to `a`: a run that can be a base64 token starts with `FS` after a space.
_BASE64_FIRST = bytes(
    (
        b"F"
        if bytes([c]) in {start[:1] for start in _BASE64_TOKEN_STARTS}
        else b"S"
        if bytes([c]) in {start[1:2] for start in _BASE64_TOKEN_STARTS}
        else b"a"
        if chr(c) in _RUN_CHARS
        else b" "
    )[0]
    for c in range(256)
)
#: A base64 value near another (the other half of an AWS key pair in the same Secret).
_BASE64_VALUE = re.compile(rb"[A-Za-z0-9+/_-]{16,}")
_URLSAFE = bytes.maketrans(b"-_", b"+/")
#: How a run worth a closer look starts: a token's prefix, or a base64 value's that holds one (and the
#: first bytes of these, a cheaper test that rules most runs out).
_CANDIDATE_STARTS = _TOKEN_STARTS + _BASE64_TOKEN_STARTS
_CANDIDATE_FIRSTS = frozenset(start[0] for start in _CANDIDATE_STARTS)
_WEBHOOK_HOST = b"hooks.slack."
#: What every token prefix holds besides letters and digits (`_`, `-`, `/`): text without any holds no token
#: but a Google key (`AIza`, looked for on its own) or a base64 one (`_BASE64_FIRST`).
_PREFIX_MARKS = frozenset(bytes([c]) for prefix in _TOKEN_STARTS for c in prefix if not chr(c).isalnum())
#: A run of exactly 40 characters (an AWS secret key's length) in `_RUN_TABLE`'s translation.
_FORTY = b" " + b"a" * 40 + b" "
#: Bytes of a run a token can take: the longest formats (an OpenAI project key, a PyPI token) are 170 to 250.
_TOKEN_SPAN = 512
TOKENS = {
    "aws": "an AWS access key pair",
    "github": "a GitHub token",
    "github_pat": "a GitHub fine-grained token",
    "gitlab": "a GitLab access token",
    "slack": "a Slack token",
    "slack_app": "a Slack app token",
    "slack_webhook": "a Slack webhook URL",
    "stripe": "a Stripe live key",
    "openai": "an OpenAI API key",
    "anthropic": "an Anthropic API key",
    "google": "a Google API key",
    "huggingface": "a Hugging Face token",
    "pypi": "a PyPI upload token",
    "npm": "an npm access token",
}
#: How a token found inside a base64 value is named.
IN_BASE64 = ", base64-encoded"
# An AWS access key id, and the secret that goes with it: 40 characters of base64's alphabet
# with both cases and a digit or symbol (a 40-digit hex commit hash has no capital).
_AWS_ID = re.compile(rb"(?<![A-Za-z0-9])A(?:KI|SI)A[A-Z0-9]{16}(?![A-Za-z0-9])")
_AWS_SECRET = re.compile(rb"(?=[^a-z]*[a-z])(?=[^A-Z]*[A-Z])(?=[^0-9/+]*[0-9/+])[A-Za-z0-9/+]{40}")
_AWS_SECRET_RUN = re.compile(rb"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/])")
#: Words a placeholder or a documented example spells (`AKIAIOSFODNN7EXAMPLE`, `sk-ant-xxxx...`).
_PLACEHOLDER_WORDS = (b"example", b"sample", b"dummy", b"placeholder", b"your", b"xxxx", b"fake", b"redacted")
#: What a person types in a placeholder, taken out of a token before its random part is counted: the
#: placeholder words and the words around them (`YOUR_KEY_HERE`), and a character four times or more.
_FILLER = re.compile(
    rb"(?i:" + b"|".join(_PLACEHOLDER_WORDS) + rb"|key|token|secret|here|api|goes|insert|replace)|(.)\1{3,}"
)
#: A documented example ends in a long placeholder word (AWS's `AKIAIOSFODNN7EXAMPLE`, `...EXAMPLEKEY`): one
#: of five letters or more ends a random body about once in six million.
_EXAMPLE_END = re.compile(
    rb"(?i:" + b"|".join(w for w in _PLACEHOLDER_WORDS if len(w) > 4) + rb")[_-]?(?i:key|token|secret|here)?\Z"
)
#: Five characters in sequence (`abcde`, `12345`): what a person types, not what a generator draws.
_SEQUENCES = frozenset(
    alphabet[i : i + 5]
    for alphabet in (b"abcdefghijklmnopqrstuvwxyz", b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"0123456789")
    for i in range(len(alphabet) - 4)
)
_BODY = re.compile(rb"[A-Za-z0-9]+")
#: Random characters a credential has at least, once placeholder words, repeats and sequences are taken out
#: (two thirds of its body, for a short one: an AWS key id has 16).
_RANDOM = 16
_KNOWN_PREFIXES = tuple(sorted((*_TOKEN_STARTS, b"AKIA", b"ASIA"), key=len, reverse=True))


def placeholder(token: bytes) -> bool:
    """Whether `token` is a stand-in rather than a credential, judged by the whole token: it ends in a
    placeholder word (a documented example: `...EXAMPLE`), its random part uses too few characters
    (`aBaB...`), or taking out the words, repeats and sequences a person types (`YOUR_KEY_HERE`, `xxxx`,
    `abcde`, `12345`) leaves less random material than a credential has. A word that happens to be
    inside a long random body (`...fake...`) leaves the rest random: that token is a credential."""
    prefix = next((len(p) for p in _KNOWN_PREFIXES if token.startswith(p)), 0)
    rest = token[prefix:]
    body = max(_BODY.findall(rest), key=len, default=b"")
    if len(set(body)) < min(10, len(body) // 2) or _EXAMPLE_END.search(token):
        return True
    random = b"".join(_BODY.findall(rest))
    left = bytearray(b"".join(_BODY.findall(_FILLER.sub(b" ", rest))))
    taken: set[int] = set()
    for i in range(len(left) - 4):
        if bytes(left[i : i + 5]) in _SEQUENCES:
            taken.update(range(i, i + 5))
    return len(left) - len(taken) < min(_RANDOM, len(random) * 2 // 3)


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


def _escaped_aws_pairs(data: bytes) -> Iterator[int]:
    """Where each AWS key pair's secret starts whose `/` are written `\\/` (PHP's `json_encode`, some JSON
    encoders): the run of secret characters around each `\\/` within `_LOOKBEHIND` of a key id, unescaped,
    read as a secret would be."""
    ids = sorted(at for prefix in (b"AKIA", b"ASIA") for at in _finds(data, prefix) if _aws_id_at(data, at))
    at = data.find(b"\\/")
    while at != -1 and ids:
        near = bisect.bisect_left(ids, at - _LOOKBEHIND)
        if near == len(ids):
            break
        if ids[near] > at + _LOOKBEHIND:  # on to the next key id's reach
            at = data.find(b"\\/", ids[near] - _LOOKBEHIND)
            continue
        before = _ESCAPED_BEFORE.search(data, max(0, at - _ESCAPED_SPAN), at)
        start = before.end() if before is not None else 0 if at <= _ESCAPED_SPAN else -1  # -1: too long a run
        end = _ESCAPED_RUN.match(data, at).end()  # type: ignore[union-attr]
        value = data[start:end].replace(b"\\/", b"/") if start != -1 else b""
        if len(value) == 40 and _AWS_SECRET.fullmatch(value) and not placeholder(value):
            yield start
        at = data.find(b"\\/", end)


#: A run of the characters of an AWS secret key written with its `/` escaped, and how far back it can start.
_ESCAPED_RUN = re.compile(rb"[A-Za-z0-9+/\\]*")
_ESCAPED_BEFORE = re.compile(rb"[^A-Za-z0-9+/\\](?=[A-Za-z0-9+/\\]*\Z)")
_ESCAPED_SPAN = 80


def _finds(data: bytes, needle: bytes) -> list[int]:
    found, at = [], data.find(needle)
    while at != -1:
        found.append(at)
        at = data.find(needle, at + 1)
    return found


def _aws_id_at(data: bytes, at: int) -> bool:
    """Whether an AWS access key id (not a documented example) starts at `at`."""
    match = _AWS_ID.match(data, at)
    return match is not None and not placeholder(match.group())


def _no_candidate(data: bytes, runs: bytes, start: int) -> bool:
    """Whether no run from `start` on can be a credential, found at the speed of `bytes.find`: a token holds
    one of `_PREFIX_MARKS` (or is a Google key, `AIza`), a base64-encoded key holds `LS0t`, a base64-encoded
    token is a run starting with one of `_BASE64_TOKEN_STARTS`, an AWS key pair is a run of exactly 40. Text
    of long runs of letters and digits alone (a hex dump, a file of padding) then costs a pass or two, not
    a look at every run."""
    if any(data.find(mark, start) != -1 for mark in _PREFIX_MARKS) or data.find(_BASE64_DASHES, start) != -1:
        return False
    if data.find(b"AIza", start) != -1 or (b" " + runs[start:] + b" ").find(_FORTY) != -1:
        return False
    firsts = b" " + data[start:].translate(_BASE64_FIRST)
    at = firsts.find(b" FS")
    while at != -1:
        if data.startswith(_BASE64_TOKEN_STARTS, start + at):
            return False
        at = firsts.find(b" FS", at + 3)
    return True


def _token_at(data: bytes, at: int) -> str:
    """The kind of token starting at `at` ("" if none, or a placeholder); not an OpenAI key (`_openai_in`)."""
    for kind, prefixes, pattern in _BY_START.get(data[at : at + 3], ()):
        if not data.startswith(prefixes, at):
            continue
        begin = at
        if kind == "slack_webhook":
            begin -= len(_WEBHOOK_HOST)
            if begin < 0 or not data.startswith(_WEBHOOK_HOST, begin):
                continue
        match = pattern.match(data, begin, at + _TOKEN_SPAN)
        if match and not placeholder(match.group()):
            return kind
    return ""


#: The formats (but OpenAI's) by the first three bytes of their prefixes.
_BY_START: dict[bytes, list[tuple[str, tuple[bytes, ...], re.Pattern[bytes]]]] = {}
for _format in _FORMATS:
    for _start in sorted({prefix[:3] for prefix in _format[1]}) if _format[0] != "openai" else ():
        _BY_START.setdefault(_start, []).append(_format)


def _gitlab(data: bytes, start: int, stop: int) -> Iterator[int]:
    """Where each GitLab token starting between `start` and `stop` is: the first format's, 26 characters, is
    shorter than the runs `_RUN` finds, so its prefix is looked for."""
    at = data.find(b"glpat-", start, stop)
    while at != -1:
        if (at == 0 or not data[at - 1 : at].isalnum()) and _token_at(data, at) == "gitlab":
            yield at
        at = data.find(b"glpat-", at + 6, stop)


def _openai_in(data: bytes, start: int, end: int) -> int:
    """Where an OpenAI key starts in the run at `start`-`end` (-1 if none), at its start or after punctuation.
    Each key holds `T3BlbkFJ`: the search starts there and looks back for the `sk-` it follows, so a run of
    `sk-` decoys costs a pass, not a match at each."""
    at = data.find(b"T3BlbkFJ", start, end)
    while at != -1:
        sk = data.rfind(b"sk-", max(start, at - _TOKEN_SPAN), at - 16)
        if sk != -1 and (sk == start or data[sk - 1] in _PUNCTUATION):
            match = _OPENAI.match(data, sk, sk + _TOKEN_SPAN)
            if match and not placeholder(match.group()):
                return sk
        at = data.find(b"T3BlbkFJ", at + 8, end)
    return -1


def _token_in_run(data: bytes, start: int, end: int) -> tuple[str, int]:
    """The kind of the first token in the run at `start`-`end` (at its start, or after a `-`, `_`, `+` or `/`)
    and where it starts (a webhook: at its host); ("", -1) if none."""
    at, kind = start, _token_at(data, start)
    for match in _INNER.finditer(data, start, end + _PAST_RUN) if not kind and end - start <= _INNER_RUN else ():
        at = match.start() + 1
        kind = _token_at(data, at)
        if kind:
            break
    if not kind:
        at = _openai_in(data, start, end)
        kind = "openai" if at != -1 else ""
    return kind, at - len(_WEBHOOK_HOST) if kind == "slack_webhook" else at


def _decoded(value: bytes) -> bytes:
    """`value`, standard or URL-safe base64 with or without its padding, decoded (b"" if it is not base64)."""
    value = value.translate(_URLSAFE)
    try:
        return binascii.a2b_base64(value + b"=" * (-len(value) % 4))
    except binascii.Error:
        return b""


def _base64_token(data: bytes, start: int, end: int) -> str:
    """What token the base64 value at `start`-`end` holds, decoded ("" if none): the values near it are
    decoded too, so an AWS key pair, each half a value of its own (a Kubernetes Secret), is whole."""
    values = _BASE64_VALUE.finditer(data, max(0, start - _LOOKBEHIND), min(len(data), end + _LOOKBEHIND))
    text = b"\n".join(_decoded(value.group()) for value in values) + b"\n"
    runs = text.translate(_RUN_TABLE)
    at = runs.find(_RUN)
    while at != -1:
        stop = runs.find(b" ", at)
        what, _ = _credential_at(text, at, stop, nested=True)
        if what:
            return what + IN_BASE64
        at = runs.find(_RUN, stop)
    return TOKENS["gitlab"] + IN_BASE64 if next(_gitlab(text, 0, len(text)), -1) != -1 else ""


def _base64_aws_secret(data: bytes, start: int, end: int) -> bool:
    """Whether the run at `start`-`end` can be an AWS secret key in base64 (54 characters: 40 bytes) with an
    access key id in base64 near it (`QUtJQ`, `QVNJQ`: `AKIA`, `ASIA`)."""
    if end - start != _BASE64_AWS_SECRET:
        return False
    near = max(0, start - _LOOKBEHIND), end + _LOOKBEHIND
    return data.find(b"QUtJQ", *near) != -1 or data.find(b"QVNJQ", *near) != -1


#: An AWS secret key's length in base64, without its padding.
_BASE64_AWS_SECRET = -(-40 * 4 // 3)


def _credential_at(data: bytes, start: int, end: int, *, nested: bool = False) -> tuple[str, int]:
    """What credential the run at `start`-`end` is, and where it starts ("", -1 if none): a base64-encoded
    key, a token (at its start or after punctuation in it), a base64 value holding a token, an AWS key pair.
    `nested`: `data` was decoded from base64 already, and is not decoded again."""
    if not nested:
        head = min(end, start + _LOOKBEHIND)
        for marker, back in _BASE64_MARKERS:
            at = data.find(marker, start, head)
            if at != -1 and _base64_key_at(data, max(0, at - back)):
                return BASE64_KEY, start
    kind, at = _token_in_run(data, start, end)
    if kind:
        return TOKENS[kind], at
    if not nested and (data.startswith(_BASE64_TOKEN_STARTS, start) or _base64_aws_secret(data, start, end)):
        what = _base64_token(data, start, end)
        if what:
            return what, start
    if end - start == 40 and _aws_pair(data, start, end):
        return TOKENS["aws"], start
    return "", -1


def _base64_keys(data: bytes, start: int, stop: int) -> Iterator[int]:
    """Where each base64-encoded private key's header is between `start` and `stop` (a block of base64 lines)."""
    for marker, back in _BASE64_MARKERS:
        at = data.find(marker, start, stop)
        while at != -1:
            if _base64_key_at(data, max(0, at - back)):
                yield at
            at = data.find(marker, at + len(marker), stop)


class ContentScan:
    """Every secret a file's bytes hold, read in chunks: a private key or a token split between two is found.

    Private keys in any common text encoding (UTF-8, Latin-1, UTF-16 and UTF-32 in either byte
    order, with or without a BOM), in base64 too; tokens in ASCII-compatible text. Memory is
    bounded by the chunks: each is held until the next comes (or `finish`), then searched once,
    and only `_CARRY` bytes after it (and `_LOOKBEHIND` before) are kept for the next. The last
    chunk is searched by `finish`, with what came before it: a file of one chunk (nearly every
    file) is searched once, not its last `_CARRY` bytes twice (BENCHMARKS.md, "Serving over MCP
    at 10,000 skills", after f484bfe).

    Each search reports what starts between where the one before stopped and where it settles (what
    starts later, the next search sees whole), so every finding is met once, whatever the chunks.
    `findings` keeps the first few of each kind (`PER_FILE`, and the next, where the count of the
    rest is said) at their line and column, and counts the others: a file of a million tokens costs
    their count, not a million records (issue 44).
    """

    def __init__(self) -> None:
        self._kept: list[Finding] = []  # the first `_KEPT` of each code, in the file's order
        self._kept_of: dict[str, int] = {}  # how many of `_kept` each code has
        self._counts: dict[str, int] = {}  # every finding, by code
        self._pending = b""
        self._from = 0  # where in `_pending` the bytes not yet searched start
        self._lines: int | None = 0  # line breaks in the bytes before `_pending`; None past a binary chunk
        self._column = 0  # characters of the line `_pending` starts in that come before it
        self._held = b""  # the latest chunk: searched when the next comes, or by finish() if none does
        self._base = 0  # where in the file `_pending` starts
        self._paired: set[int] = set()  # where in the file each AWS key id a pair was reported with starts

    @property
    def found(self) -> Finding | None:
        """The first secret in the file (None: none so far)."""
        return self._kept[0] if self._kept else None

    @property
    def findings(self) -> tuple[Finding, ...]:
        """The secrets found, in the file's order: the first `PER_FILE` of each code, then one more of a code
        that has more, whose `count` says how many it stands for (itself and those after it)."""
        seen: dict[str, int] = {}
        out = []
        for found in self._kept:
            seen[found.code] = seen.get(found.code, 0) + 1
            more = self._counts[found.code] - PER_FILE if seen[found.code] == _KEPT else 1
            out.append(found if more == 1 else dataclasses.replace(found, count=more))
        return tuple(out)

    def feed(self, chunk: bytes) -> None:
        held, self._held = self._held, chunk
        if not held:
            return
        data = self._pending + held if self._pending else held
        if len(data) - self._from <= _CARRY:
            self._pending = data
        else:
            self._search(data, final=False)

    def finish(self) -> Finding | None:
        """The first secret of the file (every one: `findings`), once its last chunk is searched."""
        self._search(self._pending + self._held if self._pending else self._held, final=True)
        self._pending = self._held = b""
        return self.found

    def _search(self, data: bytes, *, final: bool) -> None:
        """Look at every header and run starting before `settled` (all of them once `final`)."""
        settled = len(data) if final else len(data) - _CARRY
        text = b"\0" not in data
        first: dict[str, list[tuple[int, str]]] = {}  # code → the first few met here (a heap: the last on top)
        # Only the ASCII-compatible marker can be in bytes without a NUL (most text files): the
        # others would each be searched for in vain.
        keys: set[int] = set()
        for marker, codec in _MARKERS[:1] if text else _MARKERS:
            start = data.find(marker, self._from, settled + len(marker) - 1)
            while start != -1:
                # (UTF-16 read as its other byte order is the same text a byte on; UTF-32 three)
                if not (keys and keys.intersection(range(start - 3, start + 4))) and _key_at(data, start, codec):
                    keys.add(start)
                    self._met(first, start, KEY)
                start = data.find(marker, start + 1, settled + len(marker) - 1)
        # Tokens (and base64) are looked for in text only.
        for met, at, what in self._credentials(data, settled) if text else ():
            if self._from <= met < settled and (what != TOKENS["aws"] or self._pairs(data, at)):
                self._met(first, at, what)
        if first:
            self._keep(data, sorted(found for near in first.values() for found in near), lines=text)
        if not final:
            cut = max(0, settled - _LOOKBEHIND)
            # Lines are counted in text only: a binary file has none to point to.
            if text and self._lines is not None:
                self._lines += data.count(b"\n", 0, cut)
                end = data.rfind(b"\n", 0, cut)
                self._column = _characters(data[end + 1 : cut]) + (self._column if end == -1 else 0)
            else:
                self._lines = None
            self._pending, self._from = data[cut:], settled - cut
            self._base += cut

    def _pairs(self, data: bytes, secret: int) -> bool:
        """Whether the AWS secret key at `secret` makes a pair of its own: its nearest access key id has made none
        yet (another 40-character run near an id already paired, a line of base64 data, is no second pair)."""
        ids = [m.start() for m in _AWS_ID.finditer(data, max(0, secret - _LOOKBEHIND), secret + 40 + _LOOKBEHIND)]
        if not ids:
            return True  # (an escaped pair's id is read unescaped: it stands for itself)
        nearest = self._base + min(ids, key=lambda at: abs(at - secret))
        if nearest in self._paired:
            return False
        self._paired.add(nearest)
        return True

    def _met(self, first: dict[str, list[tuple[int, str]]], at: int, what: str) -> None:
        """Count a secret at `at`, and hold it among the first few of its code met in this search."""
        code = "FLU303" if what in (KEY, BASE64_KEY) else "FLU315"
        self._counts[code] = self._counts.get(code, 0) + 1
        room = _KEPT - self._kept_of.get(code, 0)
        if room > 0:
            near = first.setdefault(code, [])
            heapq.heappush(near, (-at, what))
            if len(near) > room:
                heapq.heappop(near)

    def _keep(self, data: bytes, first: list[tuple[int, str]], *, lines: bool) -> None:
        """Keep the first few secrets of each code met in a search (`first`: the heaps' entries, sorted from the
        last), at their line and column."""
        counted, line = 0, self._lines or 0  # (line breaks counted up to `counted`)
        for back, what in reversed(first):
            at = -back
            code = "FLU303" if what in (KEY, BASE64_KEY) else "FLU315"
            self._kept_of[code] = self._kept_of.get(code, 0) + 1
            if not lines or self._lines is None:
                self._kept.append(Finding(code, what))
                continue
            line += data.count(b"\n", counted, at)
            counted = at
            start = data.rfind(b"\n", 0, at)
            column = _characters(data[start + 1 : at]) + (self._column if start == -1 else 0) + 1
            self._kept.append(Finding(code, what, line + 1, column))

    def _credentials(self, data: bytes, settled: int) -> Iterator[tuple[int, int, str]]:
        """Each credential in a run of token characters starting before `settled`: where the search met it
        (the start of its run), where it starts, and what it is.

        Most long runs are paths, identifiers, hashes or base64 data: how a run starts and how
        long it is rule them out before any pattern is tried. Where runs come one a line (base64
        wrapped at 76, a list of digests), looking at each costs more than the reading: past
        `_DENSE` runs, a block of lines made of base64's alphabet is looked at once, for what it can
        hold (base64-encoded keys; an AWS pair sends it back to run by run).
        Text whose runs can hold none at all (`_no_candidate`) is not looked at run by run. An AWS
        key pair whose secret has its `/` escaped (`\\/`) is looked for in the text unescaped.
        """
        runs = data.translate(_RUN_TABLE)
        if _no_candidate(data, runs, self._from):
            return
        escaped = data.find(b"\\", self._from) != -1 and data.find(b"\\/", self._from) != -1  # (`\\` is rare: memchr)
        if escaped and (data.find(b"AKIA") != -1 or data.find(b"ASIA") != -1):
            for at in _escaped_aws_pairs(data):
                yield at, at, TOKENS["aws"]
        blocks = b""
        limit = settled + len(_RUN) - 1
        seen = 0
        start = runs.find(_RUN, self._from, limit)
        if start == self._from and start and runs[start - 1] == _RUN[0]:  # the rest of a run the search before met
            rest = runs.find(b" ", start)
            start = -1 if rest == -1 else runs.find(_RUN, rest, limit)
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
                    and data.find(b"AIza", start, block) == -1  # (a Google key can be letters and digits alone)
                ):
                    for at in _base64_keys(data, start, block):
                        run = runs.rfind(b" ", 0, at) + 1  # (where a search run by run meets it)
                        yield run, run, BASE64_KEY
                    # On from the start of the run the block ends in (`ghp` of `ghp_...`: `_` ends a block).
                    start = runs.find(_RUN, runs.rfind(b" ", end, block) + 1, limit)
                    continue
            if (
                (data[start] in _CANDIDATE_FIRSTS and data.startswith(_CANDIDATE_STARTS, start))
                or end - start in (40, _BASE64_AWS_SECRET)
                or data.find(_BASE64_DASHES, start, min(end, start + _LOOKBEHIND)) != -1
                or (end - start <= _INNER_RUN and _INNER.search(data, start, end + _PAST_RUN) is not None)
            ):
                what, at = _credential_at(data, start, end)
                if what and what != TOKENS["gitlab"]:  # (every GitLab token is met by its prefix, below)
                    yield start, at, what
            start = runs.find(_RUN, end, limit)
        for at in _gitlab(data, self._from, settled):
            yield at, at, TOKENS["gitlab"]


#: How many findings of each code a scan keeps: the ones reported, and the next, where the count of the rest is said.
_KEPT = PER_FILE + 1
#: UTF-8's continuation bytes: a line's characters are its bytes less these (a column counts characters).
_NOT_CONTINUATION = bytes(c for c in range(256) if not 0x80 <= c < 0xC0)


def _characters(data: bytes) -> int:
    """How many characters the UTF-8 bytes `data` hold (cut anywhere: what starts a character is counted)."""
    return len(data) - len(data.translate(None, _NOT_CONTINUATION))


def scan_content(data: bytes) -> Finding | None:
    """The first private key or credential token in `data` (see `ContentScan`), or None."""
    scan = ContentScan()
    scan.feed(data)
    return scan.finish()


def scan_findings(data: bytes) -> tuple[Finding, ...]:
    """Every private key and credential token in `data`, as `ContentScan.findings` keeps them."""
    scan = ContentScan()
    scan.feed(data)
    scan.finish()
    return scan.findings


# --- .env templates ----------------------------------------------------------------------

#: A variable a template's reader fills with a credential: its name says so.
_CREDENTIAL_NAME = re.compile(
    r"(?i)key|token|secret|passw(?:or)?d|pwd|credential|auth|private|salt|cookie|signing|session"
)
#: `NAME=value`, `export NAME=value`, `NAME: value`.
_ASSIGNMENT = re.compile(r"^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*[=:][ \t]*(.*?)[ \t]*$")
#: What only a placeholder holds: brackets and braces, `$` (a variable), `*`, an ellipsis, whitespace.
_MARKED = re.compile(r"[<>{}\[\]$*…\s]|\.\.\.")


def template_value(data: bytes) -> tuple[str, int] | None:
    """The first variable of a `.env` template whose value is a credential rather than a placeholder, and its
    line (None if none). Only variables named for a credential (`..._KEY`, `..._TOKEN`, `..._SECRET`, `..._PASSWORD`, ...)
    are judged: a value of 16 characters or more, letters and digits, none of a placeholder's marks
    (`<...>`, `${...}`, `...`, `***`) and not a stand-in by `placeholder` is a value someone pasted there."""
    for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
        match = _ASSIGNMENT.match(line)
        if match is None or not _CREDENTIAL_NAME.search(match.group(1)):
            continue
        value = match.group(2)
        if value[:1] in ("'", '"') and value.find(value[0], 1) != -1:
            value = value[1 : value.find(value[0], 1)]
        else:
            value = value.split(" #", 1)[0].strip()
        if _real_value(value):
            return match.group(1), number
    return None


def _real_value(value: str) -> bool:
    if len(value) < 16 or _MARKED.search(value):
        return False
    letters, digits = any(c.isalpha() for c in value), any(c.isdigit() for c in value)
    return letters and digits and value.isascii() and not placeholder(value.encode())


# --- the verdicts (their words: `messages.CODES`) -----------------------------------------
# `in_project`: the skill belongs to a project, whose `[tool.flue] allow` can let a harmless
# file through. Outside any project (a folder of skills, a workspace, `define_skill`) there
# is no such list, so the hint says what to do instead.


def secret_file(shown: str, name: str, *, in_project: bool) -> Diagnostic:
    return diagnostic("FLU302 file" if in_project else "FLU302 file, no project", shown, name=name)


def secret_folder(shown: str, name: str, *, in_project: bool) -> Diagnostic:
    return diagnostic("FLU302 folder" if in_project else "FLU302 folder, no project", shown, name=name)


#: The words of a finding, by its code: in a project, and in none.
_FOUND = {"FLU303": ("FLU303", "FLU303 no project"), "FLU315": ("FLU315", "FLU315 no project")}


def found_secrets(shown: str, findings: tuple[Finding, ...], *, in_project: bool) -> list[Diagnostic]:
    """FLU303 for each private key, FLU315 for each credential token, at the line and column it starts at;
    past the first few of a code, how many more (`diagnostics.bounded`)."""
    return bounded(
        deferred(
            _FOUND[found.code][0 if in_project else 1],
            shown,
            found.line,
            found.column,
            problems=found.count,
            what=found.what,
        )
        for found in findings
    )


def template_refused(shown: str, name: str, variable: str, line: int, *, in_project: bool) -> Diagnostic:
    """FLU302: a `.env` template whose credential variable (at `line`) holds a value, not a placeholder."""
    key = "FLU302 template" if in_project else "FLU302 template, no project"
    return diagnostic(key, shown, line, name=name, variable=variable)


def allowed_secret(shown: str, found: Finding | None = None) -> Diagnostic:
    """FLU306: a file packed although its name or content looks like a secret, because `allow` lists it."""
    if found is None:
        return diagnostic("FLU306 name", shown)
    return diagnostic("FLU306 content", shown, found.line, found.column, what=found.what)
