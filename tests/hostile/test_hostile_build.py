"""Real builds (hatchling with the hook, setuptools with the plugin) of the hostile corpus.

The project holding every refused case fails with each case's diagnostics printed and one
line last, no traceback, no wheel and no staging folder left behind. The project holding the accepted cases builds, and its wheel holds
exactly their vetted bytes. Every build runs without root's permission override and
under a timeout.
"""

from __future__ import annotations

import hashlib
import os
import re
import zipfile
from pathlib import Path

import pytest
from hostile_support import ACCEPTED, BACKENDS, REFUSED, Built, Corpus, corpus, problems_of
from support.builds import build_summary

from flue_runtime.format.manifest import Manifest
from flue_runtime.format.vetting import NOISE_DIRS

pytestmark = pytest.mark.slow  # the hostile corpus built by each backend

#: "SomethingError: ..." or "something.SomethingError: ..." at the start of a line: an exception surfacing.
EXCEPTION = re.compile(r"^(?:[\w.]+\.)?(\w+(?:Error|Exception|Exit|Interrupt))\b", re.MULTILINE)


def vetted_paths(folder: Path) -> list[str]:
    """Every file under an accepted case's folder but in its noise folders (`node_modules/`, never
    entered), as a skill path (independent of the build's own walk)."""
    found = []
    pending = [""]
    while pending:
        rel = pending.pop()
        for entry in os.scandir(folder / rel if rel else folder):
            path = f"{rel}/{entry.name}" if rel else entry.name
            if not entry.is_dir(follow_symlinks=False):
                found.append(path)
            elif entry.name not in NOISE_DIRS:
                pending.append(path)
    return found


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_the_refused_corpus_fails_the_build_cleanly(backend: str, hostile_builds: dict[tuple[str, str], Built]) -> None:
    build = hostile_builds[("refused", backend)]
    assert build.returncode != 0, build.output
    assert set(EXCEPTION.findall(build.output)) == set(), build.output[-3000:]  # no exception surfaces
    last = build_summary(build.output)
    assert re.match(r"flue-skills: (wheel not built|build stopped): .*\(and \d+ more errors\)$", last), last
    assert list(build.outdir.iterdir()) == []  # no wheel, not even a partial one
    assert list(build.tmpdir.iterdir()) == []  # no staging folder or temporary copy left


@pytest.mark.parametrize("backend", list(BACKENDS))
@pytest.mark.parametrize("case", REFUSED, ids=[c.folder for c in REFUSED])
def test_each_refused_case_is_named_in_the_build_log(
    case: corpus.Case, backend: str, hostile_builds: dict[tuple[str, str], Built]
) -> None:
    found = problems_of(hostile_builds[("refused", backend)], case)
    assert found["error"] == set(case.errors)
    assert found["warning"] == set(case.warnings)


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_the_accepted_corpus_builds_with_exactly_the_vetted_bytes(
    backend: str, hostile: Corpus, hostile_builds: dict[tuple[str, str], Built]
) -> None:
    build = hostile_builds[("accepted", backend)]
    assert build.returncode == 0, build.output[-3000:]
    assert not EXCEPTION.findall(build.output)
    for case in ACCEPTED:
        assert problems_of(build, case) == {"error": set(), "warning": set(case.warnings)}
    [wheel] = build.wheels
    with zipfile.ZipFile(wheel) as archive:
        manifest = Manifest.loads(archive.read("hostile_demo/_flue_skills/manifest.json"))
        names = set(archive.namelist())
        for case in ACCEPTED:
            reference = manifest.reference(
                f"hostile_demo.{case.module}", f"../../.agents/skills/{case.folder}/SKILL.md"
            )
            assert reference is not None and reference.kind == "skill", case.folder
            entry = manifest.skill(reference.target)
            folder = hostile.accepted / ".agents" / "skills" / case.folder
            assert [f.path for f in entry.files] == sorted(vetted_paths(folder)), case.folder
            for packed in entry.files:
                source = folder.joinpath(*packed.path.split("/")).read_bytes()
                assert (len(source), hashlib.sha256(source).hexdigest()) == (packed.size, packed.sha256), packed.path
                assert archive.read(f"hostile_demo/{entry.directory}/{packed.path}") == source
    assert not [n for n in names if "/.agents/" in n or n.startswith(".agents/")]  # originals never ship
