"""The serving benchmark (issue 24): `flue-skills mcp --http` beside a peer and the floor, measured in one run.

    .venv/bin/python benchmarks/serving.py                    # 200, 2,000 and 10,000 skills, full scale (half an hour or more)
    .venv/bin/python benchmarks/serving.py --quick            # 20 skills, a few requests: checks the harness
    .venv/bin/python benchmarks/serving.py --sizes 200 --peer none --report out.md --json out.json

Every server serves the same generated folder (`generate.make_serving_folder`: per skill a SKILL.md of
1.5-6 KB and a 20,000-byte reference page) over streamable HTTP on 127.0.0.1, each in a child process:

- `flue`: `python -m flue_build mcp FOLDER --http 127.0.0.1:PORT` (`--flue-args` adds flags);
- `peer`: agentskills-mcp-server (`[fs]`), as its own command line runs it from a config naming every
  skill folder (`serving_peer.py`: only the port and the log level changed), pinned and installed once in
  a Python 3.12 venv by `tests/support/agentskills_server.py` (the venv the tests use); `--peer none`
  leaves it out;
- `floor`: `serving_floor.py`, an official-SDK server answering with the same entries and bytes from
  memory, prebuilt at start-up: the least a skills server can do on this SDK.

One client for all three: raw JSON-RPC over HTTP (httpx), one connection per simulated client, sending
what the SDK's own client sends at protocol revision 2026-07-28 (no session, `MCP-Protocol-Version`,
`Mcp-Method`, `Mcp-Name`, `_meta`); every response is kept and, after the timing, checked as a host
checks it (`flue_runtime.mcp.host`: each entry, each file's size and digest, SKILL.md's frontmatter field
by field), so a fast wrong answer counts as a failure, not a win. Phases, interleaved server by server
so a noisy machine slows all alike: stdio start-up, from spawning a fresh process to every page of its
first `skills/list` answered on its stdin/stdout (a host launching a local server); cold start over HTTP to the
first `initialize` answered (a fresh process per round, the last round's process kept for what follows);
`skills/list` (every page) first and repeated; `resources/read` of SKILL.md and of the 20 KB page
one after another (p50/p99), in parts, the servers taking turns; a read mix (SKILL.md and the page of seeded random skills) at 1, 8 and 32
concurrent clients (throughput, p50/p99), in parts, the servers taking turns; the same reads again, to see that memory stays flat in the
number of reads; server RSS from /proc (the process and its children). Larger folders get fewer rounds
(`Scale.at`: one start of the peer at 10,000 skills takes minutes), always interleaved.

The run never fails on a missed target; it lists them on stderr (`tests/test_serving_benchmark.py` runs
`--quick`). Figures and their reading: BENCHMARKS.md, "Serving over MCP (issue 24)".
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import json
import os
import platform
import random
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402

sys.path.insert(0, str(ROOT / "tests"))
from support import agentskills_server  # noqa: E402

from flue_runtime.errors import SkillVerificationError  # noqa: E402
from flue_runtime.mcp.host import check_entry, verify_file, verify_skill_md  # noqa: E402

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "flue-serving-bench", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
PEER = "agentskills-mcp-server"
# One TLS context for every client: httpx would load the CA store for each (about 60 ms of CPU here, more than a
# hundred clients a run), though the servers speak plain HTTP on loopback.
TLS = ssl.create_default_context()
LABELS = {"flue": "flue-skills mcp", "peer": PEER, "floor": "floor (SDK, from memory)"}
LEVELS = (1, 8, 32)


class BenchError(RuntimeError):
    pass


@dataclass(frozen=True)
class Scale:
    sizes: tuple[int, ...]
    stdio_rounds: int  # fresh processes per server for the stdio start-up
    start_rounds: int  # fresh processes per server for the cold start over HTTP (the last one kept)
    listings: int  # repeated skills/list
    reads: int  # sequential reads of each kind
    read_rounds: int  # ... in this many parts, the servers taking turns
    per_level: int  # requests per concurrency level
    load_rounds: int  # ... in this many parts, the servers taking turns
    flat_repeats: int  # the load's reads again, for memory

    def at(self, size: int) -> Scale:
        """The rounds for `size` skills: fewer as the folder grows (at 10,000 one start of the peer takes
        minutes on a shared 2-core machine), every part still taken by each server in turn."""
        if size < 2000:
            return self
        if size < 10_000:
            return replace(self, stdio_rounds=2, start_rounds=2)
        return replace(
            self, stdio_rounds=1, start_rounds=1, listings=3, reads=100, read_rounds=2, per_level=600, load_rounds=3
        )


FULL = Scale(
    sizes=(200, 2000, 10_000),
    stdio_rounds=3,
    start_rounds=3,
    listings=20,
    reads=300,
    read_rounds=5,
    per_level=1500,
    load_rounds=5,
    flat_repeats=1,
)
QUICK = Scale(
    sizes=(20,),
    stdio_rounds=1,
    start_rounds=1,
    listings=2,
    reads=10,
    read_rounds=1,
    per_level=40,
    load_rounds=1,
    flat_repeats=1,
)


# --- servers -------------------------------------------------------------------------------------


@dataclass
class Server:
    key: str
    argv: list[str]
    log: Path
    stdio: list[str] | None = None  # the same server speaking stdio (None: it does not)
    port: int = 0
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def child_env(*, write_bytecode: bool = False) -> dict[str, str]:
    """A server's environment: measured starts write no bytecode (`warm_up` has written what they load)."""
    dropped = {"FLUE_SKILLS_MCP_TOKEN", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE"}
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    if not write_bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def initialize_body() -> bytes:
    params = {
        "protocolVersion": LEGACY,
        "capabilities": {},
        "clientInfo": {"name": "flue-serving-bench", "version": "1"},
    }
    return json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}).encode()


