"""`slow` kept next to what builds, and checked (a pytest plugin: tests/conftest.py loads it).

A test that builds a wheel or an sdist, makes a virtual environment, runs pip, or starts a server is
`slow`: its module says so (`pytestmark = pytest.mark.slow`, or `@pytest.mark.slow` on the test when
the module's other tests are fast). Two guards make a forgotten mark fail loudly instead of slowing
down the fast loop:

- a fixture that builds is declared with `@builds` (under `@pytest.fixture`): collection fails for
  any test that uses it, directly or through another fixture, without the mark;
- the helpers that build (`support.builds`, `support.envs`, the PostgreSQL server, the npm tools)
  call `check()`: run by a test without the mark, they fail it.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any, TypeVar

import pytest

F = TypeVar("F", bound=Callable[..., Any])

_BUILDS = "_flue_builds"
_HOW = "mark its module `pytestmark = pytest.mark.slow` (or the test `@pytest.mark.slow`)"

#: The test being run (its setup, call and teardown), None between tests and outside pytest.
_current: pytest.Item | None = None


def builds(fixture: F) -> F:
    """Declares a fixture that builds (`@pytest.fixture` then `@builds`): every test using it is `slow`."""
    setattr(fixture, _BUILDS, True)
    return fixture


def check(what: str) -> None:
    """Called by a helper about to do `what` (build, make a venv, start a server): the running test,
    if any, must be marked `slow`."""
    item = _current
    if item is not None and item.get_closest_marker("slow") is None:
        raise AssertionError(f"{item.nodeid} {what}, which only a slow test may do: {_HOW}")


def builders(item: pytest.Item) -> list[str]:
    """The fixtures declared with `@builds` that `item` uses, directly or through other fixtures."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return []
    return sorted(
        name
        for name in item.fixturenames  # type: ignore[attr-defined]
        if any(getattr(d.func, _BUILDS, False) for d in info.name2fixturedefs.get(name, ()))
    )


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    unmarked = [
        f"{item.nodeid} uses {', '.join(found)}"
        for item in items
        if item.get_closest_marker("slow") is None and (found := builders(item))
    ]
    if unmarked:
        raise pytest.UsageError(
            f"tests using a fixture that builds are not marked slow ({_HOW}):\n" + "\n".join(unmarked)
        )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, object, object]:
    global _current
    _current = item
    try:
        return (yield)
    finally:
        _current = None
