"""Limits: frontmatter size, files per skill, bundle size. Defaults, `[tool.flue]` overrides,
clear errors, and the same answer from `flue-skills check`, real builds and dev mode."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from hostile_support import BACKENDS, build_wheel, run, use_backend
from support.projects import write_skill

from flue_runtime.errors import ConfigError
from flue_runtime.format.config import load_config
from flue_runtime.format.frontmatter import FRONTMATTER_LIMIT
from flue_runtime.format.skill_folder import vet_skill
from flue_runtime.format.vetting import (
    DEFAULT_LIMITS,
    MAX_BUNDLE_SIZE,
    MAX_SKILL_FILES,
    Limits,
    format_size,
    parse_size,
)

CLI = [sys.executable, "-m", "flue_build"]
MIB = 1024 * 1024


def test_defaults() -> None:
    assert DEFAULT_LIMITS == Limits(64 * 1024, 10_000, 100 * MIB)
    assert (FRONTMATTER_LIMIT, MAX_SKILL_FILES, MAX_BUNDLE_SIZE) == (65536, 10000, 104857600)


@pytest.mark.parametrize(
    ("text", "size"),
    [
        (1024, 1024),
        ("1024", 1024),
        ("64 KiB", 65536),
        ("100 MiB", 100 * MIB),
        ("1.5 GiB", 1536 * MIB),
        ("2mib", 2 * MIB),
        ("512 B", 512),
    ],
)
def test_sizes_read_and_written(text: object, size: int) -> None:
    assert parse_size(text) == size
    assert parse_size(format_size(size)) == size


@pytest.mark.parametrize(("text", "size"), [("10 MB", 10_000_000), ("250kB", 250_000), ("1 GB", 10**9), ("3 kb", 3000)])
def test_decimal_units_are_read_as_powers_of_1000(text: str, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("bad", [True, "big", "10 XB", "10 Mi", "-1", "1e6", None, 1.5, [1]])
def test_sizes_refused(bad: object) -> None:
    assert parse_size(bad) is None


def limit_skill(folder: Path, frontmatter: str = "", files: dict[str, str | bytes] | None = None) -> Path:
    return write_skill(folder, "A skill for the limit tests.", f"# {folder.name}\n", files, frontmatter=frontmatter)


#: 70 KB of metadata: over the default frontmatter limit.
BIG_FRONTMATTER = "metadata:\n" + "".join(f"  key{i}: {'v' * 60}\n" for i in range(1000))


def make_project(root: Path) -> Path:
    """Four skills, each at one limit: a 70 KB frontmatter, 30 files, and two of 1.5 MiB each."""
    skills = root / "skills"
    limit_skill(skills / "big-front", BIG_FRONTMATTER)
    limit_skill(skills / "many", files={f"f{i:02d}.md": b"x\n" for i in range(29)})  # 30 with SKILL.md
    limit_skill(skills / "heavy-a", files={"data.bin": os.urandom(3 * MIB // 2)})
    limit_skill(skills / "heavy-b", files={"data.bin": os.urandom(3 * MIB // 2)})
    package = root / "src" / "limits_demo"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    for name in ("big-front", "many", "heavy-a", "heavy-b"):
        module = name.replace("-", "_")
        (package / f"{module}.py").write_text(
            f"from flue_runtime import skill\n\nSKILL = skill('../../skills/{name}/SKILL.md')\n"
        )
    use_backend(root, "hatchling")
    return root


TIGHT = '\nmax-frontmatter-size = "128 KiB"\nmax-skill-files = 20\nmax-bundle-size = "2 MiB"\n'
ROOMY = '\nmax-frontmatter-size = "128 KiB"\nmax-skill-files = 50\nmax-bundle-size = "10 MiB"\n'


def configure(project: Path, backend: str, limits: str) -> None:
    use_backend(project, backend)
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + limits)


DEV_PROBE = textwrap.dedent(
    """\
    import importlib, json
    from flue_runtime import SkillError
    out = {}
    for name in ("big_front", "many", "heavy_a", "heavy_b"):
        try:
            module = importlib.import_module("limits_demo." + name)
        except SkillError as exc:
            out[name] = sorted({d.code for d in exc.diagnostics if d.is_error})
        else:
            out[name] = module.SKILL.instructions.splitlines()[0]
    print(json.dumps(out))
    """
)


def dev_mode(project: Path) -> dict[str, object]:
    proc = run([sys.executable, "-c", DEV_PROBE], project, {**os.environ, "PYTHONPATH": str(project / "src")})
    assert proc.returncode == 0, proc.stderr
    result: dict[str, object] = json.loads(proc.stdout)
    return result


def check(project: Path) -> tuple[int, set[tuple[str, str]]]:
    """`flue-skills check PROJECT`: exit status and (skill or file, code) of every error."""
    proc = run([*CLI, "check", "--format", "json", "."], project)
    assert "Traceback" not in proc.stderr, proc.stderr
    errors = [d for d in json.loads(proc.stdout) if d["severity"] == "error"]
    return proc.returncode, {
        (d["path"].split("/")[1] if d["path"].startswith("skills/") else d["path"], d["code"]) for d in errors
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "limits-demo")


def test_defaults_refuse_the_big_frontmatter_only(project: Path) -> None:
    returncode, found = check(project)
    assert returncode == 1 and found == {("big-front", "FLU105")}
    assert dev_mode(project) == {
        "big_front": ["FLU105"],
        "many": "# many",
        "heavy_a": "# heavy-a",
        "heavy_b": "# heavy-b",
    }


@pytest.mark.slow
@pytest.mark.parametrize("backend", list(BACKENDS))
def test_tight_limits_refuse_in_the_build_and_in_dev_mode(project: Path, backend: str, tmp_path: Path) -> None:
    configure(project, backend, TIGHT)
    built = build_wheel(project, tmp_path / "out")
    assert built.returncode != 0
    assert "skills/many: FLU310 error: more than 20 files in one skill" in built.output
    assert re.search(
        r"^pyproject.toml: FLU311 error: the skill bundles of this build add up to 3\.\d MiB, over the 2 MiB limit$",
        built.output,
        re.M,
    )
    assert "hint: largest: skills/heavy-a (1.5 MiB), skills/heavy-b (1.5 MiB)" in built.output
    assert "FLU105" not in built.output  # 128 KiB lets the big frontmatter through
    assert built.wheels == [] and list(built.tmpdir.iterdir()) == []
    assert check(project) == (1, {("many", "FLU310"), ("pyproject.toml", "FLU311")})
    # Dev mode vets one skill at a time: each heavy skill fits 2 MiB on its own.
    assert dev_mode(project) == {
        "big_front": "# big-front",
        "many": ["FLU310"],
        "heavy_a": "# heavy-a",
        "heavy_b": "# heavy-b",
    }


@pytest.mark.slow
@pytest.mark.parametrize("backend", list(BACKENDS))
def test_roomy_limits_let_everything_through(project: Path, backend: str, tmp_path: Path) -> None:
    configure(project, backend, ROOMY)
    built = build_wheel(project, tmp_path / "out")
    assert built.returncode == 0, built.output[-2000:]
    assert len(built.wheels) == 1
    assert check(project)[0] == 0
    assert dev_mode(project) == {
        "big_front": "# big-front",
        "many": "# many",
        "heavy_a": "# heavy-a",
        "heavy_b": "# heavy-b",
    }


def test_one_skill_over_the_bundle_limit_is_refused_in_dev_mode_too(project: Path) -> None:
    configure(project, "hatchling", '\nmax-bundle-size = "1 MiB"\nmax-frontmatter-size = "128 KiB"\n')
    found = dev_mode(project)
    assert found["heavy_a"] == found["heavy_b"] == ["FLU311"]
    assert check(project) == (1, {("heavy-a", "FLU311"), ("heavy-b", "FLU311")})  # each skill, not the total again


def test_bad_limit_values_fail_with_every_key_named(project: Path) -> None:
    configure(
        project,
        "hatchling",
        '\nmax-frontmatter-size = "huge"\nmax-skill-files = 0\nmax-bundle-size = true\nmax-files = 3\n',
    )
    with pytest.raises(ConfigError) as caught:
        load_config(project)
    assert [p.split(":")[0] for p in caught.value.problems] == [
        "tool.flue.max-files",
        "tool.flue.max-frontmatter-size",
        "tool.flue.max-skill-files",
        "tool.flue.max-bundle-size",
    ]
    assert "did you mean `max-skill-files`?" in caught.value.problems[0]
    proc = run([*CLI, "check", "."], project)
    assert proc.returncode == 1 and "tool.flue.max-skill-files: must be a whole number, at least 1" in proc.stderr


# --- bounded work: what is over a limit is not read ------------------------------------------

UNPRIVILEGED_VET = textwrap.dedent(
    """\
    import json, sys
    from pathlib import Path
    from flue_runtime.format.vetting import Limits
    from flue_runtime.format.skill_folder import vet_skill
    limits = Limits(skill_files=int(sys.argv[2]), bundle_size=int(sys.argv[3]))
    vetted = vet_skill(Path(sys.argv[1]), display="s", limits=limits)
    print(json.dumps(sorted((d.path, d.code) for d in vetted.diagnostics)))
    """
)


def vet_unprivileged(folder: Path, skill_files: int, bundle_size: int) -> list[list[str]]:
    """vet_skill as a user without root's permission override: a file it tries to read and cannot is FLU308."""
    proc = run([sys.executable, "-c", UNPRIVILEGED_VET, str(folder), str(skill_files), str(bundle_size)], folder)
    assert proc.returncode == 0, proc.stderr
    found: list[list[str]] = json.loads(proc.stdout)
    return found


