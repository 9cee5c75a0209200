"""Two real distributions in one virtual environment: acme-skills publishes skills with `[tool.flue] exports`
(built by hatchling and by setuptools), acme-app uses them through package specs (built by setuptools).

The consumer's build refuses a spec the producer does not export, with the exports in the hint; with
exported specs only it builds, installs and resolves at run time; a reference its build never saw
(the installed module edited by hand) is refused at run time in the same words. `ls` and the
TARGET of `export` see what the producer ships, and a run time from before exports still reads it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import textwrap
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from support import envs, procs, site
from support.builds import EPOCH, Result, build, sdist_names
from support.envs import clean_env, make_venv
from support.paths import ROOT
from support.projects import copy_project

pytestmark = pytest.mark.slow  # real builds, venvs or pip: seconds each

#: The last commit of main before exports existed: its run time is the "older run time".
BEFORE_EXPORTS = "f6ada6deec722d456c47e92ffba9fda65d68ba7e"
EXPORTS = ["acme_skills/docs/style.md", "acme_skills/review/SKILL.md"]


def as_setuptools(project: Path) -> None:
    """The same producer, built by setuptools with the flue-skills plugin."""
    path = project / "pyproject.toml"
    text = path.read_text()
    text = text.replace(
        'requires = ["hatchling>=1.24", "hatch-flue-skills"]\nbuild-backend = "hatchling.build"',
        'requires = ["setuptools>=77", "flue-skills"]\nbuild-backend = "setuptools.build_meta"',
    ).replace("[tool.hatch.build.hooks.flue-skills]\n", '[tool.setuptools]\npackages = ["acme_skills"]\n')
    assert "hatch" not in text
    path.write_text(text)


@dataclass
class Producer:
    backend: str
    project: Path
    built: Result


@pytest.fixture(scope="module", params=["hatchling", "setuptools"])
def producer(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Producer:
    project = copy_project("exports-producer", tmp_path_factory.mktemp("producer") / "exports-producer")
    if request.param == "setuptools":
        as_setuptools(project)
    built = build(project)  # the sdist, then the wheel from the sdist
    assert built.returncode == 0, built.output
    return Producer(request.param, project, built)


def run(python: Path, *args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    """`python ARGS` in a child that sees nothing of this environment's Python settings."""
    return procs.run([str(python), *args], cwd=cwd, env=clean_env(SOURCE_DATE_EPOCH=EPOCH), check=check)


def install(python: Path, *wheels: Path) -> None:
    envs.install(*map(str, wheels), into=python, cwd=wheels[0].parent)


def build_in(python: Path, project: Path) -> Result:
    """The consumer built inside the venv that has the producer installed (its build environment)."""
    return build(project, "--wheel", python=python, base_env=clean_env())


def test_the_producer_ships_what_it_exports(producer: Producer) -> None:
    with zipfile.ZipFile(producer.built.wheel) as wheel:
        names = set(wheel.namelist())
        manifest = json.loads(wheel.read("acme_skills/_flue_skills/manifest.json"))
    assert manifest["exports"] == EXPORTS and manifest["format"] == 2
    refs = manifest["references"]["acme_skills"]
    review, internal = refs["acme_skills/review/SKILL.md"]["skill"], refs["./internal/SKILL.md"]["skill"]
    # review: never referenced by the producer's code, bundled because it is exported
    assert f"acme_skills/_flue_skills/skills/{review}/references/checklist.md" in names
    assert f"acme_skills/_flue_skills/skills/{internal}/SKILL.md" in names
    assert not any(n.startswith(("acme_skills/review/", "acme_skills/internal/", "acme_skills/docs/")) for n in names)
    members = sdist_names(producer.built.sdist)
    assert {"acme_skills/review/references/checklist.md", "acme_skills/docs/style.md"} <= members


