"""A skill's trigger eval set (`evals/triggers.json`) is a support file like any other: vetted, then shipped in the
sdist and the wheel by both backends (a wheel built straight from the tree and one built from the sdist), and
`flue-skills eval` runs against the skills of the installed wheel."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.builds import build, sdist_names, wheel_files
from support.fakeapi import FakeAPI, anthropic_activation, clean_env, fake_api
from support.optional import need
from support.projects import ProjectFactory

from flue_runtime.format.triggers import TRIGGERS_FILE

__all__ = ["clean_env", "fake_api"]

pytestmark = pytest.mark.slow  # real builds and an install

TRIGGERS = [
    {"query": "I want my money back for order A-1", "should_trigger": True},
    {"query": "what is your opening time?", "should_trigger": False, "split": "validation"},
]


@pytest.mark.parametrize("name", ["hatch-src", "setuptools-src"])
def test_the_eval_set_ships_and_eval_runs_on_the_installed_wheel(
    name: str, project: ProjectFactory, tmp_path: Path, fake_api: FakeAPI
) -> None:
    need("anthropic", "anthropic")
    package = name.replace("-", "_") + "_demo"
    tree = project(name)
    source = tree / "src" / package / "skills" / "refunds" / TRIGGERS_FILE
    source.parent.mkdir()
    source.write_text(json.dumps(TRIGGERS, indent=2) + "\n", encoding="utf-8")
    data = source.read_bytes()

    via_sdist = build(tree, outdir=tmp_path / "via-sdist")  # an sdist, then the wheel from it
    direct = build(tree, "--wheel", outdir=tmp_path / "direct")  # the wheel straight from the tree
    for result in (via_sdist, direct):
        assert result.returncode == 0, result.output
        assert "FLU316" not in result.output
        shipped = {path: body for path, body in wheel_files(result.wheel).items() if path.endswith(TRIGGERS_FILE)}
        assert list(shipped.values()) == [data], shipped
        assert all(path.startswith(f"{package}/_flue_skills/") for path in shipped)
    assert f"src/{package}/skills/refunds/{TRIGGERS_FILE}" in sdist_names(via_sdist.sdist)

    site = tmp_path / "site"
    install = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target", str(site)]
    subprocess.run([*install, str(direct.wheel)], check=True, timeout=120)
    for _ in TRIGGERS:
        fake_api.reply(anthropic_activation("refunds", {"input_tokens": 50, "output_tokens": 5}))
    env = {
        **os.environ,
        "PYTHONPATH": str(site),
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "ANTHROPIC_BASE_URL": fake_api.url,
    }
    command = [sys.executable, "-m", "flue_build", "eval", package, "--model", "anthropic/claude-test"]
    ran = subprocess.run(
        [*command, "--runs", "1", "--format", "json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    report = json.loads(ran.stdout)
    assert sorted(report["skills"]) == ["refunds"] and "pdf-tools: no evals/triggers.json" in ran.stderr
    refunds = report["skills"]["refunds"]
    assert refunds["train"]["trigger_rate"] == 1.0 and refunds["validation"]["false_trigger_rate"] == 1.0
    assert report["cost"]["requests"] == 2 and report["cost"]["tokens"] == {"input": 100, "output": 10}
    assert "- **refunds** — Handle refund requests" in fake_api.bodies[0]["system"][0]["text"]
