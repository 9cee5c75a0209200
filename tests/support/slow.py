"""`slow` kept next to what builds, and checked (a pytest plugin: tests/conftest.py loads it).

A test that builds a wheel or an sdist, makes a virtual environment, runs pip, or starts a server is
`slow`: its module says so (`pytestmark = pytest.mark.slow`, or `@pytest.mark.slow` on the test when
the module's other tests are fast). Two guards make a forgotten mark fail loudly instead of slowing
down the fast loop:

- a fixture that builds is declared with `@builds` (under `@pytest.fixture`): collection fails for
  any test that uses it, directly or through another fixture, without the mark;
- the helpers that build (`support.builds`, `support.envs`, an MCP server) call
  `check()`: run by a test without the mark, they fail it.

Under pytest-xdist (`-n auto --dist loadgroup`) the tests sharing a builder, directly or through a test
that uses it with another, go to one worker (an `xdist_group` named after the builders), so each session
build runs once, not once per worker.
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


def groups(used: dict[pytest.Item, list[str]]) -> dict[pytest.Item, str]:
    """Each item using a builder → its group: builders used together by some item are in one group."""
    parent: dict[str, str] = {}

    def root(name: str) -> str:
        while parent.setdefault(name, name) != name:
            name = parent[name]
        return name

    for names in used.values():
        for other in names:
            parent[root(other)] = root(names[0])
    members: dict[str, set[str]] = {}
    for name in list(parent):
        members.setdefault(root(name), set()).add(name)
    label = {top: "+".join(sorted(names)) for top, names in members.items()}
    return {item: label[root(names[0])] for item, names in used.items() if names}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    used = {item: builders(item) for item in items}
    unmarked = [
        f"{item.nodeid} uses {', '.join(found)}"
        for item, found in used.items()
        if found and item.get_closest_marker("slow") is None
    ]
    if unmarked:
        raise pytest.UsageError(
            f"tests using a fixture that builds are not marked slow ({_HOW}):\n" + "\n".join(unmarked)
        )
    if config.pluginmanager.hasplugin("xdist"):
        for item, group in groups(used).items():
            item.add_marker(pytest.mark.xdist_group(group))
            if getattr(config.option, "loadgroup", False):  # a worker of `--dist loadgroup`
                _suffix(item, group)


def _suffix(item: pytest.Item, group: str) -> None:
    """`--dist loadgroup` finds a test's group in its node id (`...::test@group`). pytest-xdist's worker
    writes it into `item._nodeid`, which pytest 9.2 no longer reads (the id lives in `item._id`), so no test
    was grouped: write it where this pytest reads it."""
    if item.nodeid.endswith(f"@{group}"):
        return  # xdist's own suffix took
    from _pytest.nodeid import coerce_node_id  # type: ignore[import-not-found,unused-ignore]

    item._id = coerce_node_id(f"{item.nodeid}@{group}")  # type: ignore[attr-defined]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, object, object]:
    global _current
    _current = item
    try:
        return (yield)
    finally:
        _current = None
