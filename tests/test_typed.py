"""A user's mypy sees our types: strict mypy over a module that uses the public API of an installed wheel."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest
from support.builds import build_wheel
from support.envs import install, make_venv
from support.paths import ROOT

USER_MODULE = textwrap.dedent(
    """
    from flue_runtime import (
        FlueError,
        Harness,
        SkillReference,
        agent,
        define_skill,
        use_model,
        use_skill,
        use_state,
    )
    from flue_runtime.models import ScriptedModel, ToolCall

    REFUNDS: SkillReference = define_skill(
        name="refunds", description="Handle refunds.", instructions="Check the order first."
    )


    @agent
    def support() -> str:
        use_model(ScriptedModel([[ToolCall("activate_skill", {"name": "refunds"})], "Done."]))
        use_skill(REFUNDS)
        vip: bool = use_state("vip", False)
        return "Answer support questions." + (" Be extra kind." if vip else "")


    def answer(text: str) -> str:
        try:
            return Harness(support).session("s").prompt_sync(text).text
        except FlueError as exc:
            return str(exc)


    names: tuple[str, ...] = REFUNDS.resources
    """
)

# A mistake mypy must catch only if it sees our annotations: `description` is a str, not an int.
WRONG = "from flue_runtime import define_skill\nx: int = define_skill(name='a', description='b', instructions='c').description\n"


@pytest.mark.slow
def test_mypy_strict_checks_user_code_against_the_installed_wheel(tmp_path: Path) -> None:
    wheel = build_wheel(ROOT, tmp_path / "wheels")
    assert wheel.name.startswith("flue_skills-")
    with zipfile.ZipFile(wheel) as archive:
        assert {"flue_runtime/py.typed", "flue_build/py.typed"} <= set(archive.namelist())
    python = make_venv(tmp_path / "venv", see_dev_env=False)
    install(str(wheel), into=python, cwd=tmp_path, deps=True)  # the installer is not what is tested
    (tmp_path / "user.py").write_text(USER_MODULE)
    (tmp_path / "wrong.py").write_text(WRONG)

    def mypy(module: str) -> subprocess.CompletedProcess[str]:
        # Run from the temporary folder: the checkout's own flue_runtime must not be the one mypy finds. The
        # cache, fresh for this test, is shared by both runs: the second does not analyse the wheel again.
        cache = str(tmp_path / "mypy-cache")
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "mypy",
                "--strict",
                "--cache-dir",
                cache,
                "--python-executable",
                str(python),
                module,
            ],
            capture_output=True,
            text=True,
            cwd=tmp_path,
        )

    good = mypy("user.py")
    assert good.returncode == 0, good.stdout + good.stderr
    bad = mypy("wrong.py")
    assert bad.returncode == 1 and 'Incompatible types in assignment (expression has type "str"' in bad.stdout
