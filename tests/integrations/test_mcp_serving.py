"""Issue 24.2: `flue-skills mcp --http` served from many processes: `--stateless`, `--workers N`, `/healthz`.

Real server processes on 127.0.0.1. Requests go out as raw HTTP on connections of their own (one
`http.client` connection, kept alive, is one worker's: the worker that accepted it answers all of it),
so the test knows which worker answered what; every skill read is checked as a host checks it
(`flue_runtime.mcp.host`). The SDK's own client drives the multi-worker server too, with the
initialize handshake (sessions would not survive a change of worker: the workers are stateless) and
at 2026-07-28. The guard (`Host`, `Origin`, the token) stands in front of every mode and of `/healthz`.
"""

from __future__ import annotations

import pytest
from support.optional import need

need("mcp", "mcp")

import asyncio
import http.client
import json
import os
import re
import socket
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcpclient import mcp_process, port_of, verified_skills
from support.projects import write_skill
from support.site import page

from flue_build.cli import _parser
from flue_runtime.mcp.host import check_entry, verify_file, verify_skill_md
from flue_runtime.mcp.http_guard import TOKEN_ENV
from flue_runtime.mcp.http_serving import listening_socket

pytestmark = pytest.mark.slow  # server processes

TOKEN = "a-test-token-of-some-length-0123456789"
MODERN = "2026-07-28"
NAMES = ("alpha", "beta", "gamma")


@pytest.fixture(scope="module")
def skills(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("skills")
    for name in NAMES:
        write_skill(folder / name, files={"references/guide.md": f"# {name}\n\n" + "A step.\n" * 2500})
    return folder


def env(**extra: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if k != TOKEN_ENV}
    return {**clean, **extra}


@contextmanager
def serving(skills: Path, *args: str, **extra: str) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """`flue-skills mcp SKILLS ARGS --http 127.0.0.1:0` running: the process and the port it announced."""
    with running([str(skills), *args, "--http", "127.0.0.1:0"], **extra) as started:
        yield started


@contextmanager
def running(args: list[str], **extra: str) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """`flue-skills mcp ARGS` (serving HTTP on 127.0.0.1) running: the process and the port it announced."""
    with mcp_process(*args, env=env(**extra)) as (process, url):
        yield process, port_of(url)


def post(connection: http.client.HTTPConnection, message: dict[str, Any], headers: dict[str, str]) -> Any:
    """POST one JSON-RPC message to /mcp: (status, the response's headers, the JSON body or None)."""
    connection.request(
        "POST",
        "/mcp",
        json.dumps(message),
        {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers},
    )
    response = connection.getresponse()
    body = response.read().decode()
    data = [line[5:] for line in body.splitlines() if line.startswith("data:")]  # server-sent events
    body = data[0] if data else body
    return response.status, response.headers, json.loads(body) if body.strip().startswith("{") else None


def call(connection: http.client.HTTPConnection, method: str, params: dict[str, Any], **headers: str) -> Any:
    """A 2026-07-28 request as the SDK's client sends it (no session: `MCP-Protocol-Version`, `_meta`): its result."""
    meta = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
    wire = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method, **headers}
    if method == "resources/read":
        wire["Mcp-Name"] = params["uri"]
    status, _, body = post(
        connection, {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta}}, wire
    )
    assert status == 200 and "result" in body, (status, body)
    return body["result"]


def read(connection: http.client.HTTPConnection, uri: str) -> bytes:
    [content] = call(connection, "resources/read", {"uri": uri})["contents"]
    return str(content["text"]).encode()


def get(connection: http.client.HTTPConnection, path: str, **headers: str) -> tuple[int, Any]:
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    body = response.read()
    return response.status, json.loads(body) if response.status == 200 else body


def children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found |= {int(child) for child in (task / "children").read_text().split()}
    return found


