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
    artifacts,
    build,
    build_wheel,
    check_cases,
    corpus,
    leak_builds,
    make_project,
    probe,
    scratch,
    seed_generated,
)
from support import slow


@pytest.fixture(scope="session")
@slow.builds
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
@slow.builds
def hostile_builds(hostile: Corpus) -> dict[tuple[str, str], Built]:
    """Each project built by each backend: (project, backend) → the build."""
    out: dict[tuple[str, str], Built] = {}
    for kind, project in (("refused", hostile.refused), ("accepted", hostile.accepted)):
        for backend in BACKENDS:
            out[(kind, backend)] = build_wheel(project, hostile.base / "builds" / kind / backend, backend)
    return out


@pytest.fixture(scope="session")
@slow.builds
def checked(hostile: Corpus) -> dict[str, tuple[int, dict[str, Verdict], str]]:
    """`flue-skills check --format json` over each project's case folders: (exit status, verdicts, stderr)."""
    return {"refused": check_cases(hostile.refused, REFUSED), "accepted": check_cases(hostile.accepted, ACCEPTED)}


@pytest.fixture(scope="session")
@slow.builds
def dev_mode(hostile: Corpus) -> dict[str, dict[str, Any]]:
    """Both projects resolved from their source trees, their `.agents/skills` discovered as a workspace."""
    return {
        "refused": probe(hostile.refused, [hostile.refused / "src"], REFUSED, hostile.refused),
        "accepted": probe(hostile.accepted, [hostile.accepted / "src"], ACCEPTED, hostile.accepted),
    }


@pytest.fixture(scope="session")
@slow.builds
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


@pytest.fixture(scope="session")
def routes_noise(leak_base: Path) -> dict[str, LeakBuilds]:
    """`license-files` and `script-files` naming noise of a skill folder, built every way."""
    return leak_builds(leak_base, "routes-noise")


@pytest.fixture(scope="session")
def routes_unvetted(leak_base: Path) -> dict[str, LeakBuilds]:
    """The same settings naming a `.env` and a key of a skill folder the wheel does not select."""
    return leak_builds(leak_base, "routes-unvetted")


@pytest.fixture(scope="session")
def unknown_route(leak_base: Path) -> dict[str, LeakBuilds]:
    """A hook or a custom command copying a skill's noise into the artifact under another name."""
    return leak_builds(leak_base, "unknown-route")


@pytest.fixture(scope="session")
def js_skill(leak_base: Path) -> dict[str, LeakBuilds]:
    """The JS skill built (an sdist and a wheel from it, a wheel from the tree, `pip wheel`); then with
    copies of what the backend generated put under the skill's `.venv/`, built again (`seeded-sdist`,
    `seeded-wheel`)."""
    found = leak_builds(leak_base, "js-skill")
    for backend, leak in found.items():
        wheels, sdists = leak.builds["direct"].wheels, leak.builds["from-sdist"].sdists
        if len(wheels) == len(sdists) == 1:  # else the tests of the first builds say why
            leak.seeded = seed_generated(leak.tree, artifacts.BROWSER, wheels[0], sdists[0])
        folder = leak_base / f"js-skill-{backend}"
        leak.builds["seeded-sdist"] = build(leak.tree, folder / "seeded-sdist", "--sdist")
        leak.builds["seeded-wheel"] = build(leak.tree, folder / "seeded-wheel", "--wheel")
    return found