def test_a_consumer_in_one_environment_with_the_producer(producer: Producer, tmp_path: Path) -> None:
    python = make_venv(tmp_path / "venv")
    install(python, producer.built.wheel)
    consumer = copy_project("exports-consumer", tmp_path / "exports-consumer")

    refused = build_in(python, consumer)
    assert refused.returncode != 0
    assert readme_flu413() in refused.output  # the publishing guide shows the real message
    assert not list((consumer / "dist").glob("*.whl"))

    (consumer / "acme_app" / "triage.py").unlink()
    built = build_in(python, consumer)
    assert built.returncode == 0, built.output
    [wheel] = (consumer / "dist").glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        refs = json.loads(archive.read("acme_app/_flue_skills/manifest.json"))["references"]["acme_app.agent"]
    assert refs == {
        "acme_skills/docs/style.md": {"package": "acme_skills/docs/style.md"},
        "acme_skills/review/SKILL.md": {"package": "acme_skills/review/SKILL.md"},
    }
    install(python, wheel)
    used = run(
        python,
        "-c",
        textwrap.dedent("""\
        from acme_app.agent import REVIEW, STYLE
        print(REVIEW.name, REVIEW.resources, REVIEW.origin)
        print(REVIEW.read_text("references/checklist.md").splitlines()[0])
        print(STYLE.splitlines()[0])
        """),
        cwd=tmp_path,
    )
    assert used.stdout.splitlines() == [
        f"review ('references/checklist.md',) acme_skills/_flue_skills/skills/{review_id(producer)} (bundled in 'acme_skills')",
        "- [ ] tests cover the change",
        "# House style",
    ]

    # A reference the consumer's build never saw: its installed module edited by hand.
    agent = Path(run(python, "-c", "import acme_app.agent as m; print(m.__file__)", cwd=tmp_path).stdout.strip())
    agent.write_text(agent.read_text() + 'TRIAGE = skill("acme_skills/internal/SKILL.md")\n')
    edited = run(
        python,
        "-c",
        textwrap.dedent("""\
        from flue_runtime.errors import SkillNotFoundError
        try:
            import acme_app.agent
        except SkillNotFoundError as exc:
            print(exc.spec, exc.exports)
            print(exc)
        """),
        cwd=tmp_path,
    )
    spec_line, message = edited.stdout.splitlines()
    assert spec_line == f"acme_skills/internal/SKILL.md {tuple(EXPORTS)!r}"
    assert message.startswith("skill('acme_skills/internal/SKILL.md') in module 'acme_app.agent' (")
    assert message.endswith(
        "`acme_skills/internal/SKILL.md` is not exported: the distribution providing `acme_skills` declares "
        "[tool.flue] exports; it exports acme_skills/docs/style.md, acme_skills/review/SKILL.md; use one of those, "
        "or ask its maintainers to list the spec in their [tool.flue] exports"
    )

    listed = json.loads(run(python, "-m", "flue_build", "ls", "acme-skills", "--format", "json", cwd=tmp_path).stdout)
    assert {s["name"]: s["exports"] for s in listed} == {"internal": [], "review": ["acme_skills/review/SKILL.md"]}
    text = run(python, "-m", "flue_build", "ls", "acme_skills", cwd=tmp_path).stdout
    assert text.splitlines()[-2:] == [
        "2 skills in acme_skills",
        "exported for other packages: acme_skills/review/SKILL.md (review)",
    ]
    assert json.loads(run(python, "-m", "flue_build", "ls", "acme_app", "--format", "json", cwd=tmp_path).stdout) == []

    # The TARGET of `mcp` and `export`: the package's skills, the exported one among them.
    out = tmp_path / "exported"
    run(python, "-m", "flue_build", "export", "acme-skills", str(out), cwd=tmp_path)
    assert sorted(p.name for p in out.iterdir()) == ["internal", "review"]
    checklist = producer.project / "acme_skills" / "review" / "references" / "checklist.md"
    assert (out / "review" / "references" / "checklist.md").read_bytes() == checklist.read_bytes()


def readme_flu413() -> str:
    """The FLU413 report the publishing guide shows."""
    section = site.section("guides/publishing.md", "## Publishing skills for other packages")
    fenced = re.findall(r"^( *)```\w*\n(.*?)^\1```$", section, re.DOTALL | re.MULTILINE)
    [shown] = [block for _, block in fenced if "FLU413" in block]
    text = textwrap.dedent(shown).strip("\n")
    assert text.startswith("acme_app/triage.py:5:16: FLU413 error: `acme_skills/internal/SKILL.md` is not exported")
    assert "hint: it exports acme_skills/docs/style.md, acme_skills/review/SKILL.md;" in text
    return text


def review_id(producer: Producer) -> str:
    """The content id of the exported skill in the producer's wheel."""
    with zipfile.ZipFile(producer.built.wheel) as wheel:
        refs = json.loads(wheel.read("acme_skills/_flue_skills/manifest.json"))["references"]["acme_skills"]
    return str(refs["acme_skills/review/SKILL.md"]["skill"])


def test_a_run_time_from_before_exports_reads_the_manifest(producer: Producer, tmp_path: Path) -> None:
    """A compatible extension: format 2 still; an older reader resolves the exported skill (it does not
    enforce the list; the consumer's build did)."""
    old = tmp_path / "old"
    old.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", BEFORE_EXPORTS, "flue_runtime"], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
    assert "exports" not in (old / "flue_runtime" / "format" / "manifest.py").read_text()
    python = make_venv(tmp_path / "venv")
    install(python, producer.built.wheel)
    env = {"PYTHONPATH": str(old)}
    proc = subprocess.run(
        [
            str(python),
            "-c",
            textwrap.dedent("""\
            import flue_runtime
            from flue_runtime import skill, markdown
            review = skill("acme_skills/review/SKILL.md")
            print(flue_runtime.__file__)
            print(review.name, review.read_text("references/checklist.md").splitlines()[0])
            print(markdown("acme_skills/docs/style.md").splitlines()[0])
            """),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, **env},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        str(old / "flue_runtime" / "__init__.py"),
        "review - [ ] tests cover the change",
        "# House style",
    ]
