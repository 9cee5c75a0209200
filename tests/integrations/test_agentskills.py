"""agentskills-core both ways, against its real packages: our bundled skills as one of its providers (read by its
registry, its LangChain tools and its MCP server), and its folder and HTTP providers as skill sources giving the
harness, MCP and every adapter the texts the bundled skills give; whatever a provider serves badly is refused
with the provider named, never served, never a hang.

agentskills-core needs Python 3.12: `conftest.py` collects this file only there (CI runs it in its 3.12 venv,
with the `test-agentskills` extra); `test_agentskills_extra.py` runs everywhere.
"""

from __future__ import annotations

import asyncio
import base64
import gc
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import pytest
from agentskills_agentframework import get_tools as agent_framework_tools
from agentskills_core import ResourceNotFoundError as TheirResourceNotFoundError
from agentskills_core import Skill, SkillProvider, SkillRegistry, capture_skill
from agentskills_core import SkillNotFoundError as TheirSkillNotFoundError
from agentskills_fs import LocalFileSystemSkillProvider
from agentskills_http import HTTPStaticFileSkillProvider
from agentskills_langchain import get_tools
from agentskills_mcp_server import create_mcp_server
from intsupport import PACKAGE, Installed
from mcp import Client
from mcpclient import list_skills, verified_skills
from support.imports import imported_from
from support.site import section
from support.sources import PEM_KEY
from support.statichost import closed_port, publish, silent_host, static_host
from surfaces import SURFACES, Seen
from test_same_results import CALLS, FAILING

from flue_runtime import Harness, SkillReference, SkillWarning, agent, define_skill, use_model, use_skill
from flue_runtime.errors import AgentError, MountError, SkillError
from flue_runtime.format.frontmatter import parse
from flue_runtime.format.manifest import BUNDLE_DIR, SKILLS_DIR
from flue_runtime.format.vetting import Limits
from flue_runtime.integrations.agentskills import FlueSkillProvider, provider, skills_from
from flue_runtime.integrations.export import export_skills
from flue_runtime.integrations.skillset import Skillset
from flue_runtime.mcp.entries import entry, file_uri
from flue_runtime.models import ScriptedModel, ToolCall
from flue_runtime.mount.disk import load_skill_dir

pytestmark = pytest.mark.slow  # the fixture project built and installed (`installed`), servers as child processes

KIB = 1024


def bundled(demo: dict[str, SkillReference]) -> list[SkillReference]:
    return [demo["refunds"], demo["triage"]]


def registered(skills: list[SkillReference]) -> SkillRegistry:
    return asyncio.run(registering(skills))


async def registering(skills: list[SkillReference]) -> SkillRegistry:
    """Their registry holding `skills` through `provider` (registered as a whole: their `register_all`)."""
    registry = SkillRegistry()
    await registry.register_all(provider(skills))
    return registry


# --- our skills as their provider ---------------------------------------------------------------


GREETER = define_skill(
    name="greeter",
    description="Greet people warmly. Use when someone says hello.",
    instructions="Greet the person by name.\n",
    files={
        "references/tone.md": "Warm, short.\n",
        "assets/wave.png": b"\x89PNG\r\n\x1a\n\x00\x01",
        "notes/x.md": "x\n",
    },
)


def test_their_skill_handles_read_every_file_of_our_bundled_skills(demo: dict[str, SkillReference]) -> None:
    """Through their `Skill` API (what their integrations call): the frontmatter as flue reads it, the body the
    harness activates, every file byte for byte as the bundle's checked reads give it."""
    refunds = demo["refunds"]
    handle = Skill("refunds", provider(bundled(demo)))

    async def read() -> dict[str, Any]:
        return {
            "metadata": await handle.get_metadata(),
            "body": await handle.get_body(),
            "resources": await handle.list_resources(),
            "asset": await handle.get_asset("stamp.png"),
            "files": await handle.list_files(),
            "read": {f.path: await handle.read_file(f.path) for f in refunds.files},
        }

    seen = asyncio.run(read())
    assert seen["metadata"] == parse(refunds.read_bytes("SKILL.md"), "SKILL.md").data
    assert seen["metadata"]["metadata"] == {"team": "payments", "version": "1.0", "build": "7"}  # strings, as read
    assert seen["body"] == refunds.instructions
    assert refunds.instructions in Skillset(bundled(demo)).call("activate_skill", {"name": "refunds"}).text
    assert seen["resources"] == {"references": [], "scripts": [], "assets": ["stamp.png"]}
    assert seen["asset"] == refunds.read_bytes("assets/stamp.png")
    assert seen["files"] == [f.path for f in refunds.files] and "templates/email (v2).md" in seen["files"]
    assert seen["read"] == {f.path: refunds.read_bytes(f.path) for f in refunds.files}


