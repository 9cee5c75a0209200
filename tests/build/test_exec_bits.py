"""A script's executable bit survives the build on both backends, in the sdist and in the wheel built from
it: `run_skill_script` runs a non-Python script only when its installed file has the bit."""

from __future__ import annotations

import os
import tarfile
import zipfile

import pytest
from support.builds import build
from support.projects import ProjectFactory

pytestmark = pytest.mark.slow

SCRIPT = "pdf-tools/scripts/extract.py"
DOC = "pdf-tools/reference.md"


@pytest.mark.parametrize("name", ["hatch-src", "setuptools-src"])
def test_the_executable_bit_ships_in_sdist_and_wheel(name: str, project: ProjectFactory) -> None:
    root = project(name)
    os.chmod(root / "skills" / SCRIPT, 0o755)
    os.chmod(root / "skills" / DOC, 0o644)
    result = build(root)
    assert result.returncode == 0, result.output

    with tarfile.open(result.sdist) as sdist:
        in_sdist = {m.name.split("/skills/", 1)[-1]: m.mode & 0o111 for m in sdist.getmembers() if m.isfile()}
    with zipfile.ZipFile(result.wheel) as wheel:
        in_wheel = {  # <package>/_flue_skills/skills/<id>/<path>
            info.filename.split("/", 4)[4]: (info.external_attr >> 16) & 0o111
            for info in wheel.infolist()
            if "/_flue_skills/skills/" in info.filename
        }
    assert in_sdist[SCRIPT] and not in_sdist[DOC]
    assert in_wheel[SCRIPT.split("/", 1)[1]] and not in_wheel[DOC.split("/", 1)[1]], in_wheel