def test_two_workers_share_the_port_and_every_answer_verifies(skills: Path) -> None:
    with serving(skills, "--workers", "2") as (process, port):
        workers = children(process.pid)  # the workers (and multiprocessing's resource tracker)
        answered: Counter[int] = Counter()
        digests = set()
        for attempt in range(100):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            try:
                listing = call(connection, "skills/list", {})
                sock = connection.sock  # every request below on this one connection: one worker's
                assert sorted(e["uri"] for e in listing["skills"]) == [f"skill://{n}/SKILL.md" for n in NAMES]
                entry = listing["skills"][attempt % len(NAMES)]
                check_entry(entry)
                assert call(connection, "skills/get", {"uri": entry["uri"]})["skill"] == entry
                verify_skill_md(entry, read(connection, entry["uri"]))
                for resource in entry["resources"]:
                    verify_file(entry, resource["uri"], read(connection, resource["uri"]))
                status, health = get(connection, "/healthz")
                assert connection.sock is sock
            finally:
                connection.close()
            assert status == 200 and health["status"] == "ok" and health["skills"] == len(NAMES)
            answered[health["pid"]] += 1
            digests.add(health["catalog"])
            if len(answered) == 2 and attempt >= 5:
                break
        assert len(answered) == 2 and set(answered) <= workers, (answered, workers)  # two workers served
        assert len(digests) == 1  # the same catalog from each

        async def sdk_clients() -> None:
            url = f"http://127.0.0.1:{port}/mcp"
            for mode in ("legacy", "auto"):  # the handshake's requests may each reach another worker
                for _ in range(3):
                    async with Client(url, mode=mode) as client:
                        loaded = await verified_skills(client)
                        assert sorted(loaded) == [f"skill://{n}/SKILL.md" for n in NAMES]

        anyio.run(sdk_clients)


@pytest.mark.parametrize(("args", "status"), [([], 400), (["--stateless"], 200)], ids=["stateful", "stateless"])
def test_stateless_answers_a_request_without_a_session(skills: Path, args: list[str], status: int) -> None:
    """Initialize, then list with the handshake's revision but no session id: a stateless server answers
    (any process may get any request); the default, stateful, server asks for the session it issued."""
    legacy = {"MCP-Protocol-Version": "2025-11-25"}
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    with serving(skills, *args) as (_, port):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        try:
            got, headers, _ = post(connection, initialize, {})
            assert got == 200
            assert (headers.get("mcp-session-id") is None) == ("--stateless" in args)
            got, _, body = post(connection, {"jsonrpc": "2.0", "id": 2, "method": "skills/list"}, legacy)
            assert got == status
            if status == 200:
                assert [e["uri"] for e in body["result"]["skills"]] == [f"skill://{n}/SKILL.md" for n in NAMES]
        finally:
            connection.close()


@pytest.mark.parametrize("args", [["--stateless"], ["--workers", "2"]], ids=["stateless", "workers"])
def test_every_mode_and_the_health_endpoint_keep_the_guard(skills: Path, args: list[str]) -> None:
    """Stateless or multi-worker, on /mcp and on /healthz: a foreign `Host` (DNS rebinding) gets 421, a foreign
    `Origin` 403, a request without the token 401; each worker (several fresh connections) guards alike."""
    with serving(skills, *args, **{TOKEN_ENV: TOKEN}) as (_, port):
        own, bearer = f"127.0.0.1:{port}", {"Authorization": f"Bearer {TOKEN}"}
        pids = set()
        for _ in range(8):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            try:
                assert get(connection, "/healthz", Host=f"rebound.example:{port}", **bearer)[0] == 421
                assert (
                    get(connection, "/healthz", Host=own, Origin=f"http://rebound.example:{port}", **bearer)[0] == 403
                )
                assert get(connection, "/healthz", Host=own)[0] == 401
                assert (
                    post(
                        connection,
                        {"jsonrpc": "2.0", "id": 1, "method": "x"},
                        {"Host": f"evil.example:{port}", **bearer},
                    )[0]
                    == 421
                )
                assert post(connection, {"jsonrpc": "2.0", "id": 1, "method": "x"}, {"Host": own})[0] == 401
                status, health = get(connection, "/healthz", Host=own, **bearer)
                assert status == 200
                pids.add(health["pid"])
                assert call(connection, "skills/list", {}, Host=own, **bearer)["skills"]
            finally:
                connection.close()
        assert len(pids) == (2 if "--workers" in args else 1)


