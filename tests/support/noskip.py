"""No skip in CI (a pytest plugin: tests/conftest.py loads it).

A test module needing an optional library (anthropic, psycopg, mcp, ...) skips itself without it
(`pytest.importorskip`), so a venv with only the `test-base` extra collects and runs the rest. CI
installs every extra, so there a skip means a missing install or a broken import, never a choice:
with `FLUE_TESTS_NO_SKIP=1` (`.ci/run` sets it) every skip, of a test or of a whole module, is a
failure naming the reason.
"""

from __future__ import annotations

import os
from collections.abc import Generator

import pytest

ENV = "FLUE_TESTS_NO_SKIP"


def _refused(report: pytest.TestReport | pytest.CollectReport) -> bool:
    return os.environ.get(ENV) == "1" and report.skipped and not hasattr(report, "wasxfail")


def _reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return f"skipped, and {ENV}=1 allows no skip (every optional library is installed here): {reason}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, object, object]:
    report = yield
    assert isinstance(report, pytest.TestReport)
    if _refused(report):
        report.outcome, report.longrepr = "failed", _reason(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, object, object]:
    report = yield
    assert isinstance(report, pytest.CollectReport)
    if _refused(report):
        report.outcome, report.longrepr = "failed", _reason(report)
    return report
