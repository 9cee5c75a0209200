"""What a secret is (flue_runtime.format.secrets): names, backups, look-alike spellings; private keys through
any container and in any encoding; credential tokens at full length, and what is neither (issue 20, item 2;
issue 32, points 2 to 5: containers, tokens wherever they start, names, false alarms)."""

from __future__ import annotations

import os
import random
import tracemalloc
from pathlib import Path

import pytest
from support.hostile import planted
from support.paths import ROOT

from flue_runtime.format.diagnostics import PER_FILE
from flue_runtime.format.safe_read import CHUNK
from flue_runtime.format.secrets import (
    ContentScan,
    Finding,
    is_env_template,
    is_secret_dir,
    is_secret_file,
    placeholder,
    scan_content,
    scan_findings,
    template_value,
)

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
    # issue 20: credential files that tools write
    "kubeconfig",
    "kubeconfig.yaml",
    "prod.kubeconfig",
    "putty.ppk",
    "service-account.json",
    "my_service_account_key.json",
    "serviceAccountKey.json",
    "demo-firebase-adminsdk-ab12c-0123456789.json",
    "application_default_credentials.json",
    "accessTokens.json",
    "msal_token_cache.json",
    "prod.env",
    "my.env",
    ".flaskenv",
    "prod.env.bak",
    # issue 32: credential files tools write, each with its tool
    ".boto",  # boto, gsutil
    ".s3cfg",  # s3cmd
    ".pgpass.prod",  # libpq
    ".my.cnf",  # the MySQL client
    "terraform.tfstate",  # Terraform
    "terraform.tfstate.backup",
    "client_secret_1234-abcd.apps.googleusercontent.com.json",  # a Google OAuth client
    "client_secret.json",
    "credentials.csv",  # the AWS console's access key download
    "id_ed25519_sk",  # OpenSSH FIDO handles
    "id_ecdsa_sk",
    ".htpasswd",  # Apache
    "release.jks",  # keytool
    "debug.keystore",  # Android
    "signing.p12",
    "signing.pfx",
    "passwords.kdbx",  # KeePass
    ".git-credentials.work",  # git credential-store --file
    "credentials.db",  # gcloud
    ".env_prod",  # dotenv
    ".ENV_local",
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
    "keys.md",
    "config",
    "environment.md",
    "pem-notes.txt",
    "kubeconfig.md",
    "environment.yml",
    "config.json",
    "service.json",
    "account.json",
    "docker-compose.yml",
    # issue 32: templates of a .env file, judged by their values (`template_value`)
    ".env.example",
    ".env.sample",
    ".env.template",
    ".ENV.Example",
    "tfstate.md",
    "keystore.md",
]


@pytest.mark.parametrize("name", REFUSED_NAMES)
def test_refused_names(name: str) -> None:
    assert is_secret_file(name)


@pytest.mark.parametrize("name", HARMLESS_NAMES)
def test_harmless_names(name: str) -> None:
    assert not is_secret_file(name)


@pytest.mark.parametrize("name", [".env.example", ".env.sample", ".env.template", ".Env.Example "])
def test_env_templates_are_known_by_name(name: str) -> None:
    assert is_env_template(name) and not is_secret_file(name)
    assert is_secret_file(name.strip() + ".bak")  # a template's backup is a backup of `.env.*`


TEMPLATE = (
    "# Copy to .env and fill in\n"
    "OPENAI_API_KEY=\n"
    "ANTHROPIC_API_KEY=your-api-key\n"
    'GITHUB_TOKEN="ghp_..."\n'
    "export STRIPE_SECRET_KEY=<your stripe key>\n"
    "JWT_SECRET=change-me-in-production\n"
    "SESSION_SECRET=${SESSION_SECRET}\n"
    "DB_PASSWORD=postgres\n"
    "PORT=8080\n"
    "DATABASE_URL=postgres://user:password@localhost:5432/app\n"
    "BUILD_ID=20240101a7f3c9e2b1d04e5f\n"  # not a credential's name: any value
)


def test_a_template_of_placeholders_holds_no_value() -> None:
    assert template_value(TEMPLATE.encode()) is None
    assert scan_content(TEMPLATE.encode()) is None


