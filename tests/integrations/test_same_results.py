"""One set of calls through every surface (the harness, MCP, pydantic-ai, the OpenAI Agents SDK, LangChain):
the model gets the same catalog, the same tool definitions and the same result texts from each, and from every
source of the same skills (a bundle, SQLite rows through the source protocol, a distribution's raw folders, a
remote MCP server over stdio and HTTP, ours and an independent one)."""

from __future__ import annotations

import pytest
from support.optional import need

need("mcp", "mcp")
need("agents", "openai-agents")
need("langchain_core", "langchain")
need("pydantic_ai", "pydantic-ai")

import re
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

from intsupport import PACKAGE, Installed
from mcp import StdioServerParameters
from mcpclient import running
from support import agentskills_server
from support.imports import imported_from
from support.rawdist import DIST, RawInstalled
from support.sources import SQLiteSkill, save_rows
from surfaces import SURFACES, Call, Seen, via_harness

from flue_runtime import SkillWarning, load_skill, skills_of
from flue_runtime.integrations.skillset import Skillset
from flue_runtime.mcp import remote_skills
from flue_runtime.mcp.remote import FROM, FROM_LINE
from flue_runtime.mount.origins import origin_line
from flue_runtime.mount.reference import SkillReference
from flue_runtime.mount.vfs import SkillTree, identity_of

pytestmark = pytest.mark.slow  # the fixture project built and installed (`installed`, `raw_installed`)

CALLS: list[Call] = [
    ("activate_skill", {"name": "refunds"}),
    ("activate_skill", {"name": "triage"}),
    ("activate_skill", {"name": "billing"}),
    ("read_skill_resource", {"path": "/.flue/skills/refunds/policy.md"}),
    ("read_skill_resource", {"path": "/.flue/skills/refunds/templates/email (v2).md"}),
    ("read_skill_resource", {"path": "/.flue/skills/refunds/data/rates.csv", "offset": 2, "limit": 1}),
    ("read_skill_resource", {"path": "/.flue/skills/refunds/assets/stamp.png", "offset": 8, "limit": 16}),
    ("read_skill_resource", {"path": "/.flue/skills/refunds/../triage/SKILL.md"}),
    ("read_skill_resource", {"path": "/.flue/skills/refunds/secret.md"}),
    ("read_skill_resource", {"path": "/.flue/skills/refunds/policy.md", "offset": 99}),
    ("activate_skill", {}),
    ("activate_skill", {"name": "refunds", "extra": 1}),
]
FAILING = {7, 8, 9, 10, 11}


def test_every_surface_gives_the_model_the_same_texts(demo: dict[str, SkillReference]) -> None:
    skills = [demo["refunds"], demo["triage"]]
    seen: dict[str, Seen] = {name: via(skills, CALLS) for name, via in SURFACES.items()}
    harness = seen["harness"]
    expected = Skillset(skills)

    assert harness.catalog == expected.catalog and "- **refunds** — Handle refund requests" in harness.catalog
    assert harness.tools == [tool.spec() for tool in expected.tools]
    assert [failed for _, failed in harness.results] == [i in FAILING for i in range(len(CALLS))]
    assert harness.results[3][0].startswith("     1\tRefund policy")
    assert harness.results[6][0].startswith("[binary file /.flue/skills/refunds/assets/stamp.png")
    for name, surface in seen.items():
        assert surface.catalog == harness.catalog, name
        assert surface.tools == harness.tools, name
        assert [text for text, _ in surface.results] == [text for text, _ in harness.results], name
        if name != "openai-agents":  # the Agents SDK has no failure flag on function outputs
            assert surface.results == harness.results, name


def _sqlite(demo: dict[str, SkillReference], tmp_path: Path, raw: RawInstalled) -> list[SkillReference]:
    """The demo's skills as SQLite rows, every file's bytes as the bundle holds them, loaded through the protocol."""
    db = str(tmp_path / "skills.db")
    for skill in demo.values():
        save_rows(db, skill.name, {f.path: skill.read_bytes(f.path) for f in skill.files})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkillWarning)  # the demo's SKILL.md has fields the spec lacks (FLU210)
        return [load_skill(SQLiteSkill(db, "refunds")), load_skill(SQLiteSkill(db, "triage"))]


def _raw_distribution(demo: dict[str, SkillReference], tmp_path: Path, raw: RawInstalled) -> list[SkillReference]:
    """The same skill folders shipped raw by a distribution built without the hook (its refused folders skipped)."""
    with imported_from(raw.site), warnings.catch_warnings():
        warnings.simplefilter("ignore", SkillWarning)
        return skills_of(DIST)