def start(server: Server, timeout: float = 600.0, *, write_bytecode: bool = False) -> float:
    """Start `server` on a fresh port: the seconds from spawning it to its first `initialize` answered."""
    server.port = free_port()
    argv = [part.replace("{port}", str(server.port)) for part in server.argv]
    log = server.log.open("ab")
    began = time.perf_counter()
    env = child_env(write_bytecode=write_bytecode)
    server.process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env)
    log.close()
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    body = initialize_body()
    with httpx.Client(timeout=60, verify=TLS) as client:
        while True:
            if server.process.poll() is not None:
                raise BenchError(f"{server.key} stopped before answering:\n{tail(server.log)}")
            try:
                response = client.post(server.url, content=body, headers=headers)
            except httpx.TransportError:
                if time.perf_counter() - began > timeout:
                    raise BenchError(f"{server.key} did not answer in {timeout:.0f} s:\n{tail(server.log)}") from None
                time.sleep(0.005)
                continue
            if response.status_code != 200 or b'"result"' not in response.content:
                raise BenchError(f"{server.key}: initialize got {response.status_code}: {response.text[:300]}")
            return time.perf_counter() - began


def stop(server: Server) -> None:
    if server.process is not None and server.process.poll() is None:
        server.process.terminate()
        try:
            server.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait()
    server.process = None


def stdio_start(server: Server, size: int, timeout: float = 1800.0, *, write_bytecode: bool = False) -> dict[str, Any]:
    """A fresh process of `server` speaking stdio, as a host launches a local server: the seconds from spawning it
    to every page of its first `skills/list` answered, the CPU seconds the process used by then (on a loaded
    machine a steadier figure than the wall time), and a digest of the entries listed."""
    assert server.stdio is not None
    log = server.log.open("ab")
    began = time.perf_counter()
    env = child_env(write_bytecode=write_bytecode)
    process = subprocess.Popen(server.stdio, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, env=env)
    log.close()
    assert process.stdin is not None and process.stdout is not None
    watchdog = threading.Timer(timeout, process.kill)  # a server that never answers ends the run, not the machine
    watchdog.start()
    try:
        entries: list[dict[str, Any]] = []
        cursor: str | None = None
        for number in range(1, 10**6):
            headers, body = request("skills/list", {"cursor": cursor} if cursor else {}, number)
            process.stdin.write(body + b"\n")
            process.stdin.flush()
            while True:
                line = process.stdout.readline()
                if not line:
                    raise BenchError(f"{server.key} (stdio) stopped before answering:\n{tail(server.log)}")
                message = json.loads(line)
                if message.get("id") == number:
                    break
            result = result_of(line)
            entries += result["skills"]
            cursor = result.get("nextCursor")
            if not cursor:
                break
        took = time.perf_counter() - began
    finally:
        watchdog.cancel()
        process.kill()
        _, status, usage = os.wait4(process.pid, 0)  # (the killed process's own CPU time, its children's too)
        process.returncode = os.waitstatus_to_exitcode(status)
    if len(entries) != size:
        raise BenchError(f"{server.key} (stdio) listed {len(entries)} skills, not {size}")
    return {"seconds": took, "cpu": usage.ru_utime + usage.ru_stime, "entries": digest(entries)}


