"""Real builds and the secrets scan (issue 32, points 2 to 5): each family of what the scan now sees, planted in
a skill folder at run time, fails a hatchling and a setuptools build of the wheel and of the sdist, named with
its code, and no artifact is left; what is no secret (a `.env` template of placeholders, a page showing the
structure every OpenSSH key starts with) ships in both artifacts of both backends."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from support.builds import build, build_summary, sdist_names, wheel_files
from support.hostile import planted
from support.projects import ProjectFactory

pytestmark = pytest.mark.slow  # real builds: seconds each

SKILLS = {
    "hatch-src": "src/hatch_src_demo/skills/refunds",
    "setuptools-src": "src/setuptools_src_demo/skills/refunds",
}


def refused_files() -> dict[str, tuple[str, str]]:
    """Each family's planted file (made now, from a seed): its path in the skill, its text, the code it gets."""
    rng = random.Random(32)
    key = planted.shaped_pem(rng)  # a key's shape with random material: the scan cannot tell it from a real one
    return {
        # point 2: a key in a container the scan did not undo
        "page.html": (planted.CONTAINERS["HTML, one <div> a line"](key), "FLU303"),
        "keys.json": (planted.CONTAINERS["JSON array of its lines"](key), "FLU303"),
        # point 3: a token where it did not look
        "clone.sh": (planted.PLACED["a URL's user name"](planted.TOKENS["GitHub token"](rng)), "FLU315"),
        "deploy/registry.yaml": (
            planted.PLACED["a Kubernetes Secret (base64)"](planted.TOKENS["PyPI upload token"](rng)),
            "FLU315",
        ),
        # point 4: credential files by name
        ".boto": ("[Credentials]\naws_access_key_id = x\n", "FLU302"),
        "infra/terraform.tfstate": ('{"version": 4}\n', "FLU302"),
        # point 5's other side: a template holding a value is still refused
        ".env.example": ("PORT=8080\nDEPLOY_SECRET_KEY=" + planted._random(rng, planted.ALNUM, 30) + "a1\n", "FLU302"),
    }


SHIPPED = {
    ".env.example": "# copy to .env\nOPENAI_API_KEY=\nGITHUB_TOKEN=your-github-token\nJWT_SECRET=change-me\nPORT=8080\n",
    "docs/ssh.md": "# SSH keys\n\nA key file starts like this:\n\n"
    + planted.PROSE["the first line of an Ed25519 OpenSSH key"],
}


def write(folder: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text, encoding="utf-8")


@pytest.mark.parametrize("artifact", ["wheel", "sdist"])
@pytest.mark.parametrize("name", list(SKILLS))
def test_every_family_is_refused_by_both_backends_in_both_artifacts(
    name: str, artifact: str, project: ProjectFactory, tmp_path: Path
) -> None:
    tree = project(name)
    planted_here = refused_files()
    write(tree / SKILLS[name], {path: text for path, (text, _) in planted_here.items()})
    result = build(tree, f"--{artifact}", outdir=tmp_path / "out")
    assert result.returncode != 0, result.output[-3000:]
    for path, (_, code) in planted_here.items():
        shown = re.escape(f"{SKILLS[name]}/{path}")
        assert re.search(rf"^{shown}(?::\d+:\d+)?: {code} error", result.output, re.MULTILINE), (path, code)
    assert "error" in build_summary(result.output)
    assert result.wheels == [] and result.sdists == []


@pytest.mark.parametrize("name", list(SKILLS))
def test_a_template_of_placeholders_and_a_key_s_first_line_ship(
    name: str, project: ProjectFactory, tmp_path: Path
) -> None:
    tree = project(name)
    write(tree / SKILLS[name], SHIPPED)
    result = build(tree, outdir=tmp_path / "out")  # the sdist, then the wheel from it
    assert result.returncode == 0, result.output[-3000:]
    in_wheel, in_sdist = wheel_files(result.wheel), sdist_names(result.sdist)
    for path, text in SHIPPED.items():
        [member] = [member for member in in_wheel if "/_flue_skills/" in member and member.endswith(f"/{path}")]
        assert in_wheel[member] == text.encode()
        assert f"{SKILLS[name]}/{path}" in in_sdist, path
