"""Helpers of the hostile-input tests: the corpus (fixtures/hostile) made into two real projects.

`refused`: a package with one module per refused case, each calling `skill()` on its case
folder under `.agents/skills/` (so the same folders are also workspace skills);
`accepted`: the same for the cases flue-skills accepts. Everything that could meet an
unreadable file runs as root *without* root's permission override (see `unprivileged`),
the way any other user meets it, and under a timeout: a hang fails the test.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import subprocess
import sys
import tarfile
import textwrap
import zipfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from support import builds, procs
from support.builds import Result
from support.hostile import artifacts, corpus
from support.projects import PYPROJECTS, pyproject

#: Every subprocess here is bounded: a hang is a failure, not a stuck CI run.
TIMEOUT = 300
BACKENDS = PYPROJECTS
#: A build of the corpus: `tmpdir`, the build's TMPDIR, must be empty after it.
Built = Result
REFUSED = [case for case in corpus.CASES if not case.accepted]
ACCEPTED = [case for case in corpus.CASES if case.accepted]
PR_CAPBSET_DROP = 24
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 1, 2


def unprivileged() -> None:
    """In a child before exec: drop root's permission override (its capability bounding set),
    so file modes apply to the program as they do to any user. A no-op for a normal user."""
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")


def run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`command` without root's permission override, bounded by TIMEOUT."""
    return procs.run(command, cwd=cwd, env=env, check=False, timeout=TIMEOUT, preexec_fn=unprivileged)


def module_source(case: corpus.Case) -> str:
    return textwrap.dedent(
        f"""\
        from flue_runtime import skill

        SKILL = skill({f"../../.agents/skills/{case.folder}/SKILL.md"!r})
        """
    )


def make_project(root: Path, cases: list[corpus.Case], backend: str = "hatchling") -> Path:
    package = root / "src" / "hostile_demo"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('"""A package referencing the hostile corpus."""\n')
    for case in cases:
        (package / f"{case.module}.py").write_text(module_source(case), encoding="utf-8")
    use_backend(root, backend)
    corpus.make(root / ".agents" / "skills", [case.folder for case in cases])
    return root


def use_backend(root: Path, backend: str) -> None:
    """The backend's pyproject.toml for the one package under `root/src`."""
    [package] = [p.name for p in (root / "src").iterdir() if (p / "__init__.py").is_file()]
    (root / "pyproject.toml").write_text(pyproject(backend, package))


def build_wheel(project: Path, out: Path, backend: str | None = None) -> Built:
    """`python -m build --wheel` (no isolation: the dev environment's backends and hook), unprivileged, bounded.

    With `backend`, the project's pyproject.toml is first rewritten for it."""
    if backend is not None:
        use_backend(project, backend)
    return build(project, out, "--wheel")


def build(project: Path, out: Path, *args: str) -> Built:
    """`python -m build --no-isolation ARGS` (by default an sdist, then a wheel built from it; `PIP_WHEEL`:
    `pip wheel` of the tree), unprivileged and bounded; the artifacts land in `out/dist`, its
    temporary files in `out/tmp`."""
    (out / "dist").mkdir(parents=True)
    if args == PIP_WHEEL:
        return builds.pip_wheel(
            project, outdir=out / "dist", tmpdir=out / "tmp", timeout=TIMEOUT, preexec_fn=unprivileged
        )
    return builds.build(
        project, *args, outdir=out / "dist", tmpdir=out / "tmp", timeout=TIMEOUT, preexec_fn=unprivileged
    )


@dataclass
class LeakBuilds:
    """One `fixtures/hostile/artifacts.py` project for one backend, and its builds by name."""

    tree: Path
    builds: dict[str, Built]
    #: Files put into the tree after the first builds (path in the tree → bytes).
    seeded: dict[str, bytes] = field(default_factory=dict)


#: The arguments that stand for `pip wheel` of the tree rather than `python -m build`.
PIP_WHEEL = ("pip", "wheel")
#: Every way a route test builds: a wheel from the tree (`python -m build --wheel`, `pip wheel`),
#: an sdist, and an sdist then a wheel built from it.
EVERY_WAY = {"wheel": ("--wheel",), "pip-wheel": PIP_WHEEL, "sdist": ("--sdist",), "from-sdist": ()}
#: project → the builds each gets: name → `python -m build` arguments (or `PIP_WHEEL`).
LEAK_BUILDS = {
    "shipped": {"from-sdist": (), "direct": ("--wheel",)},
    "refused": {"sdist": ("--sdist",), "wheel": ("--wheel",)},
    "noise-secrets": {"from-sdist": (), "direct": ("--wheel",)},
    "audit": {"sdist": ("--sdist",), "wheel": ("--wheel",)},
    "routes-noise": EVERY_WAY,
    "routes-unvetted": EVERY_WAY,
    "unknown-route": {"sdist": ("--sdist",), "wheel": ("--wheel",)},
    "js-skill": {"from-sdist": (), "direct": ("--wheel",), "pip-wheel": PIP_WHEEL},
}


def leak_builds(base: Path, project: str) -> dict[str, LeakBuilds]:
    """`project` made for each backend under `base` and built every way `LEAK_BUILDS` says."""
    out = {}
    for backend in artifacts.BACKENDS:
        folder = base / f"{project}-{backend}"
        tree = artifacts.make(folder / "tree", project, backend)
        builds = {name: build(tree, folder / name, *args) for name, args in LEAK_BUILDS[project].items()}
        out[backend] = LeakBuilds(tree, builds)
    return out