def _bundle_reloaded(demo: dict[str, SkillReference], tmp_path: Path, raw: RawInstalled) -> list[SkillReference]:
    """A bundle's own source through `load_skill`: the bundle implements the protocol too."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkillWarning)  # the demo's SKILL.md has fields the spec lacks (FLU210)
        return [load_skill(demo["refunds"].source), load_skill(demo["triage"].source)]


SOURCES: dict[str, Callable[[dict[str, SkillReference], Path, RawInstalled], list[SkillReference]]] = {
    "sqlite-rows": _sqlite,
    "raw-distribution": _raw_distribution,
    "bundle-through-load_skill": _bundle_reloaded,
}


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_every_source_gives_the_same_texts_as_the_bundle_through_every_surface(
    source: str, demo: dict[str, SkillReference], raw_installed: RawInstalled, tmp_path: Path
) -> None:
    _same_as_the_bundle(SOURCES[source](demo, tmp_path, raw_installed), demo)


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_skills_of_a_remote_mcp_server_give_the_same_texts_as_the_bundle_through_every_surface(
    transport: str, demo: dict[str, SkillReference], installed: Installed
) -> None:
    """`flue-skills mcp` serving the installed bundle, mounted through `remote_skills` (their support files
    read over MCP when the model reads them, each checked against the entry's digest)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkillWarning)  # the demo's SKILL.md has fields the spec lacks (FLU210)
        if transport == "stdio":
            server = StdioServerParameters(
                command=sys.executable, args=["-m", "flue_build", "mcp", PACKAGE], env=installed.env()
            )
            with remote_skills(server) as skills:
                _same_as_the_bundle(list(skills), demo)
        else:
            with running(PACKAGE, env=installed.env()) as url, remote_skills(url) as skills:
                _same_as_the_bundle(list(skills), demo)


def test_skills_of_an_independent_mcp_server_give_the_same_texts_as_the_bundle_through_every_surface(
    demo: dict[str, SkillReference], tmp_path: Path
) -> None:
    """agentskills-mcp-server (from the package index, Python 3.12) serving the fixture's skill folders through its
    own CLI over stdio, one skill a page: refunds' SKILL.md differs from the bundle's in frontmatter only (that
    server refuses a YAML date), so every text the model gets is the bundle's."""
    root = agentskills_server.demo_skills(tmp_path / "skills")
    config = agentskills_server.config(tmp_path / "server.json", root, ["refunds", "triage"], page_size=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkillWarning)  # the demo's SKILL.md has fields the spec lacks (FLU210)
        with remote_skills(agentskills_server.stdio_command(config), timeout=120) as skills:
            assert skills[0].id != demo["refunds"].id  # (its SKILL.md is another file)
            _same_as_the_bundle(list(skills), demo, same_files=False)


def _same_as_the_bundle(skills: list[SkillReference], demo: dict[str, SkillReference], same_files: bool = True) -> None:
    """`skills` give the model what the bundle gives it, through every surface; with `same_files`, they are the
    bundle's files too (the same content ids), else only triage's are."""
    bundled = via_harness([demo["refunds"], demo["triage"]], CALLS)
    got = [(s.name, s.id) for s in skills]
    assert got[0] == (demo["refunds"].name, demo["refunds"].id) or not same_files
    assert [name for name, _ in got] == ["refunds", "triage"] and got[1] == ("triage", demo["triage"].id)
    assert skills[0].source is not demo["refunds"].source  # loaded anew, through the protocol
    calls = [(tool, _placed(arguments, skills)) for tool, arguments in CALLS]
    for name, via in SURFACES.items():
        surface = via(skills, calls)
        assert _untagged(surface.catalog, skills) == bundled.catalog, name
        assert _untagged(str(surface.tools), skills) == str(bundled.tools), name
        texts = [_untagged(text, skills) for text, _ in surface.results]
        assert texts == [text for text, _ in bundled.results], (skills[0].origin, name)
        if name != "openai-agents":  # the Agents SDK has no failure flag on function outputs
            assert [failed for _, failed in surface.results] == [i in FAILING for i in range(len(CALLS))], name


def _placed(arguments: dict[str, object], skills: list[SkillReference]) -> dict[str, object]:
    """`arguments` with a path under /.flue/skills/<name>/ moved to where `skills` are (a remote skill's folder
    names its server: `/.flue/remote/<identity>/<name>/`)."""
    path = arguments.get("path")
    if not isinstance(path, str):
        return arguments
    for skill in skills:
        path = path.replace(f"/.flue/skills/{skill.name}/", f"{SkillTree(skills).path(skill.name)}/")
    return {**arguments, "path": path}


def _untagged(text: str, skills: list[SkillReference]) -> str:
    """`text` without the origin a remote skill's catalog line, activation and pages of its files carry (`FROM`,
    `FROM_LINE`, the server in its `<skill>` tag, `origin_line`), its folders named as the bundle's (that they carry
    them is `test_remote_host.py`'s and `test_remote_origins.py`'s)."""
    tree = SkillTree(skills)
    for skill in skills:
        server = identity_of(skill)
        if server is None:
            continue
        text = text.replace(FROM.format(origin=skill.origin, identity=server), "")
        text = text.replace(FROM_LINE.format(origin=skill.origin, identity=server), "")
        text = text.replace(f' server="{server}">', ">")
        line = re.escape(origin_line(skill, "WHAT") or "").replace("WHAT", "(?:File|Folder) [^\\n]*?", 1)
        text = re.sub(line + "\n", "", text)
        text = text.replace(tree.path(skill.name), f"/.flue/skills/{skill.name}")
    return text