@pytest.mark.parametrize(
    "line",
    [
        "DJANGO_SECRET_KEY=8f3b1c9d2e7a4f60b5c1d8e9a3f7b2c4",
        'export API_KEY="Zk29dLq81mXw3PtR7vNc"  # prod',
        "DB_PASSWORD: 'r7Qz2mVx9KpL4tWn'",
    ],
)
def test_a_template_whose_credential_holds_a_value_names_it(line: str) -> None:
    name = line.removeprefix("export ").split("=")[0].split(":")[0]
    assert template_value((TEMPLATE + line + "\n").encode()) == (name, TEMPLATE.count("\n") + 1)


@pytest.mark.parametrize("name", [".aws", ".ssh", ".gnupg", ".SSH", ".Aws", ".ssh ", ".gnupg.", ".ssh.bak", ".aws~"])
def test_refused_folders(name: str) -> None:
    assert is_secret_dir(name)


@pytest.mark.parametrize("name", ["aws", "ssh", "docs", ".github", ".docker", ".kube"])
def test_harmless_folders(name: str) -> None:
    assert not is_secret_dir(name)


@pytest.mark.parametrize(
    ("folder", "name"),
    [(".docker", "config.json"), (".Docker", "config.json.bak"), (".kube", "config"), (".kube", "CONFIG")],
)
def test_files_a_tool_keeps_in_its_folder_are_refused_there(folder: str, name: str) -> None:
    assert is_secret_file(name, folder)
    assert not is_secret_file(name, "settings")


# --- private keys, through their containers ---------------------------------------------------

CONTAINERS = list(planted.CONTAINERS)
KINDS = ["rsa pkcs1", "rsa pkcs8", "ec sec1", "ed25519 pkcs8", "ed25519 openssh", "rsa pkcs8 encrypted"]
KINDS += ["rsa pkcs1 encrypted", "pgp block"]


@pytest.fixture(scope="module")
def keys() -> dict[str, str]:
    """Real keys, made for this run (none is committed)."""
    made = planted.real_keys()
    assert sorted(made) == sorted(KINDS)
    return made


def encodings(container: str) -> list[str]:
    return ["utf-8", "latin-1"] if container in planted.ASCII_ONLY else list(planted.ENCODINGS)


def key_found(data: bytes) -> Finding:
    found = scan_content(data)
    assert found is not None and found.code == "FLU303", found
    return found


@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_of_key_is_found_in_every_container(keys: dict[str, str], kind: str, container: str) -> None:
    key_found(planted.CONTAINERS[container](keys[kind]).encode())


@pytest.mark.parametrize(
    ("container", "encoding"), [(c, e) for c in CONTAINERS for e in encodings(c)], ids=lambda value: str(value)
)
def test_a_key_is_found_through_its_container_in_any_common_encoding(
    keys: dict[str, str], container: str, encoding: str
) -> None:
    data = planted.CONTAINERS[container](keys["rsa pkcs1"]).encode(encoding)
    key_found(data)


@pytest.mark.parametrize("container", CONTAINERS)
def test_a_key_shaped_without_a_key_is_found_the_same(container: str) -> None:
    """The corpus's keys (`shaped_pem`, random material): the scanner cannot tell them from real ones."""
    key_found(planted.CONTAINERS[container](planted.shaped_pem(random.Random(5))).encode())