def digest(entries: list[dict[str, Any]]) -> str:
    """One digest of a listing's entries, in order."""
    return hashlib.sha256(json.dumps(entries, sort_keys=True).encode()).hexdigest()


def tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def rss(pid: int) -> tuple[int, int]:
    """VmRSS and VmHWM in bytes of `pid` and every process below it (uvicorn's workers)."""
    total = peak = 0
    for one in [pid, *descendants(pid)]:
        try:
            status = Path(f"/proc/{one}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        total += int(fields.get("VmRSS", "0 kB").split()[0]) * 1024
        peak += int(fields.get("VmHWM", "0 kB").split()[0]) * 1024
    return total, peak


def cpu(pid: int) -> float:
    """CPU seconds (user and system) `pid` and every process below it have used."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for one in [pid, *descendants(pid)]:
        try:
            fields = Path(f"/proc/{one}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


def descendants(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
        for child in children:
            found += [child, *descendants(child)]
    return found


# --- the client ----------------------------------------------------------------------------------


def request(method: str, params: dict[str, Any], number: int) -> tuple[dict[str, str], bytes]:
    """What the SDK's client sends at 2026-07-28 for `method`: its headers and body."""
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": method,
    }
    if method == "resources/read":
        headers["Mcp-Name"] = params["uri"]
    body = {"jsonrpc": "2.0", "id": number, "method": method, "params": {**params, "_meta": META}}
    return headers, json.dumps(body).encode()


def result_of(body: bytes) -> dict[str, Any]:
    """The JSON-RPC result in a response body, sent as JSON or as server-sent events."""
    text = body.decode()
    if not text.lstrip().startswith("{"):
        data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
        text = next(d for d in data if '"id"' in d)
    message = json.loads(text)
    if "result" not in message:
        raise BenchError(f"error response: {text[:300]}")
    result: dict[str, Any] = message["result"]
    return result


