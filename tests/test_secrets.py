"""What a secret is (flue_runtime.format.secrets): names, backups, look-alike spellings, PEM keys in any encoding."""

from __future__ import annotations

import pytest

from flue_runtime.format.secrets import KeyScan, holds_private_key, is_secret_dir, is_secret_file

REFUSED_NAMES = [
    # Flue's list
    ".env",
    ".env.local",
    ".dev.vars",
    ".dev.vars.prod",
    ".netrc",
    "_netrc",
    ".npmrc",
    ".pypirc",
    "credentials.json",
    "tls.key",
    "server.pem",
    "cert.p12",
    "cert.pfx",
    "secret",
    "secrets",
    "secret.json",
    "secrets.yaml",
    "secrets.txt",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    # issue 12: new names
    ".envrc",
    ".git-credentials",
    ".pgpass",
    "credentials",
    # backups of refused names
    ".netrc.bak",
    ".env~",
    ".env.orig",
    ".pgpass.old",
    "id_rsa.bak",
    "credentials.json.save",
    "#.env#",
    ".#.netrc",
    ".git-credentials.swp",
    # equal up to case, trailing dots and spaces, NFKC
    ".ENV",
    "Secrets.YAML",
    "ID_RSA",
    ".env ",
    ".env.",
    ".netrc. . ",
    "\uff0e\uff45\uff4e\uff56",  # full-width ".env"
    ".\uff45\uff4e\uff56",
    "\uff43redentials",
]

HARMLESS_NAMES = [
    "secrets.md",
    "SECRETS.MD",
    "secret.rst",
    "secrets.html",
    "README.md",
    "credentials.md",
    "id_rsa.pub",
    "env",
    "my.env",
    "keys.md",
    "config",
    "environment.md",
    "pem-notes.txt",
]


@pytest.mark.parametrize("name", REFUSED_NAMES)
def test_refused_names(name: str) -> None:
    assert is_secret_file(name)


@pytest.mark.parametrize("name", HARMLESS_NAMES)
def test_harmless_names(name: str) -> None:
    assert not is_secret_file(name)


@pytest.mark.parametrize("name", [".aws", ".ssh", ".gnupg", ".SSH", ".Aws", ".ssh ", ".gnupg.", ".ssh.bak", ".aws~"])
def test_refused_folders(name: str) -> None:
    assert is_secret_dir(name)


@pytest.mark.parametrize("name", ["aws", "ssh", "docs", ".github"])
def test_harmless_folders(name: str) -> None:
    assert not is_secret_dir(name)


RSA = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEAx7Ju0k8Jq3vQ2fL1hT8W3z5nYp0aRk9mD7cVs2eXbF6gH1iJ\n"
    "kLmN0pQrStUvWxYz0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKL\n"
    "-----END RSA PRIVATE KEY-----\n"
)
KEYS = {
    "rsa": RSA,
    "short material": "-----BEGIN EC PRIVATE KEY-----\nMHcC\n",
    "openssh": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n",
    "pkcs8 in json": '{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----\\n"}',
    "encrypted, with armor headers": (
        "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0123456789ABCDEF\n\n"
        "MIIEowIBAAKCAQEAx7Ju0k8Jq3vQ2fL1hT8W\n"
    ),
    "pgp, with a version line": "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\nlQOYBGZ8b2QBCADQx7Ju\n=Ab1c\n",
    "crlf": RSA.replace("\n", "\r\n"),
    "one line": "KEY=-----BEGIN RSA PRIVATE KEY-----MIIEowIBAAKCAQEAx7Ju0k8Jq3vQ2fL1hT8W3z5nYp0aRk9-----END RSA PRIVATE KEY-----",
    "inside prose": "Our test key:\n\n```\n" + RSA + "```\n",
}
PROSE = {
    "checklist": "# Security checklist\n\n- [ ] No file contains `-----BEGIN RSA PRIVATE KEY-----`\n",
    "header alone on a line": "Look for this line:\n\n-----BEGIN RSA PRIVATE KEY-----\n\nIt starts a key; never commit it.\n",
    "placeholder": "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----\n",
    "truncated example": "-----BEGIN RSA PRIVATE KEY-----\nMIIE...\n-----END RSA PRIVATE KEY-----\n",
    "angle brackets": "-----BEGIN PRIVATE KEY-----\n<your key here>\n-----END PRIVATE KEY-----\n",
    "empty block": "-----BEGIN OPENSSH PRIVATE KEY-----\n-----END OPENSSH PRIVATE KEY-----\n",
    "a table": "| line | meaning |\n|---|---|\n| -----BEGIN EC PRIVATE KEY----- | an EC key starts |\n",
    "a public key": "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAx7Ju0k8Jq3vQ2fL1hT8W\n",
}
ENCODINGS = ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be", "latin-1"]


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("label", list(KEYS))
def test_a_key_is_found_in_any_common_encoding(label: str, encoding: str) -> None:
    assert holds_private_key(KEYS[label].encode(encoding))


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("label", list(PROSE))
def test_a_header_quoted_in_prose_is_not_a_key(label: str, encoding: str) -> None:
    assert not holds_private_key(PROSE[label].encode(encoding))


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16-le", "utf-16-be", "utf-32-be"])
def test_a_key_split_between_any_two_chunks_is_found(encoding: str) -> None:
    data = ("x" * 3000 + RSA).encode(encoding)
    start = data.index("-----BEGIN".encode(encoding.replace("-sig", "")))
    for cut in range(start - 5, start + 400, 3):
        scan = KeyScan()
        scan.feed(data[:cut])
        scan.feed(data[cut:])
        assert scan.finish(), cut


def test_a_streamed_scan_of_prose_finds_nothing() -> None:
    scan = KeyScan()
    for _ in range(50):
        scan.feed(PROSE["checklist"].encode() * 20)
    assert not scan.finish()
