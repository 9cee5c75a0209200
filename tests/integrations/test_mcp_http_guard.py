"""Issue 20 item 6: `flue-skills mcp --http` answers only requests addressed to it.

A real server process on a loopback address (127.0.0.1 and 127.0.0.2, which the SDK's own default
leaves unprotected), raw HTTP requests: a foreign `Host` (DNS rebinding) or `Origin` is refused on any
loopback bind; a token, when set, is required of every request; a non-loopback bind is refused
unless asked for with `--allow-remote` and a token. No test binds a non-loopback address: the
refusals happen before any socket is bound (192.0.2.1 is a documentation address no host holds).
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from support.optional import need

need("mcp", "mcp")  # the server it starts; mcpclient imports the SDK too

from mcpclient import mcp_process, port_of
from support.projects import write_skill

from flue_runtime.mcp.http_guard import TOKEN_ENV

pytestmark = pytest.mark.slow  # server processes

TOKEN = "a-test-token-of-some-length-0123456789"
INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw-http", "version": "1"},
        },
    }
)


@pytest.fixture(scope="module")
def skills(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("skills")
    write_skill(folder / "greet", "Greet people. Use when they say hello.")
    return folder


def env(**extra: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if k != TOKEN_ENV}
    clean.update(extra)
    return clean


@contextmanager
def server(skills: Path, host: str, **extra: str) -> Iterator[int]:
    """`flue-skills mcp SKILLS --http HOST:0` in a child process; yields the port it announced."""
    with mcp_process(str(skills), "--http", f"{host}:0", env=env(**extra)) as (_, url):
        assert url.startswith(f"http://{host}:"), url
        yield port_of(url)


def post(host: str, port: int, headers: dict[str, str]) -> int:
    """The status of an `initialize` POST to /mcp with `headers` (Host among them when given)."""
    connection = http.client.HTTPConnection(host, port, timeout=30)
    try:
        connection.request(
            "POST",
            "/mcp",
            INITIALIZE,
            {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers},
        )
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2"])
def test_only_the_servers_own_host_and_origin_are_answered(skills: Path, host: str) -> None:
    with server(skills, host) as port:
        own = f"{host}:{port}"
        assert post(host, port, {"Host": own}) == 200
        assert post(host, port, {"Host": own, "Origin": f"http://{own}"}) == 200
        assert post(host, port, {"Host": f"rebound.example:{port}"}) == 421  # DNS rebinding
        assert post(host, port, {"Host": f"localhost:{port + 1}"}) == 421
        assert post(host, port, {"Host": f"{host}:{port + 1}"}) == 421  # another port is another server
        assert post(host, port, {"Host": own, "Origin": f"http://rebound.example:{port}"}) == 403
        assert post(host, port, {"Host": own, "Origin": f"http://{host}:{port + 1}"}) == 403


def test_a_token_is_required_of_every_request_when_set(skills: Path) -> None:
    with server(skills, "127.0.0.2", **{TOKEN_ENV: TOKEN}) as port:
        own = {"Host": f"127.0.0.2:{port}"}
        assert post("127.0.0.2", port, own) == 401
        assert post("127.0.0.2", port, {**own, "Authorization": "Bearer wrong-token-of-some-length"}) == 401
        assert post("127.0.0.2", port, {**own, "Authorization": TOKEN}) == 401
        assert post("127.0.0.2", port, {**own, "Authorization": f"Bearer {TOKEN}"}) == 200
        foreign = {"Host": f"rebound.example:{port}", "Authorization": f"Bearer {TOKEN}"}
        assert post("127.0.0.2", port, foreign) == 421  # a token does not make a foreign Host welcome


def run_mcp(skills: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flue_build", "mcp", str(skills), *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=env(**extra),
        timeout=120,
    )


@pytest.mark.parametrize(
    ("args", "extra", "words"),
    [
        (["--http", "192.0.2.1:0"], {}, "192.0.2.1 is not a loopback address"),
        (["--http", "192.0.2.1:0"], {TOKEN_ENV: TOKEN}, "pass --allow-remote"),
        (["--http", "192.0.2.1:0", "--allow-remote"], {}, f"--allow-remote needs a token: set {TOKEN_ENV}"),
        (["--http", "127.0.0.1:0"], {TOKEN_ENV: "short"}, f"{TOKEN_ENV} holds 5 characters"),
    ],
    ids=["no-flag", "token-without-flag", "flag-without-token", "short-token"],
)
def test_a_bind_that_others_could_reach_is_refused_unless_asked_for_with_a_token(
    skills: Path, args: list[str], extra: dict[str, str], words: str
) -> None:
    done = run_mcp(skills, *args, **extra)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and words in done.stderr, done.stderr
    assert done.stderr.startswith("flue-skills mcp: error: --http ")


def test_an_address_that_cannot_be_bound_is_one_line(skills: Path) -> None:
    done = run_mcp(skills, "--http", "192.0.2.1:0", "--allow-remote", **{TOKEN_ENV: TOKEN})
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "cannot listen there" in done.stderr