@pytest.mark.parametrize("container", CONTAINERS)
def test_the_smallest_key_is_found_even_when_its_line_starts_and_ends_in_symbols(container: str) -> None:
    """A PKCS#8 Ed25519 key is one line of 64 characters; `/` or `+` at either end could be taken for a
    container's (a `//` comment, a `+` concatenation)."""
    rng = random.Random(9)
    body = "/" + "".join(rng.choice(planted.ALNUM) for _ in range(62)) + "+"
    key_found(
        planted.CONTAINERS[container](f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----\n").encode()
    )


@pytest.mark.parametrize("encoding", list(planted.ENCODINGS))
@pytest.mark.parametrize("label", list(planted.PROSE))
def test_a_header_quoted_in_prose_is_not_a_key(label: str, encoding: str) -> None:
    assert scan_content(planted.PROSE[label].encode(encoding)) is None


@pytest.mark.parametrize("label", list(planted.PROSE))
@pytest.mark.parametrize("container", ["markdown quote (> )", "shell comment (# )", "notebook cell", "JSON string"])
def test_prose_in_a_container_is_still_prose(label: str, container: str) -> None:
    assert scan_content(planted.CONTAINERS[container](planted.PROSE[label]).encode()) is None


def test_a_key_needs_material_past_the_structure_every_key_of_its_kind_shares(keys: dict[str, str]) -> None:
    """Issue 32, point 5: an OpenSSH key's first line is the same for every unencrypted Ed25519 key; a page
    showing it (or the first two lines) shows no key. Three lines hold key material."""
    lines = keys["ed25519 openssh"].strip().split("\n")
    assert lines[1].startswith(planted.OPENSSH_ED25519_FIRST_LINE[:64])
    end = lines[-1]
    for shown in (1, 2):
        assert scan_content(("\n".join(lines[: 1 + shown]) + "\n...\n" + end + "\n").encode()) is None, shown
    assert scan_content(("\n".join(lines[:4]) + "\n...\n" + end + "\n").encode()) is not None


# --- credential tokens --------------------------------------------------------------------------

TOKENS = list(planted.TOKENS)
WHAT = {
    "AWS key pair": "an AWS access key pair",
    "GitHub token": "a GitHub token",
    "GitHub fine-grained token": "a GitHub fine-grained token",
    "Slack bot token": "a Slack token",
    "Slack webhook": "a Slack webhook URL",
    "Stripe live key": "a Stripe live key",
    "OpenAI project key": "an OpenAI API key",
    "OpenAI legacy key": "an OpenAI API key",
    "Anthropic key": "an Anthropic API key",
    "GitLab token": "a GitLab access token",
    "GitLab routable token": "a GitLab access token",
    "Slack rotated token": "a Slack token",
    "Slack refresh token": "a Slack token",
    "Slack browser token": "a Slack token",
    "Stripe live key, long": "a Stripe live key",
    "Google API key": "a Google API key",
    "Hugging Face token": "a Hugging Face token",
    "PyPI upload token": "a PyPI upload token",
    "npm token": "an npm access token",
}
#: The token kinds of one line (all but the AWS pair, which is two).
ONE_LINE = [kind for kind in TOKENS if kind != "AWS key pair"]


def token(kind: str, seed: int = 1) -> str:
    """A token of `kind`, random at full length (seeded: the same every run, so no run can differ)."""
    return planted.TOKENS[kind](random.Random(seed))


@pytest.mark.parametrize("context", list(planted.TOKEN_CONTEXTS))
@pytest.mark.parametrize("kind", TOKENS)
def test_every_token_format_is_found_in_every_context(kind: str, context: str) -> None:
    for seed in range(5):
        found = scan_content(planted.TOKEN_CONTEXTS[context](token(kind, seed)).encode())
        assert found is not None and (found.code, found.what) == ("FLU315", WHAT[kind]), (seed, found)


@pytest.mark.parametrize("placed", list(planted.PLACED))
@pytest.mark.parametrize("kind", ONE_LINE)
def test_a_token_is_found_wherever_it_starts(kind: str, placed: str) -> None:
    """Issue 32, point 3: after `/`, `-`, `+` or `_` (a URL's user name, a git `insteadOf` rule, a name joined to
    it), and as a base64 value of its own (a Kubernetes Secret's `data:`)."""
    what = WHAT[kind] + (", base64-encoded" if "base64" in placed else "")
    for seed in range(3):
        found = scan_content(planted.PLACED[placed](token(kind, seed)).encode())
        assert found is not None and (found.code, found.what) == ("FLU315", what), (seed, found)


def test_an_aws_pair_is_found_with_its_slashes_escaped_and_in_a_kubernetes_secret() -> None:
    for seed in range(5):
        escaped = planted.escaped_aws_pair(random.Random(seed))
        assert "\\/" in escaped
        value = escaped.index('"secret": "') + len('"secret": "') + 1  # (the secret's column)
        assert scan_content(escaped.encode()) == Finding("FLU315", "an AWS access key pair", 1, value)
        found = scan_content(planted.kubernetes_aws_pair(random.Random(seed)).encode())
        assert found == Finding("FLU315", "an AWS access key pair, base64-encoded", 5, 26)
    # one half alone is still not a pair, escaped or encoded
    lone = planted.escaped_aws_pair(random.Random(1)).replace("AK" + "IA", "NOTA")
    assert scan_content(lone.encode()) is None
    secret_only = planted.kubernetes_aws_pair(random.Random(1)).split("\n")
    assert scan_content("\n".join(line for line in secret_only if "KEY_ID" not in line).encode()) is None


@pytest.mark.parametrize("word", ["yOuR", "fake", "xxxx", "EXAMPLE", "dummy", "placeholder"])
def test_a_placeholder_word_inside_a_random_body_leaves_it_a_token(word: str) -> None:
    """Issue 32, point 3: placeholders are judged by the whole token; a word that happens to be inside 100
    random characters does not make them a stand-in (it did about once in 3,500 keys)."""
    for seed in range(20):
        key = planted.random_body_with(word, random.Random(seed))
        assert not placeholder(key.encode()), key
        assert scan_content(f"KEY={key}\n".encode()) == Finding("FLU315", "an Anthropic API key", 1, 5)


@pytest.mark.parametrize("kind", ["GitHub token", "Stripe live key", "Anthropic key", "Google API key", "npm token"])
def test_no_random_token_is_waved_through_as_a_placeholder(kind: str) -> None:
    assert not any(placeholder(token(kind, seed).encode()) for seed in range(2_000))


@pytest.mark.parametrize("label", list(planted.PLACEHOLDERS))
def test_placeholders_and_documented_examples_are_not_tokens(label: str) -> None:
    assert scan_content(planted.PLACEHOLDERS[label].encode()) is None
    for context in planted.TOKEN_CONTEXTS.values():
        assert scan_content(context(planted.PLACEHOLDERS[label].strip()).encode()) is None


@pytest.mark.parametrize("kind", ["GitHub token", "GitHub fine-grained token", "Slack webhook", "Anthropic key"])
def test_a_token_cut_short_is_not_a_token(kind: str) -> None:
    full = token(kind)
    cut = full[:-3] if kind != "Anthropic key" else full[:50]
    assert scan_content(f"TOKEN={full}\n".encode()) is not None
    assert scan_content(f"TOKEN={cut}\n".encode()) is None


def test_an_aws_key_pair_needs_both_halves_near_each_other() -> None:
    pair = token("AWS key pair")
    key_id, secret = (line.split(" = ")[1] for line in pair.splitlines()[1:])
    assert scan_content(pair.encode()) == Finding("FLU315", "an AWS access key pair", 3, 25)  # where the secret is
    assert scan_content(f"AWS_ACCESS_KEY_ID={key_id}\n".encode()) is None  # an id names a key; it opens nothing
    assert scan_content(f"AWS_SECRET_ACCESS_KEY={secret}\n".encode()) is None  # 40 characters alone: anything
    far = f"AWS_ACCESS_KEY_ID={key_id}\n" + "filler line of prose\n" * 100 + f"AWS_SECRET_ACCESS_KEY={secret}\n"
    assert scan_content(far.encode()) is None
    assert scan_content(f"{secret}\n{key_id}\n".encode()) is not None  # the secret first: found all the same


def test_an_aws_key_id_makes_one_pair_however_many_40_character_runs_are_near_it() -> None:
    """Every finding of a file is reported (issue 44 item 8): a line of base64 data 40 characters long near a key id
    already paired is no second pair (found by the several-secrets fuzz test), whole or in chunks."""
    pair = token("AWS key pair")
    data = (pair + "\n" + "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0NTY3\n" * 3).encode()
    assert [f.line for f in scan_findings(data)] == [3]
    scan = ContentScan()
    for at in range(0, len(data), 7):
        scan.feed(data[at : at + 7])
    scan.finish()
    assert scan.findings == scan_findings(data)


def test_a_git_commit_hash_is_no_aws_secret() -> None:
    key_id = token("AWS key pair").splitlines()[1].split(" = ")[1]
    text = f"AWS_ACCESS_KEY_ID={key_id}\ncommit = {'0123456789abcdef' * 2}01234567\n"
    assert scan_content(text.encode()) is None


@pytest.mark.parametrize(
    "text",
    [
        "gh" + "p_" + "x" * 36,
        "sk" + "_live_" + "abcdefghijklmnopqrstuvwx",
        "AK" + "IAIOSFODNN7EXAMPLE",
        "sk-" + "ant-api03-" + "YOUR_KEY_HERE" * 8,
        "gh" + "p_" + "aB" * 18,
    ],
)
def test_placeholder_spots_stand_ins(text: str) -> None:
    assert placeholder(text.encode())


@pytest.mark.parametrize("kind", TOKENS)
def test_random_tokens_are_no_placeholders(kind: str) -> None:
    assert not any(placeholder(token(kind, seed).encode()) for seed in range(50))


# --- streaming: chunks, lines, memory ----------------------------------------------------------


def scan_in_two(data: bytes, cut: int) -> Finding | None:
    scan = ContentScan()
    scan.feed(data[:cut])
    scan.feed(data[cut:])
    return scan.finish()


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16-le", "utf-16-be", "utf-32-be"])
def test_a_key_split_between_any_two_chunks_is_found(keys: dict[str, str], encoding: str) -> None:
    data = ("x" * 30_000 + "\n" + keys["rsa pkcs1"]).encode(encoding)
    start = data.index("-----BEGIN".encode(encoding))
    for cut in range(start - 5, start + 400, 3):
        assert scan_in_two(data, cut) is not None, cut


@pytest.mark.parametrize("container", ["notebook cell", "base64", "double-escaped JSON"])
def test_a_key_in_a_container_split_between_two_chunks_is_found(keys: dict[str, str], container: str) -> None:
    data = ("y" * 30_000 + "\n" + planted.CONTAINERS[container](keys["ec sec1"])).encode()
    for cut in range(29_990, 30_400, 7):
        assert scan_in_two(data, cut) is not None, cut


@pytest.mark.parametrize("kind", TOKENS)
def test_a_token_split_between_two_chunks_is_found(kind: str) -> None:
    data = ("z " * 15_000 + "\n" + planted.TOKEN_CONTEXTS["YAML"](token(kind))).encode()
    start = 30_001
    for cut in range(start - 40, start + 260, 5):
        found = scan_in_two(data, cut)
        assert found is not None and found.what == WHAT[kind], cut


@pytest.mark.parametrize("filler", ["hex digests", "base64 wrapped at 76"])
@pytest.mark.parametrize("secret", ["base64 key", "AWS pair as bare lines", "GitHub token", "Slack webhook"])
def test_a_secret_among_many_lines_of_base64_or_hex_is_found(keys: dict[str, str], filler: str, secret: str) -> None:
    """Lines that are each one long run (a list of digests, wrapped base64) are looked at a block at a time:
    what a block can hold is still found, and what follows it."""
    rng = random.Random(4)
    if filler == "hex digests":
        lines = "".join(rng.randbytes(32).hex() + "\n" for _ in range(300))
    else:
        lines = planted.CONTAINERS["base64 wrapped at 76"](planted._random(rng, planted.ALNUM, 20_000))
    pair = token("AWS key pair").splitlines()[1:]
    inside = {
        "base64 key": planted.CONTAINERS["base64 wrapped at 76"](keys["ec sec1"]),
        "AWS pair as bare lines": "\n".join(line.split(" = ")[1] for line in pair) + "\n",
        "GitHub token": token("GitHub token") + "\n",
        "Slack webhook": token("Slack webhook") + "\n",
    }[secret]
    found = scan_content((lines + inside + lines).encode())
    assert found is not None and found.line == lines.count("\n") + 1 + (secret == "AWS pair as bare lines"), found


@pytest.mark.parametrize("secret", ["AWS pair of letters and digits", "GitHub token", "Slack webhook", "base64 key"])
def test_a_secret_in_text_of_letters_and_digits_alone_is_found(keys: dict[str, str], secret: str) -> None:
    """Text whose runs can hold no credential (no `_`, `-` or `/` for a token's prefix, no `LS0t`, no run of
    exactly 40: the hostile corpus's 50 MB of `padding: xxx...`) is passed over in one search, not run by run.
    What can be a credential in it is still looked at: each of these, in any of three chunks."""
    rng = random.Random(7)
    key_id = "AK" + "IA" + planted._random(rng, planted.UPPER, 16)
    plain = planted._random(rng, planted.ALNUM, 38) + "a1"  # a secret of letters and digits alone
    inside = {
        "AWS pair of letters and digits": f"{key_id}\n{plain}\n",
        "GitHub token": token("GitHub token") + "\n",
        "Slack webhook": token("Slack webhook") + "\n",
        "base64 key": planted.CONTAINERS["base64 wrapped at 76"](keys["ec sec1"]),
    }[secret]
    padding = "  padding: " + "x" * 44 + "\n"  # a run of 44 a line
    assert scan_content((padding * 1000).encode()) is None
    for before in (10, 20_000, 40_000):  # the first, second and third chunk
        data = (padding * before + inside + padding * 1000).encode()
        scan = ContentScan()
        for at in range(0, len(data), CHUNK):
            scan.feed(data[at : at + CHUNK])
        found = scan.finish()
        assert found is not None and found.line == before + 1 + (secret.startswith("AWS")), (before, found)


def test_a_finding_names_its_line_past_the_first_chunks(keys: dict[str, str]) -> None:
    filler = "a line of prose that goes on for a while\n" * 60_000  # 2.4 MiB: three chunks
    for secret, line in (
        (keys["rsa pkcs1"], 60_002),
        (planted.TOKEN_CONTEXTS[".env line"](token("GitHub token")), 60_002),
    ):
        data = (filler + "\n" + secret).encode()
        scan = ContentScan()
        for at in range(0, len(data), CHUNK):
            scan.feed(data[at : at + CHUNK])
        found = scan.finish()
        assert found is not None and found.line == line


def test_a_streamed_scan_of_prose_finds_nothing() -> None:
    scan = ContentScan()
    for _ in range(50):
        scan.feed(planted.PROSE["checklist"].encode() * 20)
    assert scan.finish() is None


def test_memory_stays_bounded_by_the_chunk_whatever_the_file_size(keys: dict[str, str]) -> None:
    """Eight chunks of text, as `read_regular` reads them: what the scan keeps is bounded by a chunk (the
    bound below is four, half of the file), not by the file, and a key at the end is still found."""
    chunk = (b"A line of prose, with `code`, -----BEGIN and sk-... in it.\n" * (CHUNK // 50 + 1))[:CHUNK]
    scan = ContentScan()
    tracemalloc.start()
    try:
        for _ in range(8):
            scan.feed(chunk)
        scan.feed(keys["ed25519 openssh"].encode())
        found = scan.finish()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert found is not None and found.code == "FLU303"
    assert peak < 4 * CHUNK, peak


# --- no false alarm on the project's own files --------------------------------------------------


def own_files() -> list[Path]:
    """Every regular file of the project's fixtures and examples (what the issue asks), its docs too."""
    found = []
    for top in ("fixtures", "examples", "docs"):
        for folder, _, names in os.walk(ROOT / top):
            found += [Path(folder, name) for name in names if Path(folder, name).is_file()]
    return found + [ROOT / "README.md", ROOT / "SECURITY.md", ROOT / "BENCHMARKS.md"]


def test_the_projects_own_fixtures_examples_and_docs_hold_no_key_or_token() -> None:
    files = own_files()
    assert len(files) > 50
    assert [
        (str(path.relative_to(ROOT)), scan_content(path.read_bytes()))
        for path in files
        if scan_content(path.read_bytes())
    ] == []


def test_a_file_read_in_one_chunk_is_searched_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Most files fit one read: the scan searches such a file once, when it ends, not its last bytes again
    (the carry kept for a key split between chunks); a file of three chunks is searched once a chunk."""
    searched: list[int] = []
    search = ContentScan._search

    def counted(self: ContentScan, data: bytes, *, final: bool) -> None:
        searched.append(len(data))
        search(self, data, final=final)

    monkeypatch.setattr(ContentScan, "_search", counted)
    page = planted.PROSE["checklist"].encode() * 600  # tens of KB: more than the carry, less than a chunk
    scan = ContentScan()
    scan.feed(page)
    assert scan.finish() is None and searched == [len(page)]
    searched.clear()
    scan = ContentScan()
    for _ in range(3):
        scan.feed(page)
    assert scan.finish() is None and len(searched) == 3


# --- every finding, at its line and column (issue 44, item 8) -------------------------------------


def scan_chunked(data: bytes, size: int = CHUNK) -> ContentScan:
    scan = ContentScan()
    for at in range(0, len(data), size):
        scan.feed(data[at : at + size])
    scan.finish()
    return scan


def positions(scan: ContentScan) -> list[tuple[str, int | None, int | None]]:
    return [(found.what, found.line, found.column) for found in scan.findings]


def test_a_token_pasted_mid_line_is_reported_at_its_line_and_column(tmp_path: Path) -> None:
    """The issue's case: a token at column 15 of line 3 of `notes.md` was reported at 3:None."""
    github, stripe = token("GitHub token"), token("Stripe live key")
    notes = f"# Notes\n\nOur CI token: {github} (rotate it)\n\n- é and {stripe}\n"
    skill = tmp_path / "notes-skill"
    skill.mkdir()
    (skill / "SKILL.md").write_text("---\nname: notes-skill\ndescription: Notes. Use for notes.\n---\nBody.\n")
    (skill / "notes.md").write_text(notes, encoding="utf-8")
    from flue_runtime.format.skill_folder import vet_skill

    found = [d for d in vet_skill(skill, display="notes-skill").diagnostics if d.code == "FLU315"]
    assert [(d.location, d.message) for d in found] == [
        ("notes-skill/notes.md:3:15", "holds a GitHub token; refused"),
        ("notes-skill/notes.md:5:9", "holds a Stripe live key; refused"),  # (columns count characters: `é` is one)
    ]


def test_every_token_and_key_of_a_file_is_found_in_order(keys: dict[str, str]) -> None:
    lines = [
        f"first = '{token('GitHub token')}'",
        "prose",
        keys["ec sec1"].rstrip("\n"),
        f"  then {token('Slack bot token')} and {token('npm token')}",
        f"URL: https://{token('GitHub token', 2)}@github.com/acme/repo",
    ]
    data = "\n".join(lines).encode()
    key_line = 3
    after = key_line + keys["ec sec1"].count("\n")
    expected = [
        ("a GitHub token", 1, 10),
        ("a PEM private key", key_line, 1),
        ("a Slack token", after, 8),
        ("an npm access token", after, 8 + len(token("Slack bot token")) + 5),
        ("a GitHub token", after + 1, 14),
    ]
    assert positions(scan_chunked(data)) == expected
    assert scan_content(data) == Finding("FLU315", "a GitHub token", 1, 10)  # (the first)
    for size in (7, 100, 333, 4096):  # in chunks of any size: the same findings at the same places
        assert positions(scan_chunked(data, size)) == expected, size


def test_positions_hold_across_chunks_a_token_split_between_two_too() -> None:
    """Three chunks; a token on a line that starts in the chunk before (columns counted across it), one split
    between two chunks, and lines counted on."""
    long_line = "x " * (CHUNK // 2 + 100)  # a line of more than a chunk
    first, second, third = token("GitHub token"), token("Hugging Face token"), token("Stripe live key")
    data = (
        f"a\nb {first}\n" + long_line + second + "\n" + "filler line\n" * 40_000 + "c" * 11 + " " + third + "\n"
    ).encode()
    cut = data.index(third.encode()) + 10
    scan = ContentScan()
    for piece in (data[:CHUNK], data[CHUNK:cut], data[cut:]):  # the third token split between two feeds
        scan.feed(piece)
    scan.finish()
    assert positions(scan) == [
        ("a GitHub token", 2, 3),
        ("a Hugging Face token", 3, len(long_line) + 1),
        ("a Stripe live key", 40_004, 13),
    ]


def test_past_the_first_few_of_a_kind_the_rest_are_counted() -> None:
    """A file of 40 tokens: each of the first `PER_FILE` at its place, then one saying how many more; the scan keeps
    no more than that, whatever the file holds."""
    from flue_runtime.format.secrets import found_secrets

    data = "".join(f"line {i:02}: {token('GitHub token', i)}\n" for i in range(40)).encode()
    scan = scan_chunked(data)
    assert len(scan.findings) == PER_FILE + 1 and scan.findings[-1].count == 40 - PER_FILE
    said = found_secrets("s/tokens.txt", scan.findings, in_project=False)
    assert [d.location for d in said] == [f"s/tokens.txt:{i + 1}:10" for i in range(PER_FILE + 1)]
    assert said[-1].message == f"and {40 - PER_FILE} more FLU315 in this file, not shown"


def test_memory_stays_bounded_by_the_chunk_with_a_token_on_every_line() -> None:
    """1 MiB of tokens, a line each, fed in chunks of 16 KiB: what the scan keeps is bounded by a chunk (and what
    it carries to the next), not by the 20,000 tokens it counts, which would take a megabyte or more to keep."""
    line = f"TOKEN={token('GitHub token')}\n".encode()
    chunk = (line * (16 * 1024 // len(line) + 1))[: 16 * 1024]
    scan = ContentScan()
    tracemalloc.start()
    try:
        for _ in range(64):
            scan.feed(chunk)
        scan.finish()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert scan.findings[-1].count > 20_000 - PER_FILE
    assert peak < 256 * 1024, peak


def test_a_key_in_utf_16_has_no_line_to_point_to(keys: dict[str, str]) -> None:
    found = scan_chunked(("x\n" + keys["rsa pkcs1"]).encode("utf-16-le")).findings
    assert [(f.code, f.line, f.column) for f in found] == [("FLU303", None, None)]
