"""The "Skill sources" page: each snippet (a SQLite source, a real distribution's raw skills, an alias)
runs as written and prints exactly what the page shows (a remote MCP server's: tests/integrations)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.site import section

pytestmark = pytest.mark.slow  # each snippet runs in a child process


def snippets() -> list[tuple[str, str]]:
    text = section("concepts/sources.md", "## Skill sources") + section(
        "guides/mcp.md", "## Skills from a remote MCP server"
    )
    return re.findall(r"```python\n(.*?)```\n\n```\n(.*?)```", text, re.DOTALL)


def test_the_section_shows_each_source() -> None:
    found = snippets()
    assert len(found) == 4
    assert "class SQLiteSkill" in found[0][0] and "load_skill(SQLiteSkill" in found[0][0]
    assert 'skills_of("agent-skills-bundle")' in found[1][0]
    assert 'name="marketplace-refunds"' in found[2][0]
    assert "remote_skills([" in found[3][0]  # run by tests/integrations/test_remote_skills.py (it needs the MCP SDK)


@pytest.mark.parametrize("index", range(3), ids=["sqlite-rows", "raw-distribution", "alias"])
def test_each_snippet_prints_what_the_readme_shows(index: int, tmp_path: Path) -> None:
    code, shown = snippets()[index]
    (tmp_path / "snippet.py").write_text(code, encoding="utf-8")
    out = subprocess.run([sys.executable, "snippet.py"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout == shown


def test_the_sqlite_source_refuses_a_row_the_rules_refuse(tmp_path: Path) -> None:
    """The page says so: a `.env` row makes `load_skill` raise a SkillError naming the source and the file."""
    code = snippets()[0][0]
    hostile = code.replace('"policy.md": b"Orders', '".env": b"TOKEN=1\\n", "policy.md": b"Orders', 1)
    assert hostile != code
    (tmp_path / "snippet.py").write_text(hostile, encoding="utf-8")
    out = subprocess.run([sys.executable, "snippet.py"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert out.returncode == 1 and out.stdout == ""
    assert "flue_runtime.errors.SkillError: skills.db skill 'refunds'/.env: FLU302" in out.stderr
