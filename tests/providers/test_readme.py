"""The model providers guide's snippet runs as written, against the loopback server."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.fakeapi import FakeAPI
from support.site import section

pytestmark = pytest.mark.slow  # the guide's snippets in child processes against loopback servers


def snippet() -> str:
    text = section("guides/models.md", "## Model providers")
    found = re.search(r"```python\n(.*?)```", text, re.DOTALL)
    assert found, "the Model providers section has a python snippet"
    return found.group(1)


def test_readme_snippet_talks_to_the_provider(fake_api: FakeAPI, tmp_path: Path) -> None:
    fake_api.reply(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-haiku-4-5",
            "content": [{"type": "text", "text": "Hello Ada, welcome!"}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
    )
    script = tmp_path / "snippet.py"
    script.write_text(snippet(), encoding="utf-8")
    env = dict(os.environ, ANTHROPIC_API_KEY="sk-ant-test", ANTHROPIC_BASE_URL=fake_api.url)

    run = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=60)

    assert run.returncode == 0, run.stderr
    assert run.stdout == "Hello Ada, welcome!\n"
    [request] = fake_api.bodies
    assert request["model"] == "claude-haiku-4-5"
    assert "- **greeter** — Greet people warmly." in request["system"][0]["text"]
