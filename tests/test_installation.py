"""The getting-started page's Installation section, followed literally in a fresh home folder: our wheels built from this
checkout, pip and uv pointed at them, a user's project built in isolated environments that fetch our hook."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from support import site
from support.paths import ROOT

PROJECT = ROOT / "fixtures" / "projects" / "hatch-src"


def _blocks() -> list[str]:
    return re.findall(r"```bash\n(.*?)```", site.section("getting-started.md", "## Installation"), re.DOTALL)


def _run(script: str, cwd: Path, env: dict[str, str]) -> None:
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"$ {script}\n{done.stdout}\n{done.stderr}"


@pytest.mark.slow
def test_the_installation_section_works_as_written(tmp_path: Path) -> None:
    setup, with_pip, with_uv = _blocks()
    home = tmp_path / "home"
    home.mkdir()
    # A fresh user: their own home, our test venv's tools (uv) on PATH, nothing else of ours configured.
    env = {
        key: value for key, value in os.environ.items() if not key.startswith(("PIP_FIND_LINKS", "UV_", "VIRTUAL_ENV"))
    }
    env["HOME"] = str(home)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    # `export` lasts for one shell: run the setup block in front of each of the others, as one terminal would.
    _run(setup, ROOT, env)
    wheels = sorted(p.name.split("-")[0] for p in (home / "flue-wheels").glob("*.whl"))
    assert wheels == ["flue_skills", "hatch_flue_skills"]
    exports = "\n".join(line for line in setup.splitlines() if line.startswith("export "))
    for block in (with_pip, with_uv):
        project = home / "my-project"
        shutil.rmtree(project, ignore_errors=True)
        shutil.copytree(PROJECT, project)
        _run(exports + "\n" + block, home, env)
        [wheel] = (project / "dist").glob("*.whl")
        with zipfile.ZipFile(wheel) as archive:
            names = archive.namelist()
        assert "hatch_src_demo/_flue_skills/manifest.json" in names, names
        bundled = sorted(name.rsplit("/", 1)[-1] for name in names if "/_flue_skills/skills/" in name)
        assert bundled == ["SKILL.md", "SKILL.md", "extract.py", "policy.md", "reference.md"], names
        assert list((project / "dist").glob("*.tar.gz")), "an sdist too"
