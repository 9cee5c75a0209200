"""Session fixtures: the hostile corpus built into two projects, and what each surface says of it
(builds, `flue-skills check`, dev mode and workspace discovery; hostile_support.py)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hostile_support import (
    ACCEPTED,
    BACKENDS,
    REFUSED,
    Built,
    Corpus,
    LeakBuilds,
    Verdict,
    build_wheel,
    check_cases,
    corpus,
    leak_builds,
    make_project,
    probe,
    scratch,
)


@pytest.fixture(scope="session")
def hostile() -> Iterator[Corpus]:
    """Both projects in a folder of their own (not under pytest's tmp, which is private to root and
    whose clean-up recurses once per level of a folder tree)."""
    base = Path(tempfile.mkdtemp(prefix="flue-hostile-", dir=scratch()))
    try:
        found = Corpus(base, make_project(base / "refused", REFUSED), make_project(base / "accepted", ACCEPTED))
        yield found
    finally:
        corpus.remove(base)


@pytest.fixture(scope="session")
def hostile_builds(hostile: Corpus) -> dict[tuple[str, str], Built]:
    """Each project built by each backend: (project, backend) → the build."""
    out: dict[tuple[str, str], Built] = {}
    for kind, project in (("refused", hostile.refused), ("accepted", hostile.accepted)):
        for backend in BACKENDS:
            out[(kind, backend)] = build_wheel(project, hostile.base / "builds" / kind / backend, backend)
    return out


@pytest.fixture(scope="session")
def checked(hostile: Corpus) -> dict[str, tuple[int, dict[str, Verdict], str]]:
    """`flue-skills check --format json` over each project's case folders: (exit status, verdicts, stderr)."""
    return {"refused": check_cases(hostile.refused, REFUSED), "accepted": check_cases(hostile.accepted, ACCEPTED)}


@pytest.fixture(scope="session")
def dev_mode(hostile: Corpus) -> dict[str, dict[str, Any]]:
    """Both projects resolved from their source trees, their `.agents/skills` discovered as a workspace."""
    return {
        "refused": probe(hostile.refused, [hostile.refused / "src"], REFUSED, hostile.refused),
        "accepted": probe(hostile.accepted, [hostile.accepted / "src"], ACCEPTED, hostile.accepted),
    }


@pytest.fixture(scope="session")
def leak_base() -> Iterator[Path]:
    base = Path(tempfile.mkdtemp(prefix="flue-leaks-", dir=scratch()))
    try:
        yield base
    finally:
        corpus.remove(base)


@pytest.fixture(scope="session")
def shipped(leak_base: Path) -> dict[str, LeakBuilds]:
    """The `shipped` project built by each backend: an sdist and a wheel from it, and a wheel from the tree."""
    return leak_builds(leak_base, "shipped")


@pytest.fixture(scope="session")
def refused_leaks(leak_base: Path) -> dict[str, LeakBuilds]:
    return leak_builds(leak_base, "refused")


@pytest.fixture(scope="session")
def noise_secrets(leak_base: Path) -> dict[str, LeakBuilds]:
    return leak_builds(leak_base, "noise-secrets")


@pytest.fixture(scope="session")
def sneaked(leak_base: Path) -> dict[str, LeakBuilds]:
    """The `audit` project: noise of a skill folder added behind the hook's back."""
    return leak_builds(leak_base, "audit")