class Connection:
    """One simulated client: one HTTP connection, kept alive."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.http = httpx.AsyncClient(timeout=120, limits=httpx.Limits(max_connections=1), verify=TLS)
        self.number = 0

    async def call(self, method: str, params: dict[str, Any]) -> tuple[float, bytes]:
        self.number += 1
        headers, body = request(method, params, self.number)
        began = time.perf_counter()
        response = await self.http.post(self.url, content=body, headers=headers)
        data = await response.aread()
        took = time.perf_counter() - began
        if response.status_code != 200:
            raise BenchError(f"{method} {params}: HTTP {response.status_code}: {data[:300]!r}")
        return took, data

    async def close(self) -> None:
        await self.http.aclose()


async def listing(url: str) -> dict[str, Any]:
    """Every page of `skills/list`: the entries, the seconds, bytes and pages it took."""
    connection = Connection(url)
    try:
        entries: list[dict[str, Any]] = []
        seconds = size = pages = 0.0
        cursor: str | None = None
        while True:
            took, body = await connection.call("skills/list", {"cursor": cursor} if cursor else {})
            seconds, size, pages = seconds + took, size + len(body), pages + 1
            result = result_of(body)
            entries += result["skills"]
            cursor = result.get("nextCursor")
            if not cursor:
                break
        return {"entries": entries, "seconds": seconds, "bytes": int(size), "pages": int(pages)}
    finally:
        await connection.close()


async def sequential(url: str, uris: Sequence[str]) -> tuple[list[float], list[tuple[str, bytes]]]:
    connection = Connection(url)
    try:
        await connection.call("resources/read", {"uri": uris[0]})  # the connection made, untimed
        latencies, kept = [], []
        for uri in uris:
            took, body = await connection.call("resources/read", {"uri": uri})
            latencies.append(took)
            kept.append((uri, body))
        return latencies, kept
    finally:
        await connection.close()


async def load(url: str, uris: Sequence[str], clients: int) -> dict[str, Any]:
    """`uris` read by `clients` concurrent clients taking the next one as each finishes: throughput, latencies."""
    connections = [Connection(url) for _ in range(clients)]
    try:
        await asyncio.gather(*(c.call("resources/read", {"uri": uris[0]}) for c in connections))  # connected
        queue = iter(uris)
        latencies: list[float] = []
        kept: list[tuple[str, bytes]] = []

        async def client(connection: Connection) -> None:
            for uri in queue:
                took, body = await connection.call("resources/read", {"uri": uri})
                latencies.append(took)
                kept.append((uri, body))

        began = time.perf_counter()
        await asyncio.gather(*(client(c) for c in connections))
        wall = time.perf_counter() - began
        return {"wall": wall, "latencies": latencies, "kept": kept, "rps": len(uris) / wall}
    finally:
        await asyncio.gather(*(c.close() for c in connections))


def verify(entries: list[dict[str, Any]], kept: Sequence[tuple[str, bytes]]) -> tuple[int, list[str]]:
    """Every distinct response checked as a host checks what it reads: (files checked, failures)."""
    failures: list[str] = []
    by_file: dict[str, dict[str, Any]] = {}
    for entry in entries:
        try:
            check_entry(entry)
        except SkillVerificationError as exc:
            failures.append(str(exc))
            continue
        for resource in entry["resources"]:
            by_file[resource["uri"]] = entry
    seen: set[tuple[str, str]] = set()
    for uri, body in kept:
        key = (uri, hashlib.sha256(body).hexdigest())
        if key in seen:
            continue
        seen.add(key)
        try:
            [content] = result_of(body)["contents"]
            data = content["text"].encode() if "text" in content else base64.b64decode(content["blob"])
            entry = by_file.get(uri)
            if entry is None:
                raise SkillVerificationError(uri, uri, "not listed by skills/list")
            if uri == entry["uri"]:
                verify_skill_md(entry, data)
            else:
                verify_file(entry, uri, data)
        except (SkillVerificationError, BenchError, KeyError, ValueError) as exc:
            failures.append(f"{uri}: {exc}")
    return len(seen), failures


def summary(latencies: Sequence[float]) -> dict[str, float]:
    ordered = sorted(latencies)
    return {
        "p50": statistics.median(ordered),
        "p99": ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))],
        "n": len(ordered),
    }


# --- one size ------------------------------------------------------------------------------------


def workload(entries: list[dict[str, Any]], count: int, seed: int) -> list[str]:
    """`count` reads of seeded random skills, SKILL.md and the 20 KB page alternately."""
    rng = random.Random(seed)
    skills = sorted(entry["uri"] for entry in entries)
    page = "/" + generate.SERVED_FILE
    return [
        rng.choice(skills) if index % 2 == 0 else rng.choice(skills)[: -len("/SKILL.md")] + page
        for index in range(count)
    ]


#: Skills of the folder each server warms up on (`warm_up`): what it imports does not depend on how many.
WARM_UP_SKILLS = 3


def serving(server: Server, size: int, work: Path) -> Server:
    """`server` with its command lines naming the folder of `size` skills (made when missing)."""
    folder = work / f"skills-{size}"
    if not (folder / generate.skill_name(size - 1)).is_dir() or (folder / generate.skill_name(size)).exists():
        generate.make_serving_folder(folder, skills=size)
    config = str(peer_config(folder, size, work)) if server.key == "peer" else ""

    def filled(argv: list[str]) -> list[str]:
        return [part.replace("{folder}", str(folder)).replace("{config}", config) for part in argv]

    return replace(server, argv=filled(server.argv), stdio=filled(server.stdio) if server.stdio else None, process=None)


def warm_up(servers: list[Server], work: Path) -> None:
    """Each server once over HTTP (a listing and a read) and once over stdio on a few skills, writing bytecode; the
    measured starts then write none (`PYTHONDONTWRITEBYTECODE=1`) and load compiled modules, every server alike.
    Without it, from a fresh copy, flue's starts compiled its own modules each time (its tree has no bytecode)
    while the pip-installed peer's were compiled at install."""
    for server in servers:
        warm = serving(server, WARM_UP_SKILLS, work)
        if warm.argv:  # (a server of `serving_stdio.py` speaks stdio only)
            start(warm, write_bytecode=True)
            try:
                entries = asyncio.run(listing(warm.url))["entries"]
                asyncio.run(sequential(warm.url, [entries[0]["uri"]]))
            finally:
                stop(warm)
        if warm.stdio is not None:
            stdio_start(warm, WARM_UP_SKILLS, write_bytecode=True)