def test_their_registry_langchain_and_agent_framework_tools_serve_our_skills(demo: dict[str, SkillReference]) -> None:
    skills = [demo["triage"], GREETER]
    registry = registered(skills)
    with pytest.warns(DeprecationWarning, match="agentskills-langchain is deprecated"):
        tools = {tool.name: tool for tool in get_tools(registry)}
    with pytest.warns(DeprecationWarning, match="agentskills-agentframework is deprecated"):
        framework = {tool.name: tool for tool in agent_framework_tools(registry)}

    async def framework_text(name: str, arguments: dict[str, str]) -> str:
        [content] = await framework[name].invoke(arguments=arguments)
        return str(content.text)

    async def read() -> dict[str, Any]:
        return {
            "catalog": await registry.get_skills_catalog(format="markdown"),
            "metadata": await tools["get_skill_metadata"].ainvoke({"skill_id": "triage"}),
            "body": await tools["get_skill_body"].ainvoke({"skill_id": "triage"}),
            "resources": await tools["list_skill_resources"].ainvoke({"skill_id": "greeter"}),
            "reference": await tools["get_skill_reference"].ainvoke({"skill_id": "greeter", "name": "tone.md"}),
            "asset": await tools["get_skill_asset"].ainvoke({"skill_id": "greeter", "name": "wave.png"}),
            "framework body": await framework_text("get_skill_body", {"skill_id": "triage"}),
            "framework reference": await framework_text(
                "get_skill_reference", {"skill_id": "greeter", "name": "tone.md"}
            ),
        }

    seen = asyncio.run(read())
    assert [skill.get_id() for skill in registry.list_skills()] == ["greeter", "triage"]
    for skill in skills:
        assert f"## {skill.name}\n- **Description**: {skill.description}\n" in seen["catalog"]
    assert json.loads(seen["metadata"]) == {"name": "triage", "description": demo["triage"].description}
    assert seen["body"] == demo["triage"].instructions
    assert json.loads(seen["resources"]) == {"references": ["tone.md"], "scripts": [], "assets": ["wave.png"]}
    assert seen["reference"] == seen["framework reference"] == "Warm, short.\n"
    assert seen["framework body"] == seen["body"]
    assert base64.b64decode(json.loads(seen["asset"])["content"]) == GREETER.read_bytes("assets/wave.png")


def test_their_mcp_server_lists_our_skills_as_our_own_server_does(demo: dict[str, SkillReference]) -> None:
    """Their MCP server captures the skills through `list_files`/`read_file`: its entries are exactly ours, and every
    file passes the checks an MCP host makes (size, digest, SKILL.md's frontmatter) with the skill's own bytes."""
    skills = [demo["triage"], GREETER]

    async def session() -> tuple[dict[str, Any], dict[str, dict[str, bytes]]]:
        server = await create_mcp_server(await registering(skills), name="theirs")
        async with Client(server) as client:
            return await list_skills(client), await verified_skills(client)

    listing, files = anyio.run(session)
    assert listing["skills"] == [entry(GREETER), entry(demo["triage"])]
    assert files == {
        file_uri(skill.name): {file_uri(skill.name, f.path): skill.read_bytes(f.path) for f in skill.files}
        for skill in skills
    }


def test_a_bundle_changed_after_install_is_refused_through_their_api(installed: Installed, tmp_path: Path) -> None:
    """The provider reads through the bundle, so their API gets flue's refusal, never the changed bytes."""
    site = tmp_path / "site"
    shutil.copytree(installed.site, site)
    [policy] = (site / PACKAGE / BUNDLE_DIR / SKILLS_DIR).glob("*/policy.md")
    policy.write_bytes(b"Everything is refundable, always.\n")
    with imported_from(site):
        import skills_demo

        handle = Skill("refunds", provider([skills_demo.REFUNDS]))
        with pytest.raises(MountError, match="policy.md: differs from the bundle manifest"):
            asyncio.run(handle.read_file("policy.md"))
        with pytest.raises(MountError, match="policy.md: differs from the bundle manifest"):
            asyncio.run(capture_skill(handle))  # what their MCP server captures: nothing of it
        rates = asyncio.run(handle.read_file("data/rates.csv"))
        assert rates == skills_demo.REFUNDS.read_bytes("data/rates.csv")


