"""Virtual paths: traversal and confusion attempts against a skill installed from a real wheel
(unpacked and zipped), read from a source tree (editable), and defined in code. None escapes.

The table (traversal_probe.py) holds dot-dot in every spelling: percent-encoded once, twice
and three times, backslashes, absolute and Windows paths, `//`, NUL and other control
characters, Unicode dots and slashes, another skill's name, the package and bundle around
the skill, case variants. Each goes to `read_skill_resource` and the sandbox `read` tool
(through the harness, as a model calls them, with decoys in the sandbox) and to
`SkillReference.read_bytes`: every one is refused with a documented error class (but the skill's
own folder, which `read_skill_resource` lists: its files' paths), and no result holds a byte of
anything but the mounted skill. Writes in every spelling of the tree
(`./.flue/skills/...`, `.flue/./skills/...`, case variants) are refused and leave the sandbox
as it was: no sandbox file can shadow a skill file.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import traversal_probe as table
from rtsetups import Setup
from support.paths import PROJECTS

from flue_runtime import define_skill
from flue_runtime.agents.reading import page

SKILL_DIR = PROJECTS / "runtime-agent" / "skills" / "data-tools"
PROBE = table.__file__


def test_the_table_is_large_enough() -> None:
    assert len(table.RELATIVE) >= 40 and len(set(table.RELATIVE)) == len(table.RELATIVE)
    assert table.REACHES_LOOKUP < set(table.RELATIVE)
    assert len(table.RELATIVE) + len(table.TOOL_ONLY) >= 60


def check(found: dict[str, Any]) -> None:
    """Every attempt refused, nothing but the skill's own bytes anywhere, normalised paths served exactly."""
    files = {path: bytes.fromhex(data) for path, data in found["files"].items()}
    assert sorted(files) == ["SKILL.md", "assets/blob.bin", "scripts/summarise.py"]
    escaped = []
    writes = found["tools"].pop("write")
    assert [w["path"] for w in writes] == table.WRITES
    escaped += [
        ("write", w["path"], w["content"]) for w in writes if not w["is_error"] or "read-only" not in w["content"]
    ]
    assert found["sandbox_unchanged"] is True  # no write landed anywhere, under any spelling
    for tool, results in found["tools"].items():
        assert [r["path"] for r in results] == [table.PREFIX + r for r in table.RELATIVE] + table.TOOL_ONLY + list(
            table.SERVED
        )
        for result in results:
            leaked = [m for m in [*table.MARKERS, "SHADOW"] if m in result["content"]]
            expected = table.SERVED.get(result["path"])
            if tool == "read_skill_resource" and result["path"] in table.LISTS_FOLDER:
                listed = result["content"].splitlines()[1:]
                if (
                    result["is_error"]
                    or leaked
                    or listed != [f"- {table.PREFIX}{f}" for f in sorted(files) if f != "SKILL.md"]
                ):
                    escaped.append((tool, result["path"], "not the skill's own files: " + result["content"][:200]))
            elif expected is None:
                if not result["is_error"] or leaked:
                    escaped.append((tool, result["path"], result["content"][:200]))
            elif result["is_error"] or result["content"] != page(files[expected], result["path"], tool):
                escaped.append((tool, result["path"], "not served exactly: " + result["content"][:200]))
    for result in found["read_bytes"]:
        expected_error = "SkillNotFoundError" if result["path"] in table.REACHES_LOOKUP else "SkillPathError"
        if result["error"] != expected_error or any(m in result.get("message", "") for m in table.MARKERS):
            escaped.append(("read_bytes", result["path"], result))
    assert escaped == []


@pytest.mark.slow
@pytest.mark.parametrize("name", ["wheel", "zip", "editable"])
def test_no_attempt_escapes_an_installed_or_source_skill(setups: dict[str, Setup], name: str) -> None:
    found: dict[str, Any] = json.loads(setups[name].run(PROBE).stdout)
    if name == "editable":
        assert found["origin"].endswith("(from disk)")
    else:
        assert "_flue_skills/skills/" in found["origin"] and "bundled" in found["origin"]
    check(found)
    for path, data in found["files"].items():  # and what is served is the skill's own bytes
        assert bytes.fromhex(data) == SKILL_DIR.joinpath(*path.split("/")).read_bytes()


def test_no_attempt_escapes_a_defined_skill() -> None:
    source = {p.relative_to(SKILL_DIR).as_posix(): p.read_bytes() for p in SKILL_DIR.rglob("*") if p.is_file()}
    skill_md = source.pop("SKILL.md").decode()
    body = skill_md.split("---\n", 2)[2]
    skill = define_skill(name="data-tools", description="Summarise data.", instructions=body, files=source)
    check(table.probe(skill))