def measure_size(size: int, servers: list[Server], scale: Scale, work: Path) -> dict[str, Any]:
    warm_up(servers, work)
    servers[:] = [serving(server, size, work) for server in servers]
    data: dict[str, Any] = {"skills": size, "servers": {s.key: {} for s in servers}}
    results = data["servers"]

    stdio_digests: dict[str, str] = {}
    for _ in range(scale.stdio_rounds):  # stdio start-ups, a fresh process each, interleaved
        for server in servers:
            if server.stdio is not None:
                got = stdio_start(server, size)
                results[server.key].setdefault("stdio_s", []).append(got["seconds"])
                results[server.key].setdefault("stdio_cpu_s", []).append(got["cpu"])
                stdio_digests[server.key] = got["entries"]
    for round_ in range(scale.start_rounds):  # cold starts over HTTP, a fresh process each, interleaved
        for server in servers:
            results[server.key].setdefault("start_s", []).append(start(server))
            if round_ < scale.start_rounds - 1:
                stop(server)
    for server in servers:  # the last round's processes are the ones measured from here on
        assert server.process is not None
        results[server.key]["rss_started"] = rss(server.process.pid)[0]

    listings: dict[str, dict[str, Any]] = {}
    for server in servers:
        first = asyncio.run(listing(server.url))
        listings[server.key] = first
        results[server.key].update(list_first_s=first["seconds"], list_bytes=first["bytes"], list_pages=first["pages"])
        results[server.key]["skills_listed"] = len(first["entries"])
        if server.key in stdio_digests:  # stdio listed what HTTP lists
            results[server.key]["stdio_same_entries"] = stdio_digests[server.key] == digest(first["entries"])
    for _ in range(scale.listings):
        for server in servers:
            again = asyncio.run(listing(server.url))
            results[server.key].setdefault("list_s", []).append(again["seconds"])
    reference = {entry["uri"]: entry for entry in listings[servers[0].key]["entries"]}
    for server in servers:
        mine = {entry["uri"]: entry for entry in listings[server.key]["entries"]}
        results[server.key]["entries_differ"] = sorted(
            uri for uri in reference.keys() | mine.keys() if reference.get(uri) != mine.get(uri)
        )

    entries = listings[servers[0].key]["entries"]
    kept: dict[str, list[tuple[str, bytes]]] = {s.key: [] for s in servers}
    skill_md = [uri for uri in workload(entries, scale.reads * 2, seed=1)[::2]]
    pages = [uri for uri in workload(entries, scale.reads * 2, seed=2)[1::2]]
    for kind, uris in (("read_skill_md", skill_md), ("read_page", pages)):
        part = -(-len(uris) // scale.read_rounds)
        timed: dict[str, list[float]] = {s.key: [] for s in servers}
        for round_ in range(scale.read_rounds):  # a part of the reads per server in turn, the order rotated
            shift = round_ % len(servers)
            for server in servers[shift:] + servers[:shift]:
                latencies, got = asyncio.run(sequential(server.url, uris[round_ * part : (round_ + 1) * part]))
                timed[server.key] += latencies
                kept[server.key] += got
        for key, latencies in timed.items():
            results[key][kind] = summary(latencies)
    for server in servers:
        assert server.process is not None
        results[server.key]["rss_after_reads"] = rss(server.process.pid)[0]

    mix = workload(entries, scale.per_level, seed=3)
    part = -(-len(mix) // scale.load_rounds)
    for clients in LEVELS:
        pooled: dict[str, dict[str, Any]] = {s.key: {"wall": 0.0, "cpu": 0.0, "latencies": []} for s in servers}
        for round_ in range(scale.load_rounds):  # a part of the reads per server in turn, the order rotated
            shift = round_ % len(servers)
            for server in servers[shift:] + servers[:shift]:
                assert server.process is not None
                used = cpu(server.process.pid)
                got = asyncio.run(load(server.url, mix[round_ * part : (round_ + 1) * part], clients))
                pooled[server.key]["cpu"] += cpu(server.process.pid) - used
                pooled[server.key]["wall"] += got["wall"]
                pooled[server.key]["latencies"] += got["latencies"]
                kept[server.key] += got["kept"]
        for key, got in pooled.items():
            results[key][f"load_{clients}"] = {
                "rps": len(mix) / got["wall"],
                "cpu_per_request_s": got["cpu"] / len(mix),
                **summary(got["latencies"]),
            }
    for server in servers:
        assert server.process is not None
        before = rss(server.process.pid)[0]
        for _ in range(scale.flat_repeats):
            asyncio.run(load(server.url, mix, 8))  # the same reads as above, whose answers are checked
        after, peak = rss(server.process.pid)
        results[server.key].update(
            rss_before_flat=before,
            rss_after_flat=after,
            rss_peak=peak,
            flat_reads=scale.flat_repeats * len(mix),
        )
    for server in servers:
        checked, failures = verify(listings[server.key]["entries"], kept[server.key])
        results[server.key].update(verified=checked, failures=failures[:20], failure_count=len(failures))
    for server in servers:
        stop(server)
    return data


# --- the peer ------------------------------------------------------------------------------------


def peer_python() -> tuple[str, str]:
    """The peer's interpreter (the tests' pinned venv, made on first use) and the peer's version."""
    python = agentskills_server.ensure()
    probe = [str(python), "-c", f"from importlib.metadata import version; print(version({PEER!r}))"]
    return str(python), subprocess.run(probe, capture_output=True, text=True, check=True).stdout.strip()


def peer_config(folder: Path, size: int, work: Path) -> Path:
    """The peer's config serving every skill folder of `folder` (its page size as shipped; its caps raised)."""
    names = sorted(p.name for p in folder.iterdir() if (p / "SKILL.md").is_file())
    config = {
        "name": "peer",
        "skills": [{"id": name, "provider": "fs", "options": {"root": str(folder)}} for name in names],
        "max_skills": max(size, 128),
        "max_total_bytes": 1 << 31,
    }
    path = work / f"peer-{size}.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


# --- the report ----------------------------------------------------------------------------------


def msf(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms" if seconds < 0.1 else f"{seconds * 1e3:.0f} ms"


def mibf(n: float) -> str:
    return f"{n / (1 << 20):.1f} MiB"


@dataclass
class Line:
    figure: str
    values: dict[str, str]
    versus_peer: str = ""
    versus_floor: str = ""
    target: str = ""
    met: bool | None = None


@dataclass
class Table:
    size: int
    lines: list[Line] = field(default_factory=list)


def table(data: dict[str, Any], keys: list[str]) -> Table:
    s = data["servers"]
    out = Table(data["skills"])
    has_peer, has_floor = "peer" in s, "floor" in s

    def add(figure: str, values: dict[str, str], **kw: Any) -> None:
        out.lines.append(Line(figure, values, **kw))

    def per(fn: Any) -> dict[str, str]:
        return {key: fn(s[key]) for key in keys}

    def slower(key: str, value: float, other: str, path: Any) -> str:
        if other not in s:
            return ""
        return f"{value / path(s[other]):.2f}×"

    def latency(figure: str, at: str) -> None:
        """p50 / p99 of the measurement `at`, the target being a p99 within 1.5× the floor's."""
        p99 = s["flue"][at]["p99"]
        floor = s["floor"][at]["p99"] if has_floor else None
        add(
            figure,
            per(lambda r: f"{msf(r[at]['p50'])} / {msf(r[at]['p99'])}"),
            versus_peer=slower("flue", p99, "peer", lambda r: r[at]["p99"]),
            versus_floor=f"{p99 / floor:.2f}× (p99)" if floor else "",
            target="p99 ≤ 1.5× the floor's" if floor else "",
            met=(p99 <= 1.5 * floor) if floor else None,
        )

    if all("stdio_s" in s[key] for key in keys):
        for at, what in (("stdio_s", "wall"), ("stdio_cpu_s", "server CPU")):
            stdio = {key: statistics.median(s[key][at]) for key in keys}
            add(
                f"stdio start-up, spawned to every page of the first `skills/list` answered: {what} "
                "(median of fresh processes)",
                per(lambda r, at=at: msf(statistics.median(r[at]))),
                versus_peer=f"{stdio['flue'] / stdio['peer']:.2f}×" if has_peer else "",
                versus_floor=f"{stdio['flue'] / stdio['floor']:.2f}×" if has_floor else "",
                target="≤ 1.15× the floor's" if has_floor else "",
                met=(stdio["flue"] <= 1.15 * stdio["floor"]) if has_floor else None,
            )
    start = {key: statistics.median(s[key]["start_s"]) for key in keys}
    add(
        "cold start to the first `initialize` answered (median of fresh processes)",
        per(lambda r: msf(statistics.median(r["start_s"]))),
        versus_peer=f"{start['flue'] / start['peer']:.2f}×" if has_peer else "",
        versus_floor=f"{start['flue'] / start['floor']:.2f}×" if has_floor else "",
    )
    add("RSS after start-up", per(lambda r: mibf(r["rss_started"])))
    add("`skills/list`, every page: size; pages", per(lambda r: f"{r['list_bytes'] / 1e3:,.0f} KB; {r['list_pages']}"))
    add(
        "`skills/list`, first (entries built) / repeated, median",
        per(lambda r: f"{msf(r['list_first_s'])} / {msf(statistics.median(r['list_s']))}"),
        versus_peer=slower(
            "flue", statistics.median(s["flue"]["list_s"]), "peer", lambda r: statistics.median(r["list_s"])
        ),
        versus_floor=slower(
            "flue", statistics.median(s["flue"]["list_s"]), "floor", lambda r: statistics.median(r["list_s"])
        ),
    )
    for kind, name in (("read_skill_md", "SKILL.md"), ("read_page", "the 20 KB page")):
        latency(f"`resources/read` of {name}, one client: p50 / p99", kind)
    for clients in LEVELS:
        level = f"load_{clients}"
        rps = s["flue"][level]["rps"]
        add(
            f"{clients} concurrent client{'s' if clients > 1 else ''}: requests/s",
            per(lambda r, at=level: f"{r[at]['rps']:,.0f}"),
            versus_peer=f"{rps / s['peer'][level]['rps']:.2f}× (throughput)" if has_peer else "",
            versus_floor=f"{rps / s['floor'][level]['rps']:.2f}× (throughput)" if has_floor else "",
            target="≥ the peer's" if has_peer else "",
            met=(rps >= s["peer"][level]["rps"]) if has_peer else None,
        )
        used = s["flue"][level]["cpu_per_request_s"]
        one = clients == 1 and has_peer and has_floor  # the targets of issue 33 at one client
        add(
            f"{clients} concurrent client{'s' if clients > 1 else ''}: server CPU per request",
            per(lambda r, at=level: f"{r[at]['cpu_per_request_s'] * 1e3:.2f} ms"),
            versus_peer=slower("flue", used, "peer", lambda r, at=level: r[at]["cpu_per_request_s"]),
            versus_floor=slower("flue", used, "floor", lambda r, at=level: r[at]["cpu_per_request_s"]),
            target="≤ the peer's, ≤ 1.15× the floor's" if one else "",
            met=(
                used <= s["peer"][level]["cpu_per_request_s"] and used <= 1.15 * s["floor"][level]["cpu_per_request_s"]
            )
            if one
            else None,
        )
        latency(f"{clients} concurrent client{'s' if clients > 1 else ''}: p50 / p99", level)
    add("RSS after the reads above", per(lambda r: mibf(r["rss_before_flat"])))
    growth = s["flue"]["rss_after_flat"] - s["flue"]["rss_before_flat"]
    add(
        f"RSS change over {s['flue']['flat_reads']:,} more reads of the same files (peak RSS)",
        per(lambda r: f"{(r['rss_after_flat'] - r['rss_before_flat']) / (1 << 20):+.1f} MiB ({mibf(r['rss_peak'])})"),
        target="flat: ≤ +1 MiB",
        met=growth <= 1 << 20,
    )
    add(
        "responses checked as a host checks them (`flue_runtime.mcp.host`): distinct / failed",
        per(lambda r: f"{r['verified']:,} / {r['failure_count']}"),
        target="0 failed",
        met=s["flue"]["failure_count"] == 0,
    )
    differ = per(lambda r: "same as flue's" if not r["entries_differ"] else f"{len(r['entries_differ'])} differ")
    add("`skills/list` entries (frontmatter, files, digests)", differ)
    if all("stdio_same_entries" in s[key] for key in keys):
        add(
            "`skills/list` over stdio: the same entries as over HTTP",
            per(lambda r: "yes" if r["stdio_same_entries"] else "**no**"),
        )
    return out


def render(tables: list[Table], keys: list[str], context: dict[str, Any]) -> str:
    lines = ["## Results", ""]
    lines += [f"- {name}: {value}" for name, value in context.items()]
    for t in tables:
        lines += ["", f"### {t.size:,} skills", ""]
        header = ["figure", *(LABELS[k] for k in keys)]
        if "peer" in keys:
            header.append("flue ÷ peer")
        if "floor" in keys:
            header.append("flue ÷ floor")
        header += ["target", "met"]
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "---|" * len(header))
        for line in t.lines:
            cells = [line.figure, *(line.values[k] for k in keys)]
            if "peer" in keys:
                cells.append(line.versus_peer)
            if "floor" in keys:
                cells.append(line.versus_floor)
            met = "" if line.met is None else "yes" if line.met else "**no**"
            cells += [line.target, met]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


# --- main ----------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="20 skills, a few requests: checks the harness")
    parser.add_argument("--sizes", help="comma-separated skill counts (default 200,2000,10000; --quick 20)")
    parser.add_argument("--peer", choices=["pip", "none"], default="pip", help=f"serve with {PEER} too (default)")
    parser.add_argument("--flue-args", default="", help="extra flags for `flue-skills mcp`, e.g. '--stateless'")
    parser.add_argument(
        "--also",
        action="append",
        default=[],
        metavar="FLAGS",
        help="serve with `flue-skills mcp FLAGS` too, in a column of its own (repeatable), e.g. '--workers 2'",
    )
    parser.add_argument("--workdir", type=Path, help="keep inputs and server logs here (default: a temporary folder)")
    parser.add_argument("--report", type=Path, help="write the markdown report here too")
    parser.add_argument("--json", type=Path, help="write the raw figures here")
    args = parser.parse_args(argv)
    scale = QUICK if args.quick else FULL
    if args.sizes:
        scale = Scale(**{**scale.__dict__, "sizes": tuple(int(n) for n in args.sizes.split(","))})
    work = args.workdir or Path(tempfile.mkdtemp(prefix="flue-serving-"))
    work.mkdir(parents=True, exist_ok=True)
    (work / "logs").mkdir(exist_ok=True)

    context: dict[str, Any] = {
        "machine": f"{os.cpu_count()} cores, {platform.system()} {platform.release()}",
        "load average at the start": " / ".join(f"{x:.2f}" for x in os.getloadavg()),
        "flue-skills (this tree)": f"Python {platform.python_version()} ({sys.executable})",
    }
    keys = ["flue"]
    peer: tuple[str, str] | None = None
    if args.peer == "pip":
        peer = peer_python()
        keys.append("peer")
        version = subprocess.run(
            [peer[0], "-c", "import platform; print(platform.python_version())"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        context[PEER] = f"{peer[1]}, Python {version}, venv {agentskills_server.folder()}"
    keys.append("floor")
    extras = {f"flue {flags}": flags.split() for flags in args.also}
    keys += list(extras)
    LABELS.update({key: f"flue-skills mcp {flags}" for key, flags in zip(extras, args.also)})
    context["client"] = f"httpx {httpx.__version__}, protocol {MODERN}, in this process"
    context["bytecode"] = (
        f"each server warmed up first (over HTTP and stdio, {WARM_UP_SKILLS} skills) writing the bytecode of what it "
        "imports; measured starts load it and write none"
    )
    context["started"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"inputs and logs: {work}", file=sys.stderr)

    runs = []
    for size in scale.sizes:
        servers = [
            Server(
                "flue",
                [
                    sys.executable,
                    "-m",
                    "flue_build",
                    "mcp",
                    "{folder}",
                    "--http",
                    "127.0.0.1:{port}",
                    *args.flue_args.split(),
                ],
                work / "logs" / f"flue-{size}.log",
                stdio=[sys.executable, "-m", "flue_build", "mcp", "{folder}", *args.flue_args.split()],
            ),
        ]
        if peer is not None:
            servers.append(
                Server(
                    "peer",
                    [peer[0], str(HERE / "serving_peer.py"), "{config}", "{port}"],
                    work / "logs" / f"peer-{size}.log",
                    stdio=[peer[0], str(HERE / "serving_peer.py"), "{config}", "stdio"],
                )
            )
        servers.append(
            Server(
                "floor",
                [sys.executable, str(HERE / "serving_floor.py"), "{folder}", "{port}"],
                work / "logs" / f"floor-{size}.log",
                stdio=[sys.executable, str(HERE / "serving_floor.py"), "{folder}", "stdio"],
            )
        )
        for key, flags in extras.items():
            command = [sys.executable, "-m", "flue_build", "mcp", "{folder}", "--http", "127.0.0.1:{port}", *flags]
            servers.append(Server(key, command, work / "logs" / f"{key.replace(' ', '')}-{size}.log"))
        print(f"serving {size} skills: {', '.join(s.key for s in servers)}", file=sys.stderr)
        try:
            runs.append(measure_size(size, servers, scale if args.quick else scale.at(size), work))
        finally:
            for server in servers:
                stop(server)
    context["load average at the end"] = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    tables = [table(run, keys) for run in runs]
    report = render(tables, keys, context)
    print(report)
    if args.report:
        args.report.write_text(report, encoding="utf-8")
    if args.json:
        args.json.write_text(json.dumps({"context": context, "runs": runs}, indent=1), encoding="utf-8")
    missed = [f"{t.size} skills: {line.figure}" for t in tables for line in t.lines if line.met is False]
    for line in missed:
        print(f"missed: {line}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
