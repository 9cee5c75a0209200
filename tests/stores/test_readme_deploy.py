"""The PostgreSQL guide runs as shown, against the tests' server, in a process of its own."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from store_backends import Backend
from support.site import section

pytestmark = pytest.mark.slow  # a PostgreSQL server and worker processes


def test_the_several_workers_snippet_prints_what_it_shows(pg: Backend, tmp_path: Path) -> None:
    text = section("guides/postgresql.md", "## Several workers: sessions in PostgreSQL")
    found = re.search(r"```python\n(.*?)```\n\n```\n(.*?)```", text, re.DOTALL)
    assert found is not None, "a python block followed by its output"
    (tmp_path / "snippet.py").write_text(found.group(1), encoding="utf-8")
    env = {**os.environ, "FLUE_SESSIONS_URL": pg.location}
    out = subprocess.run(
        [sys.executable, "snippet.py"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == found.group(2)
    assert pg.sql("SELECT id, version FROM flue_sessions") == [("case-42", 2)]