def test_the_provider_answers_their_errors_for_what_no_skill_holds() -> None:
    greeter = define_skill(
        name="greeter", description="Greet people.", instructions="Say hi.\n", files={"references/tone.md": "Warm.\n"}
    )
    ours = provider([greeter])

    async def ask(call: Callable[[], Any]) -> Any:
        return await call()

    assert asyncio.run(ask(lambda: ours.get_reference("greeter", "tone.md"))) == b"Warm.\n"
    assert asyncio.run(ask(lambda: ours.discover())) == ["greeter"]
    with pytest.raises(TheirSkillNotFoundError, match="no skill 'refunds' here; the skills: greeter"):
        asyncio.run(ask(lambda: ours.get_body("refunds")))
    for name in ["missing.md", "../SKILL.md", "../../etc/passwd"]:
        with pytest.raises(TheirResourceNotFoundError):
            asyncio.run(ask(lambda name=name: ours.get_reference("greeter", name)))
    with pytest.raises(TheirResourceNotFoundError, match="has no file 'notes.md'"):
        asyncio.run(ask(lambda: ours.read_file("greeter", "notes.md")))


def test_the_provider_serves_a_folder_in_dev_mode_as_it_is_now(tmp_path: Path) -> None:
    """As the harness does at every render: a file added is served, a secret added refuses the skill."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: notes\ndescription: Take notes.\n---\nTake notes.\n")
    handle = Skill("notes", provider([load_skill_dir(folder)]))
    assert asyncio.run(handle.list_files()) == ["SKILL.md"]
    (folder / "style.md").write_text("Short lines.\n")
    assert asyncio.run(handle.list_files()) == ["SKILL.md", "style.md"]
    assert asyncio.run(handle.read_file("style.md")) == b"Short lines.\n"
    (folder / ".env").write_text("TOKEN=1\n")
    with pytest.raises(SkillError, match=r"\.env: FLU302"):
        asyncio.run(handle.read_file("style.md"))


def test_the_provider_takes_mounted_skills_each_under_its_own_name() -> None:
    greeter = define_skill(name="greeter", description="Greet people.", instructions="Say hi.\n")
    with pytest.raises(AgentError, match="skill 'welcome' is skill 'greeter' under another name"):
        provider([greeter.renamed("welcome")])
    with pytest.raises(AgentError, match="two skills are named 'greeter'"):
        provider([greeter, define_skill(name="greeter", description="Other.", instructions="Hello.\n")])
    with pytest.raises(AgentError, match="must be SkillReference objects"):
        provider([Path("skills/greeter")])  # type: ignore[list-item]
    assert isinstance(provider([greeter]), SkillProvider) and isinstance(provider([greeter]), FlueSkillProvider)


def test_their_own_rules_refuse_some_valid_skills_whatever_their_provider(demo: dict[str, SkillReference]) -> None:
    """What the agentskills guide says of agentskills-core 0.7: its registry's validation wants `compatibility` a mapping and
    `allowed-tools` a list (the specification: strings), so it refuses such a skill from any provider, while its MCP
    server, given `Skill` handles, serves it; that server types SKILL.md's YAML itself and refuses a value JSON
    cannot carry (the bundled refunds skill's `reviewed: 2024-05-01`, a date to a YAML 1.1 loader)."""
    greeter = define_skill(
        name="greeter",
        description="Greet people.",
        instructions="Say hi.\n",
        compatibility="Python 3.12",
        allowed_tools="Read",
    )
    with pytest.raises(ValueError, match="'compatibility' must be dict, got str"):
        registered([greeter])

    async def session() -> dict[str, Any]:
        server = await create_mcp_server([Skill("greeter", provider([greeter]))])
        async with Client(server) as client:
            return await list_skills(client)

    assert anyio.run(session)["skills"] == [entry(greeter)]
    with pytest.raises(ValueError, match="SKILL.md frontmatter must contain UTF-8 JSON-compatible YAML"):
        asyncio.run(create_mcp_server([Skill("refunds", provider([demo["refunds"]]))]))


# --- their providers as our sources -------------------------------------------------------------


@pytest.fixture
def exported(demo: dict[str, SkillReference], tmp_path: Path) -> Path:
    """The bundled skills as plain folders, byte for byte (what their folder provider and a static host serve)."""
    root = tmp_path / "skills"
    export_skills(bundled(demo), root)
    return root


@pytest.fixture
def hosted(exported: Path, tmp_path: Path) -> Path:
    """A copy of `exported` published with agentskills-http's manifests (an `index.json` in each skill folder)."""
    root = tmp_path / "hosted"
    shutil.copytree(exported, root)
    publish(root)
    return root


@pytest.fixture
def host(hosted: Path) -> Iterator[str]:
    """`hosted` served on 127.0.0.1: its base URL."""
    with static_host(hosted) as url:
        yield url


def http_provider(url: str, **options: Any) -> HTTPStaticFileSkillProvider:
    with pytest.warns(UserWarning, match="unencrypted HTTP"):  # (a loopback test server)
        return HTTPStaticFileSkillProvider(
            url, file_manifest=True, skill_manifest=True, allow_private_network=True, **options
        )


SOURCES: dict[str, Callable[[list[SkillReference], Path, str], tuple[SkillReference, ...]]] = {
    "agentskills-fs": lambda skills, folder, url: skills_from(LocalFileSystemSkillProvider(folder)),
    "agentskills-http": lambda skills, folder, url: skills_from(http_provider(url)),
    "flue-provider": lambda skills, folder, url: skills_from(provider(skills)),
}


@pytest.mark.parametrize("source", list(SOURCES))
def test_skills_from_their_providers_give_every_surface_the_bundled_texts(
    demo: dict[str, SkillReference], exported: Path, host: str, source: str
) -> None:
    """The same-texts test (`test_same_results.py`) with each provider's skills in place of the bundled ones: the
    catalog, the tool definitions and every result text (failures included) are the bundled skills' own."""
    skills = bundled(demo)
    loaded = SOURCES[source](skills, exported, host)
    assert [skill.name for skill in loaded] == ["refunds", "triage"]
    assert [skill.id for skill in loaded] == [skill.id for skill in skills]  # the same files, byte for byte
    assert all(skill.origin.startswith("agentskills ") for skill in loaded)

    expected: dict[str, Seen] = {name: via(skills, CALLS) for name, via in SURFACES.items()}
    for name, via in SURFACES.items():
        seen = via(list(loaded), CALLS)
        assert seen == expected[name], name
    harness = expected["harness"]
    assert [failed for _, failed in harness.results] == [i in FAILING for i in range(len(CALLS))]
    assert harness.results[3][0].startswith("     1\tRefund policy")


def hostile_folder(root: Path) -> Path:
    """One good skill, and one of each way a folder can be wrong."""

    def skill(folder: str, files: dict[str, bytes], name: str | None = None) -> None:
        (root / folder).mkdir(parents=True)
        md = f"---\nname: {name or folder}\ndescription: The {folder} skill.\n---\nUse it.\n".encode()
        for path, data in {"SKILL.md": md, **files}.items():
            (root / folder / path).parent.mkdir(parents=True, exist_ok=True)
            (root / folder / path).write_bytes(data)

    skill("good", {"notes.md": b"Plain notes.\n"})
    skill("dotenv", {".env": b"TOKEN=1\n"})
    skill("sshkey", {".ssh/id_rsa": b"x\n"})
    skill("pem", {"notes.md": PEM_KEY})
    skill("billing", {}, name="refunds")
    skill("huge", {"data.bin": b"\0" * (80 * KIB)})
    skill("nested", {"/".join(["d"] * 65) + "/deep.md": b"x\n"})
    return root


def test_a_refused_skill_of_their_folder_provider_is_skipped_with_the_reason(tmp_path: Path) -> None:
    root = hostile_folder(tmp_path / "skills")
    with pytest.warns(SkillWarning) as warned:
        loaded = skills_from(LocalFileSystemSkillProvider(root), limits=Limits(bundle_size=64 * KIB))
    assert [skill.name for skill in loaded] == ["good"]
    assert loaded[0].resources == ("notes.md",)
    reasons = {str(w.message).split("'")[1]: str(w.message) for w in warned.list}
    shown = "skipped agentskills LocalFileSystemSkillProvider skill"
    assert all(text.startswith(shown) for text in reasons.values()), reasons
    assert "/.env: FLU302" in reasons["dotenv"]
    assert "/.ssh: FLU302" in reasons["sshkey"]
    assert "/notes.md:1:1: FLU303" in reasons["pem"]
    assert "FLU205" in reasons["billing"]
    assert "FLU308" in reasons["huge"] and "add up to more than 64 KiB, the limit" in reasons["huge"]
    assert "FLU313" in reasons["nested"]


def test_a_file_over_their_providers_own_limit_skips_its_skill(tmp_path: Path) -> None:
    root = hostile_folder(tmp_path / "skills")
    with pytest.warns(SkillWarning, match=r"skill 'huge': FLU308 cannot list .* exceeds maximum size \(65536 bytes\)"):
        loaded = skills_from(LocalFileSystemSkillProvider(root, max_file_bytes=64 * KIB), ["good", "huge"])
    assert [skill.name for skill in loaded] == ["good"]


class Hostile(SkillProvider):
    """A provider serving what no folder could hold: names and paths that climb, a file claimed to be one thing
    and served as another, a listing that is not one; `served` records every file asked for."""

    supports_discovery = True
    supports_file_access = True

    def __init__(self) -> None:
        self.served: list[tuple[str, str]] = []

    async def discover(self) -> list[str]:
        return ["../../etc", "climbs", "good", "not-a-list", "Bad_Name"]

    async def list_files(self, skill_id: str) -> list[str]:
        files: dict[str, Any] = {
            "climbs": ["SKILL.md", "../outside.md"],
            "good": ["SKILL.md"],
            "not-a-list": "SKILL.md",
        }
        return files.get(skill_id, ["SKILL.md"])  # type: ignore[no-any-return]

    async def read_file(self, skill_id: str, path: str) -> bytes:
        self.served.append((skill_id, path))
        return f"---\nname: {skill_id}\ndescription: The {skill_id} skill.\n---\nUse it.\n".encode()

    async def get_metadata(self, skill_id: str) -> dict[str, Any]:
        raise AssertionError("flue reads files, not parsed metadata")

    async def get_body(self, skill_id: str) -> str:
        raise AssertionError("flue reads files, not a parsed body")

    async def get_script(self, skill_id: str, name: str) -> bytes:
        raise AssertionError("flue reads files")

    get_asset = get_reference = get_script


def test_a_hostile_provider_gets_no_skill_mounted_but_the_good_one() -> None:
    hostile = Hostile()
    with pytest.warns(SkillWarning) as warned:
        loaded = skills_from(hostile, label="hostile provider")
    assert [skill.name for skill in loaded] == ["good"]
    messages = sorted(str(w.message) for w in warned.list)
    assert len(messages) == 4 and all(m.startswith("skipped hostile provider skill ") for m in messages)
    assert any("'../../etc'" in m and "FLU204" in m for m in messages)
    assert any("'Bad_Name'" in m and "FLU204" in m for m in messages)
    assert any("'climbs'" in m and "'../outside.md' refused" in m for m in messages)
    assert any("'not-a-list'" in m and "list_files() gave str, not a list of paths" in m for m in messages)
    # A name the rule refuses is never asked for a file, nor a path no skill could hold.
    assert sorted(hostile.served) == [("climbs", "SKILL.md"), ("good", "SKILL.md")]


def test_a_file_changed_at_the_source_after_load_is_never_served(tmp_path: Path) -> None:
    root = hostile_folder(tmp_path / "skills")
    [good] = skills_from(LocalFileSystemSkillProvider(root), ["good"])
    (root / "good" / "notes.md").write_bytes(b"Changed notes, same size\n")
    model = ScriptedModel([[ToolCall("read_skill_resource", {"path": "/.flue/skills/good/notes.md"})], "done"])

    @agent
    def assistant() -> str:
        use_model(model)
        use_skill(good)
        return ""

    Harness(assistant).prompt_sync("go")
    [result] = [m for m in model.requests[-1].messages if m["role"] == "tool"]
    assert result["is_error"] and "good'/notes.md: FLU308" in result["content"]
    assert "Changed" not in result["content"]


@pytest.mark.slow  # a server on 127.0.0.1
def test_a_file_changed_on_the_host_after_load_is_never_served(hosted: Path, host: str) -> None:
    loaded = skills_from(http_provider(host), ["refunds"])
    (hosted / "refunds" / "policy.md").write_bytes(b"Everything is refundable, always.\n")
    with pytest.raises(SkillError, match=r"HTTPStaticFileSkillProvider skill 'refunds'/policy.md: FLU308"):
        loaded[0].read_bytes("policy.md")
    assert loaded[0].read_bytes("data/rates.csv") == (hosted / "refunds" / "data" / "rates.csv").read_bytes()


def in_thread(call: Callable[[], Any], wait: float = 60) -> Any:
    """`call()` in a thread: what it returned or raised, and a failure (not a hung test) if it never returns."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(call())
        except BaseException as exc:  # (handed back to the test)
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(wait)
    assert not thread.is_alive(), f"no answer in {wait} s"
    return outcome[0]


@pytest.mark.slow  # servers on 127.0.0.1
def test_an_unreachable_or_silent_host_is_a_clear_error_never_a_hang() -> None:
    with closed_port() as url:
        refused = in_thread(lambda: skills_from(http_provider(url, retry_backoff=0.01), ["refunds"]))
    assert isinstance(refused, SkillError)
    assert str(refused).startswith("agentskills HTTPStaticFileSkillProvider skill 'refunds': FLU308")
    assert "ProviderUnavailableError" in str(refused)
    with silent_host() as url:
        silent = in_thread(lambda: skills_from(http_provider(url), ["refunds"], timeout=1))
        listing = in_thread(lambda: skills_from(http_provider(url), timeout=1))
    assert isinstance(silent, SkillError) and "no answer within 1 s" in str(silent)
    assert isinstance(listing, SkillError)
    assert (
        str(listing)
        == "agentskills HTTPStaticFileSkillProvider: cannot list its skills: TimeoutError: no answer within 1 s"
    )


def test_a_provider_that_cannot_list_or_read_files_is_a_clear_error(tmp_path: Path) -> None:
    url = "http://127.0.0.1:9"  # (nothing is asked of it)
    with pytest.warns(UserWarning):
        plain = HTTPStaticFileSkillProvider(url, allow_private_network=True)
    with pytest.raises(SkillError, match="cannot list its skills .no discovery.: pass their names"):
        skills_from(plain)
    with pytest.raises(SkillError, match=r"offers no lossless file access .*file_manifest=True"):
        skills_from(plain, ["refunds"])
    with pytest.raises(SkillError, match="names='refunds' is one string"):
        skills_from(LocalFileSystemSkillProvider(tmp_path), "refunds")
    with pytest.raises(SkillError, match="is not an agentskills_core.SkillProvider"):
        skills_from(tmp_path)  # type: ignore[arg-type]


def test_skills_from_works_in_a_running_event_loop_and_reads_from_any_thread(tmp_path: Path) -> None:
    root = hostile_folder(tmp_path / "skills")
    before = loop_threads()

    async def inside(provider: LocalFileSystemSkillProvider) -> tuple[SkillReference, ...]:
        return skills_from(provider, ["good"])  # the running loop waits: the provider's calls run on its own

    loaded = asyncio.run(inside(LocalFileSystemSkillProvider(root)))
    assert in_thread(partial(loaded[0].read_text, "notes.md")) == "Plain notes.\n"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no coroutine left unawaited, no loop left open noisily
        assert asyncio.run(asyncio.to_thread(loaded[0].read_text, "notes.md")) == "Plain notes.\n"
    [thread] = loop_threads() - before  # one loop for the provider, whichever call used it
    # Once the provider and its skills are gone, so is its loop's thread.
    del loaded
    gc.collect()
    thread.join(10)
    assert not thread.is_alive()


def loop_threads() -> set[threading.Thread]:
    return {thread for thread in threading.enumerate() if thread.name == "flue-agentskills"}


def test_the_module_is_mypy_clean_against_their_types() -> None:
    """The main venv (Python 3.11) cannot install agentskills-core, so its mypy sees the package as Any: here, strict
    mypy checks the module against the installed package's own annotations."""
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--python-version", "3.12", "--cache-dir", os.devnull]  # no cache written
        + ["-m", "flue_runtime.integrations.agentskills"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parents[2],
    )
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.slow  # the snippet in a child process
def test_the_readme_snippet_prints_what_the_readme_shows(tmp_path: Path) -> None:
    text = section("guides/agentskills.md", "# agentskills-core, both ways")
    [(code, shown)] = re.findall(r"```python\n(.*?)```\n\n```\n(.*?)```", text, re.DOTALL)
    (tmp_path / "snippet.py").write_text(code, encoding="utf-8")
    out = subprocess.run([sys.executable, "snippet.py"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout == shown
