"""`flue-skills prompt MODULE:AGENT`: exactly what the harness sends on a first turn, with token counts."""

from __future__ import annotations

import importlib
import json
import math
import warnings
from typing import Any

import cli_agents
import pytest
from clisupport import CLI, in_folder

from flue_build.cli.tokens import counter
from flue_runtime import Harness

pytestmark = pytest.mark.slow  # the console script in child processes


def first_request(state: dict[str, object]) -> tuple[str, list[dict[str, object]]]:
    """What the agent's own model is sent first in a real conversation, in this process."""
    before = len(cli_agents.model.requests)
    Harness(cli_agents.support).prompt_sync("hello", state=state)
    request = cli_agents.model.requests[before]
    return request.system, request.tools


@pytest.fixture(scope="module")
def shown(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """`prompt cli_agents:support --format json`, run once for the tests that read it (each run loads a tokenizer)."""
    done = in_folder(tmp_path_factory.mktemp("prompt")).run("prompt", "cli_agents:support", "--format", "json")
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_json_is_what_the_first_request_carries(shown: dict[str, Any]) -> None:
    system, tools = first_request({})
    assert (shown["system"], shown["tools"]) == (system, tools)
    assert "- **refunds** — Handle refund requests." in shown["system"] and "**vip**" not in shown["system"]
    assert [t["name"] for t in shown["tools"]] == [
        "activate_skill",
        "read_skill_resource",
        "order_status",
        "slow_lookup",
        "blocking_lookup",
    ]


def test_state_renders_the_agent_with_it(cli: CLI) -> None:
    done = cli.run("prompt", "cli_agents:support", "--format", "json", "--state", "vip=true")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown["state"] == {"vip": True}
    assert shown["system"] == first_request({"vip": True})[0]
    assert "- **vip** — Extra care for VIP customers." in shown["system"]


def test_tokens_are_counted_with_a_real_tokenizer(shown: dict[str, Any]) -> None:
    tokens = shown["tokens"]
    with warnings.catch_warnings():  # bpe-openai 0.1.4 loads its tables with a deprecated importlib call
        warnings.simplefilter("ignore", DeprecationWarning)
        bpe_openai = importlib.import_module("bpe_openai")
        encoding = bpe_openai.get_encoding("o200k_base")
    assert tokens["exact"] is True and tokens["tokenizer"] == f"bpe-openai {bpe_openai.__version__}, o200k_base"
    assert tokens["system"] == len(encoding.encode(shown["system"]))
    assert tokens["tools"] == {
        tool["name"]: len(encoding.encode(json.dumps(tool, ensure_ascii=False))) for tool in shown["tools"]
    }
    assert tokens["total"] == tokens["system"] + sum(tokens["tools"].values())


def test_text_shows_the_prompt_each_tool_and_the_total(cli: CLI, shown: dict[str, Any]) -> None:
    done = cli.run("prompt", "cli_agents:support")
    assert done.returncode == 0, done.stderr
    tokens = shown["tokens"]
    lines = done.stdout.splitlines()
    assert lines[0] == f"=== system prompt: {tokens['system']} tokens ==="
    assert done.stdout.startswith(lines[0] + "\n" + shown["system"])
    order = lines.index(f"=== tool order_status: {tokens['tools']['order_status']} tokens ===")
    assert lines[order + 1 : order + 3] == [
        'Look up an order\'s delivery status by its id, like "A-1001".',
        "parameters: " + json.dumps(shown["tools"][2]["parameters"]),
    ]
    assert lines[-1] == (
        f"=== total: {tokens['total']} tokens: {tokens['system']} in the system prompt, "
        f"{tokens['total'] - tokens['system']} in 5 tools (as JSON); {tokens['tokenizer']} ==="
    )


def test_without_a_tokenizer_the_count_says_it_is_an_estimate(cli: CLI, shown: dict[str, Any]) -> None:
    # A Python where neither tokenizer can be imported (None in sys.modules makes `import` fail).
    code = (
        "import sys; sys.modules['bpe_openai'] = sys.modules['tiktoken'] = None; "
        "from flue_build.cli import main; raise SystemExit(main(sys.argv[1:]))"
    )
    done = cli.run_python(code, "prompt", "cli_agents:support")
    assert done.returncode == 0, done.stderr
    estimate = math.ceil(len(shown["system"]) / 4)
    assert done.stdout.splitlines()[0] == f"=== system prompt: about {estimate} tokens ==="
    assert done.stdout.splitlines()[-1].endswith(
        "; estimate: characters / 4; install bpe-openai or tiktoken for an exact o200k_base count ==="
    )


def test_the_estimate_is_characters_over_four() -> None:
    estimate = counter(tokenizers=("no_such_tokenizer_module",))
    assert not estimate.exact and estimate.name.startswith("estimate: characters / 4")
    assert [estimate.count(text) for text in ("", "abcd", "abcde")] == [0, 1, 2]


def test_no_model_is_needed(cli: CLI) -> None:
    done = cli.run("prompt", "cli_agents:modelless")
    assert done.returncode == 0, done.stderr
    assert "You answer questions." in done.stdout and "**refunds**" in done.stdout


def test_problems_with_the_agent_are_one_line(cli: CLI) -> None:
    for spec, status, expected in [  # 2: names no agent (usage); 1: the agent's own code raised
        ("cli_agents", 2, "cli_agents: name an agent as MODULE:AGENT"),
        ("no_such_module:agent", 2, "cannot import 'no_such_module'"),
        ("cli_agents:nothing", 2, "module 'cli_agents' has no agent function named 'nothing'"),
        ("cli_agents:broken", 1, "cli_agents:broken: rendering the agent raised RuntimeError: the agent's own bug"),
    ]:
        done = cli.run("prompt", spec)
        assert done.returncode == status, spec
        assert done.stderr.startswith("flue-skills prompt: error: ") and expected in done.stderr, done.stderr
        assert "Traceback" not in done.stderr


def test_a_state_value_that_is_not_json_is_a_usage_error(cli: CLI) -> None:
    done = cli.run("prompt", "cli_agents:support", "--state", "tier=gold")
    assert done.returncode == 2
    assert "'tier=gold': the value is not JSON" in done.stderr and "tier='\"gold\"'" in done.stderr
