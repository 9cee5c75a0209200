"""One verdict per case, whoever reads it: every case of the hostile corpus through every surface.

A table: a row per case of `fixtures/hostile/corpus.py`, a column per surface — `flue-skills
check`, a hatchling build with the hook, a setuptools build with the plugin, dev mode (`skill()`
from a source tree), workspace discovery in a `LocalSandbox`, the same folder held by a
`MemorySandbox`, and its support files given to `define_skill(files=...)`. Each cell is the
codes that surface reports for the case (errors, and warnings where the surface reports
them); every cell must equal the case's own codes. A case a surface cannot hold (a FIFO
in memory, a broken SKILL.md given to `define_skill`, which writes its own) has no cell
there, by the case's `memory` and `in_code` flags.

The disk surfaces run unprivileged and bounded (see hostile_support.py); the memory ones
run here.
"""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path
from typing import Any

import pytest
from hostile_support import BACKENDS, Built, Corpus, Verdict, corpus, problems_of

from flue_runtime import MemorySandbox, SkillWarning, define_skill
from flue_runtime.agents.workspace import discover_workspace_skills
from flue_runtime.errors import SkillError

pytestmark = pytest.mark.slow  # the hostile corpus through every surface: builds, child processes

#: A cell: (error codes, warning codes); warnings None where the surface reports only errors.
Cell = tuple[frozenset[str], frozenset[str] | None]


def cell(errors: object, warnings_: object | None) -> Cell:
    return frozenset(errors), None if warnings_ is None else frozenset(warnings_)  # type: ignore[call-overload]


def case_files(folder: Path) -> dict[str, bytes]:
    """Every regular file under a case folder (links and special files are not followed or read)."""
    found: dict[str, bytes] = {}
    pending = [""]
    while pending:
        rel = pending.pop()
        with os.scandir(folder / rel if rel else folder) as entries:
            for entry in entries:
                path = f"{rel}/{entry.name}" if rel else entry.name
                if entry.is_dir(follow_symlinks=False):
                    pending.append(path)
                elif entry.is_file(follow_symlinks=False):
                    found[path] = Path(entry.path).read_bytes()
    return found


def memory_sandbox(case: corpus.Case, folder: Path) -> Cell:
    """The case in a MemorySandbox: its vetting, and workspace discovery agreeing with it."""
    workspace = f".agents/skills/{case.folder}"
    sandbox = MemorySandbox({f"{workspace}/{path}": data for path, data in case_files(folder).items()})
    vetted = sandbox.vet(workspace).diagnostics
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mounted = [found for _, found in discover_workspace_skills(sandbox)]
    skipped = [str(w.message) for w in caught if issubclass(w.category, SkillWarning)]
    assert mounted == ([] if case.errors else [workspace]), skipped
    assert all(code in " ".join(skipped) for code in case.errors), skipped
    return cell(
        (d.code for d in vetted if d.is_error),
        (d.code for d in vetted if not d.is_error),
    )


def given_in_code(case: corpus.Case, folder: Path) -> Cell:
    """The case's support files given to define_skill, its SKILL.md's fields as arguments."""
    files: dict[str, str | bytes] = {path: data for path, data in case_files(folder).items() if path != "SKILL.md"}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            define_skill(
                name=case.folder,
                description=f"Hostile corpus case {case.folder}. Use in tests only.",
                instructions=f"# {case.folder}\n",
                files=files,
            )
        except SkillError as exc:
            errors = {d.code for d in exc.diagnostics if d.is_error}
        else:
            errors = set()
    notices = [str(w.message) for w in caught if issubclass(w.category, SkillWarning)]
    return cell(errors, {code for notice in notices for code in re.findall(r": (FLU\d{3}) ", notice)})


@pytest.mark.parametrize("case", corpus.CASES, ids=[c.folder for c in corpus.CASES])
def test_every_surface_gives_the_same_verdict(
    case: corpus.Case,
    hostile: Corpus,
    hostile_builds: dict[tuple[str, str], Built],
    checked: dict[str, tuple[int, dict[str, Verdict], str]],
    dev_mode: dict[str, dict[str, Any]],
) -> None:
    kind = "accepted" if case.accepted else "refused"
    folder = (hostile.accepted if case.accepted else hostile.refused) / ".agents" / "skills" / case.folder
    found: dict[str, Cell] = {}
    verdict = checked[kind][1].get(case.folder, {})
    found["check"] = cell(verdict.get("error", ()), verdict.get("warning", ()))
    for backend in BACKENDS:
        printed = problems_of(hostile_builds[(kind, backend)], case)
        found[f"{backend} build"] = cell(printed["error"], printed["warning"])
    resolved = dev_mode[kind]["modules"][case.module]
    found["dev mode"] = cell(resolved.get("codes", ()), None)
    workspace = dev_mode[kind]["workspace"]
    vetted = workspace["vetted"][case.folder]
    found["LocalSandbox"] = cell(vetted["error"], vetted["warning"])
    assert (f".agents/skills/{case.folder}" in workspace["mounted"]) is case.accepted
    if case.memory:
        found["MemorySandbox"] = memory_sandbox(case, folder)
    if case.in_code:
        found["define_skill"] = given_in_code(case, folder)
    expected = (frozenset(case.errors), frozenset(case.warnings))
    wrong = {
        surface: (sorted(errors), sorted(warned) if warned is not None else "-")
        for surface, (errors, warned) in found.items()
        if errors != expected[0] or (warned is not None and warned != expected[1])
    }
    assert wrong == {}, f"expected errors {sorted(case.errors)}, warnings {sorted(case.warnings)}"