def test_the_health_endpoint_names_what_is_served(skills: Path, tmp_path: Path) -> None:
    """`GET /healthz`: the number of skills and one digest of the catalog (the same from any process serving the
    same skills, another for other skills), and the process that answered."""
    other = tmp_path / "other"
    write_skill(other / "alpha")
    with (
        serving(skills) as (first, port),
        serving(skills, "--stateless") as (_, port_again),
        serving(other) as (_, port_other),
    ):
        healths = []
        for at in (port, port_again, port_other):
            connection = http.client.HTTPConnection("127.0.0.1", at, timeout=120)
            try:
                status, health = get(connection, "/healthz")
                assert status == 200
                healths.append(health)
            finally:
                connection.close()
        assert healths[0]["pid"] == first.pid and healths[0]["skills"] == len(NAMES)
        assert healths[0]["catalog"] == healths[1]["catalog"] != healths[2]["catalog"]
        assert re.fullmatch(r"sha256:[0-9a-f]{64}", healths[0]["catalog"]) and healths[2]["skills"] == 1


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--workers", "2"], "--stateless and --workers serve HTTP: add --http HOST:PORT"),
        (["--stateless"], "--stateless and --workers serve HTTP: add --http HOST:PORT"),
        (["--workers", "0", "--http", "127.0.0.1:0"], "'0': at least 1 process"),
        (["--workers", "many", "--http", "127.0.0.1:0"], "'many': give a number of processes"),
    ],
)
def test_serving_options_are_checked_before_anything_starts(skills: Path, args: list[str], words: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "flue_build", "mcp", str(skills), *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=env(),
        timeout=120,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr and words in done.stderr, done.stderr


def test_every_accepted_connection_has_nagle_off() -> None:
    """asyncio turns Nagle's algorithm off (TCP_NODELAY) on an accepted connection only when the listening socket
    names the TCP protocol; `listening_socket` does, a socket made as before did not (protocol 0), and without it
    a response written in two parts waits on the client's delayed acknowledgement."""

    async def nodelay_of(listening: socket.socket) -> int:
        accepted: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        class Seen(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                sock = transport.get_extra_info("socket")
                accepted.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

        server = await asyncio.get_running_loop().create_server(Seen, sock=listening)
        try:
            port = listening.getsockname()[1]
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            value = await asyncio.wait_for(accepted, 30)
            writer.close()
            return value
        finally:
            server.close()

    assert asyncio.run(nodelay_of(listening_socket("127.0.0.1", 0))) != 0
    before = socket.socket(socket.AF_INET, socket.SOCK_STREAM)  # how serve.py made it before
    before.bind(("127.0.0.1", 0))
    assert asyncio.run(nodelay_of(before)) == 0


def test_the_documented_deployment_runs_as_shown_on_loopback(skills: Path) -> None:
    """The serving guide's container: its command's flags are what the CLI takes, and the same command (on 127.0.0.1,
    two workers on this machine's cores, a folder for the package) serves what its health check asks for, which
    fails without the token. The image itself is not built here (no container runtime)."""
    section = page("guides/serving.md")
    [dockerfile] = re.findall(r"```dockerfile\n(.*?)```", section, re.DOTALL)
    [command] = [json.loads(line[4:]) for line in dockerfile.splitlines() if line.startswith("CMD ")]
    [check] = [
        line.split('python -c "', 1)[1][:-1] for line in dockerfile.splitlines() if line.startswith("HEALTHCHECK")
    ]
    parsed = _parser().parse_args(command[1:])
    assert (command[0], parsed.command, parsed.target) == ("flue-skills", "mcp", "acme_support")
    assert (parsed.http, parsed.allow_remote, parsed.workers) == (("0.0.0.0", 8000), True, 4)

    args = [str(skills) if word == "acme_support" else word for word in command[2:]]
    args[args.index("0.0.0.0:8000")] = "127.0.0.1:0"
    args[args.index("4")] = "2"
    with running(args, **{TOKEN_ENV: TOKEN}) as (_, port):
        probe = check.replace("127.0.0.1:8000", f"127.0.0.1:{port}")

        def health(**extra: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [sys.executable, "-c", probe], capture_output=True, text=True, env=env(**extra), timeout=120
            )

        assert health(**{TOKEN_ENV: TOKEN}).returncode == 0
        refused = health(**{TOKEN_ENV: "another-token-of-some-length-000"})
        assert refused.returncode != 0 and "401" in refused.stderr
        assert health().returncode != 0  # no token in the environment
