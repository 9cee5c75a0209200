"""One test body, three setups: an installed wheel, a zipped wheel on sys.path, an editable install.

The fixture packages (fixtures/projects/runtime-agent, built by hatchling with the hook,
and runtime-lib, built by setuptools with the plugin) are built once per session; each
setup runs tests/runtime/probe.py and must see the same skills, byte for byte, as the
fixture sources hold.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from rtsetups import AGENT, LIB, SETUPS, Builds, Setup
from support.builds import build_wheel
from support.envs import install, make_venv
from support.paths import PROJECTS
from support.projects import copy_project

from flue_runtime.format.skill_folder import vet_skill
from flue_runtime.format.validate import check_skill_md

pytestmark = pytest.mark.slow  # the run-time setups: built wheels, installed into fresh venvs

BILLING = PROJECTS / AGENT / "src" / "runtime_agent_demo" / "skills" / "billing"
DATA = PROJECTS / AGENT / "skills" / "data-tools"
REVIEW = PROJECTS / LIB / "acme_review_skills" / "review"


def expected_skill(folder: Path, allow: tuple[Path, ...] = ()) -> dict[str, Any]:
    """What every setup must show for the skill at `folder`: computed from the sources alone."""
    vetted = vet_skill(folder, allow=allow)
    assert vetted.ok and vetted.metadata is not None, vetted.diagnostics
    fields = vetted.metadata
    body = check_skill_md((folder / "SKILL.md").read_bytes(), "SKILL.md", folder.name).body
    return {
        "name": fields.name,
        "description": fields.description,
        "license": fields.license,
        "compatibility": fields.compatibility,
        "metadata": dict(fields.metadata),
        "allowed_tools": (fields.allowed_tools or "").split(),
        "instructions": body,
        "resources": [f.path for f in vetted.files if f.path != "SKILL.md"],
        "files": {
            f.path: [f.size, f.sha256, folder.joinpath(*f.path.split("/")).read_bytes().hex()] for f in vetted.files
        },
        "id": vetted.id,
    }


def expected_markdown(path: Path) -> str:
    return path.read_bytes().decode("utf-8").removeprefix("\ufeff")


@pytest.mark.parametrize("setup", SETUPS)
def test_every_setup_sees_the_same_skills_byte_for_byte(setup: str, probes: dict[str, dict[str, Any]]) -> None:
    seen = probes[setup]
    billing = expected_skill(BILLING, allow=(BILLING / ".env.example",))
    assert billing["resources"] == [".env.example", "data/rates.csv", "policy.md"]
    assert "\r\n" in billing["instructions"] and billing["metadata"] == {"team": "payments", "version": "1.0"}
    assert seen["skills"] == {
        "runtime_agent_demo.BILLING": billing,
        "support.BILLING": billing,
        "support.again()": billing,
        "support.DATA": expected_skill(DATA),
        "support.REVIEW": expected_skill(REVIEW),
        "acme_review_skills.REVIEW": expected_skill(REVIEW),
        "acme_review_skills.by_package.REVIEW": expected_skill(REVIEW),
    }
    assert seen["markdown"] == {
        "runtime_agent_demo.SYSTEM": expected_markdown(BILLING.parents[1] / "prompts" / "system.md"),
        "support.CHECKLIST": expected_markdown(REVIEW.parent / "docs" / "checklist.md"),
        "acme_review_skills.CHECKLIST": expected_markdown(REVIEW.parent / "docs" / "checklist.md"),
    }
    assert seen["same"] == [True, True, True, True]
    assert seen["errors"] == {
        "unknown package": "SkillNotFoundError",
        "no /SKILL.md": "MountError",
        "markdown not .md": "MountError",
        "read ..": "SkillPathError",
        "read absolute": "SkillPathError",
        "read backslash": "SkillPathError",
        "read NUL": "SkillPathError",
        "read %2e%2e": "SkillPathError",
        "read missing": "SkillNotFoundError",
    }
    bundled = not setup.startswith("editable")
    for key, origin in seen["origins"].items():
        assert ("(bundled in" in origin) == bundled, (key, origin)
        assert origin.endswith("(from disk)") == (not bundled), (key, origin)


def test_all_setups_agree(probes: dict[str, dict[str, Any]]) -> None:
    comparable = [{k: v for k, v in probe.items() if k not in ("origins", "heavy")} for probe in probes.values()]
    assert all(c == comparable[0] for c in comparable)


@pytest.mark.parametrize("setup", ["wheel", "zip"])
def test_bundled_skills_need_no_yaml_nor_jsonschema(
    setup: str, setups: dict[str, Setup], probes: dict[str, dict[str, Any]]
) -> None:
    assert probes[setup]["heavy"] == []
    # Not merely left unimported: these setups do not have them at all.
    missing = setups[setup].code(
        "import importlib.util as u; print([m for m in ('yaml', 'jsonschema') if u.find_spec(m)])"
    )
    assert missing.stdout.strip() == "[]"


def test_zip_setup_really_imports_from_the_wheels(setups: dict[str, Setup]) -> None:
    out = setups["zip"].code(
        "import runtime_agent_demo, acme_review_skills as a; print(runtime_agent_demo.__file__); print(a.__file__)"
    )
    agent_file, lib_file = out.stdout.split()
    assert ".whl/runtime_agent_demo/" in agent_file and ".whl/acme_review_skills/" in lib_file


EDITS = {
    # setup, project: the SKILL.md edited, the reference held, a new resolution, the text replaced
    "hatchling .pth": (
        "editable",
        AGENT,
        "src/runtime_agent_demo/skills/billing/SKILL.md",
        "support.BILLING",
        "support.again()",
        "policy.md` first",
        "policy.md` twice",
    ),
    "setuptools finder": (
        "editable",
        LIB,
        "acme_review_skills/review/SKILL.md",
        "acme_review_skills.REVIEW",
        "flue_runtime.skill('acme_review_skills/review/SKILL.md')",
        "file by file",
        "hunk by hunk",
    ),
    "setuptools strict": (
        "editable-strict",
        LIB,
        "acme_review_skills/review/SKILL.md",
        "acme_review_skills.REVIEW",
        "flue_runtime.skill('acme_review_skills/review/SKILL.md')",
        "file by file",
        "hunk by hunk",
    ),
}


@pytest.mark.parametrize("case", EDITS)
def test_editable_edits_show_without_reinstalling_and_new_secrets_are_refused(
    case: str, setups: dict[str, Setup]
) -> None:
    setup_name, project, relative, held, resolve, old, new = EDITS[case]
    setup = setups[setup_name]
    skill_md = setup.projects[project].joinpath(*relative.split("/"))
    secret = skill_md.parent / ".env"
    script = textwrap.dedent(
        f"""
        import json, os, pathlib
        import flue_runtime
        import acme_review_skills
        from runtime_agent_demo.agents import support
        skill_md = pathlib.Path({str(skill_md)!r})
        ref = {held}
        out = {{"before": ref.instructions}}
        original = skill_md.read_bytes()
        try:
            skill_md.write_bytes(original.replace({old.encode()!r}, {new.encode()!r}))
            os.utime(skill_md, ns=(1, 1))
            out["after"] = ref.instructions
            out["fresh"] = {resolve}.instructions
            pathlib.Path({str(secret)!r}).write_text("TOKEN=1\\n")
            try:
                {resolve}
                out["secret"] = "no error"
            except flue_runtime.SkillError as exc:
                out["secret"] = [d.code for d in exc.diagnostics if d.is_error]
                out["message"] = str(exc)
        finally:
            skill_md.write_bytes(original)
            pathlib.Path({str(secret)!r}).unlink(missing_ok=True)
        print(json.dumps(out))
        """
    )
    out = json.loads(setup.code(script).stdout)
    assert old in out["before"]
    assert new in out["after"] and new in out["fresh"]
    assert out["secret"] == ["FLU302"]
    assert ".env" in out["message"] and skill_md.parent.name in out["message"]


@pytest.mark.slow
def test_a_wheel_built_without_the_hook_says_how_to_add_it(builds: Builds, tmp_path: Path) -> None:
    project = copy_project(AGENT, tmp_path / "nohook")
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    text = text.replace(', "hatch-flue-skills"', "").replace("[tool.hatch.build.hooks.flue-skills]\n", "")
    pyproject.write_text(
        text.replace("[tool.flue]\n", "").replace(
            'allow = ["src/runtime_agent_demo/skills/billing/.env.example"]\n', ""
        )
    )
    wheel = build_wheel(project, tmp_path / "dist")
    python = make_venv(tmp_path / "venv", see_dev_env=False)
    install(str(builds.flue), into=python, cwd=tmp_path)
    setup = Setup("nohook", python, tmp_path, [wheel, builds.lib])
    out = setup.code("import runtime_agent_demo", check=False)
    assert out.returncode == 1
    assert (
        "\nflue_runtime.errors.SkillNotFoundError: skill('./skills/billing/SKILL.md') in module 'runtime_agent_demo'"
        in out.stderr
    )
    for words in (
        "built without the flue-skills build hook",
        "[tool.hatch.build.hooks.flue-skills]",
        "requires",
        "[tool.flue]",
    ):
        assert words in out.stderr