@pytest.fixture
def sealed_skill() -> Iterator[Path]:
    """A skill readable by anyone but for `zz-sealed.bin` (mode 000), which sorts after the other files."""
    base = Path(tempfile.mkdtemp(prefix="flue-limits-"))
    base.chmod(0o755)
    skill = limit_skill(base / "sealed", files={f"f{i}.md": b"x" * 100 for i in range(5)})
    with open(skill / "zz-sealed.bin", "wb") as handle:
        handle.truncate(4 * 1024**3)  # 4 GiB, sparse: reading it would take seconds and cost nothing on disk
    (skill / "zz-sealed.bin").chmod(0)
    yield skill
    (skill / "zz-sealed.bin").unlink()
    shutil.rmtree(base)


def test_the_control_the_sealed_file_is_read_and_refused_without_limits(sealed_skill: Path) -> None:
    assert vet_unprivileged(sealed_skill, 100, 8 * 1024**3) == [["s/zz-sealed.bin", "FLU308"]]


def test_a_file_over_the_size_limit_is_never_opened(sealed_skill: Path) -> None:
    assert vet_unprivileged(sealed_skill, 100, MAX_BUNDLE_SIZE) == [["s", "FLU311"]]


def test_files_past_the_count_limit_are_never_opened(sealed_skill: Path) -> None:
    assert vet_unprivileged(sealed_skill, 6, 8 * 1024**3) == [["s", "FLU310"]]


def test_a_limit_hit_keeps_the_skill_md_diagnosis_honest(tmp_path: Path) -> None:
    """The walk may stop before SKILL.md (sorted after `A-...` files): no false "SKILL.md missing"."""
    skill = limit_skill(tmp_path / "early", files={f"A{i}.md": b"x" for i in range(5)})
    vetted = vet_skill(skill, display="s", limits=Limits(skill_files=3))
    assert [(d.path, d.code) for d in vetted.diagnostics] == [("s", "FLU310")]
    assert not vetted.ok