def seed_generated(tree: Path, folder: str, wheel: Path, sdist: Path) -> dict[str, bytes]:
    """Copies of what the backends generated into `wheel` and `sdist` (the top-level files of
    `.dist-info/` and `.egg-info/`, `PKG-INFO`, `setup.cfg`) put under `folder/.venv/` of `tree`, as an
    installed package and an unpacked sdist hold them there: noise whose bytes equal members of the
    next build's artifacts. Returns what was written (path in the tree → bytes)."""
    found: dict[str, bytes] = {}
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if re.fullmatch(r"[^/]+\.dist-info/[^/]+", name):
                found[f"{folder}/.venv/lib/python3/site-packages/{name}"] = archive.read(name)
    with tarfile.open(sdist) as archive:
        for member in archive:
            inside = member.name.split("/", 1)[-1]
            if member.isfile() and (inside in ("PKG-INFO", "setup.cfg") or ".egg-info/" in inside):
                handle = archive.extractfile(member)
                assert handle is not None
                found[f"{folder}/.venv/src/{member.name}"] = handle.read()
    for path, data in found.items():
        target = tree / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return found


def scratch() -> str | None:
    """A tmpfs folder when the machine has one: making 100,000 files costs half a second there and
    tens of seconds on a busy virtual disk; the files are just as real."""
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None


@dataclass
class Corpus:
    base: Path
    refused: Path
    accepted: Path


# --- what each surface says about each case -----------------------------------------------

CLI = [sys.executable, "-m", "flue_build"]
#: severity → codes reported for one case.
Verdict = dict[str, set[str]]


def codes_by_case(diagnostics: list[dict[str, object]]) -> dict[str, Verdict]:
    """Case folder → severity → codes, from `check --format json` run in the project folder."""
    found: dict[str, Verdict] = defaultdict(lambda: defaultdict(set))
    for d in diagnostics:
        parts = str(d["path"]).split("/")
        assert parts[:2] == [".agents", "skills"], d
        found[parts[2]][str(d["severity"])].add(str(d["code"]))
    return found


def problems_of(build: Built, case: corpus.Case) -> Verdict:
    """severity → codes a build printed for `case`'s folder."""
    found: Verdict = {"error": set(), "warning": set()}
    prefix = re.escape(f".agents/skills/{case.folder}")
    for code, severity in re.findall(
        rf"^{prefix}(?:/[^\n]*?)?(?::\d+:\d+)?: (FLU\d+) (error|warning):", build.output, re.MULTILINE
    ):
        found[severity].add(code)
    return found


def check_cases(project: Path, cases: list[corpus.Case]) -> tuple[int, dict[str, Verdict], str]:
    """One `check --format json` over all the case folders of a project, unprivileged and bounded."""
    folders = [f".agents/skills/{case.folder}" for case in cases]
    proc = run([*CLI, "check", "--format", "json", *folders], project)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, codes_by_case(json.loads(proc.stdout)), proc.stderr


PROBE = r'''
import hashlib, importlib, json, sys, warnings
from flue_runtime import FlueError, SkillError
from flue_runtime.agents.sandbox import LocalSandbox
from flue_runtime.mount.vfs import SkillTree
from flue_runtime.agents.workspace import WORKSPACE_DIR, discover_workspace_skills

def served(skill):
    """Every file through the virtual tree, as a model's read would reach it."""
    tree = SkillTree([skill])
    return {f.path: hashlib.sha256(tree.read(f"/.flue/skills/{skill.name}/{f.path}")).hexdigest() for f in skill.files}

modules, workspace_root = sys.argv[1].split(","), sys.argv[2]
out = {"modules": {}, "workspace": {"mounted": {}, "skipped": [], "vetted": {}}}
for name in modules:
    try:
        module = importlib.import_module(f"hostile_demo.{name}")
    except SkillError as exc:
        out["modules"][name] = {"error": type(exc).__name__, "codes": sorted({d.code for d in exc.diagnostics if d.is_error})}
    except Exception as exc:  # anything else is a bug the test reports
        out["modules"][name] = {"error": type(exc).__name__, "message": str(exc)}
    else:
        skill = module.SKILL
        out["modules"][name] = {"name": skill.name, "files": served(skill), "instructions": len(skill.instructions)}
if workspace_root:
    sandbox = LocalSandbox(workspace_root)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for skill, folder in discover_workspace_skills(sandbox):
            out["workspace"]["mounted"][folder] = served(skill)
    out["workspace"]["skipped"] = [str(w.message) for w in caught]
    for entry in sandbox.list(WORKSPACE_DIR):
        if entry.is_dir and not entry.is_link:
            folder = f"{WORKSPACE_DIR}/{entry.name}"
            vetted = sandbox.vet(folder).diagnostics
            out["workspace"]["vetted"][entry.name] = {
                severity: sorted({d.code for d in vetted if str(d.severity) == severity}) for severity in ("error", "warning")
            }
print(json.dumps(out))
'''


def probe(cwd: Path, pythonpath: list[Path], cases: list[corpus.Case], workspace: Path | None) -> dict[str, Any]:
    """Dev-mode resolution of each case's module, and workspace discovery of `workspace`, in a subprocess."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, pythonpath))}
    proc = run([sys.executable, "-c", PROBE, ",".join(c.module for c in cases), str(workspace or "")], cwd, env)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout)
    return result
