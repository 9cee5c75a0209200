"""The SDKs are optional: nothing imports them until a provider's model is made."""

from __future__ import annotations

import subprocess
import sys

import pytest
from support.optional import need

from flue_runtime.errors import ModelError
from flue_runtime.models import resolve_model

PROBE = """
import sys
import flue_runtime
from flue_runtime import Harness, agent, use_model
from flue_runtime.models import ScriptedModel, resolve_model
import flue_runtime.models.providers, flue_runtime.models.anthropic, flue_runtime.models.openai

model = ScriptedModel(["done"])
assert resolve_model(model) is model

@agent
def helper():
    use_model(model)
    return "Be brief."

assert Harness(helper).prompt_sync("hi").text == "done"
print(sorted(name for name in ("anthropic", "openai", "httpx", "httpx2", "pydantic") if name in sys.modules))
"""


def test_flue_runtime_and_a_scripted_session_import_no_sdk() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_making_a_model_imports_its_sdk_only(clean_env: pytest.MonkeyPatch) -> None:
    need("openai", "openai")
    probe = (
        "import os, sys\n"
        "os.environ['OPENAI_API_KEY'] = 'k'\n"
        "from flue_runtime.models import resolve_model\n"
        "resolve_model('openai/gpt-test')\n"
        "print('openai' in sys.modules, 'anthropic' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "False"]


def test_unknown_provider_lists_the_known_ones() -> None:
    with pytest.raises(
        ModelError, match=r"unknown model provider 'gemini' in gemini/pro; known providers: anthropic, openai"
    ):
        resolve_model("gemini/pro")
