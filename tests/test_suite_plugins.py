"""The suite's own guards (`support.slow`, `support.noskip`), run on small suites of their own by pytester."""

from __future__ import annotations

import pytest

BUILDER = """
import pytest
from support import slow

@pytest.fixture(scope="session")
@slow.builds
def wheel():
    return "a wheel"

@pytest.fixture
def installed(wheel):
    return wheel + ", installed"
"""


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    # As our own configuration: langsmith's plugin left out (its import would cost each xdist worker a second).
    pytester.makeini('[pytest]\nmarkers = ["slow: builds"]\naddopts = -p no:langsmith_plugin\n')
    pytester.makeconftest("pytest_plugins = ('support.slow', 'support.noskip')\n" + BUILDER)
    return pytester


def test_a_test_using_a_builder_without_the_mark_fails_collection(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        test_a="""
        import pytest

        def test_direct(wheel): pass
        def test_through_another_fixture(installed): pass
        def test_fast(): pass

        @pytest.mark.slow
        def test_marked(installed): pass
        """
    )
    result = suite.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*tests using a fixture that builds are not marked slow*",
            "test_a.py::test_direct uses wheel",
            "test_a.py::test_through_another_fixture uses wheel",
        ]
    )
    assert "test_fast" not in result.stderr.str() and "test_marked" not in result.stderr.str()


def test_a_module_marked_slow_uses_builders_and_not_slow_leaves_it_out(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        test_a="""
        import pytest
        pytestmark = pytest.mark.slow

        def test_direct(wheel): assert wheel == "a wheel"
        def test_through_another_fixture(installed): pass
        """,
        test_b="def test_fast(): pass\n",
    )
    suite.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=3)
    suite.runpytest("-p", "no:cacheprovider", "-m", "not slow").assert_outcomes(passed=1, deselected=2)


def test_a_helper_that_builds_fails_an_unmarked_test_and_runs_in_a_marked_one(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        test_a="""
        import pytest
        from support import slow

        def make_venv():
            slow.check("makes a virtual environment")

        def test_unmarked(): make_venv()

        @pytest.mark.slow
        def test_marked(): make_venv()
        """
    )
    result = suite.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*test_a.py::test_unmarked makes a virtual environment, which only a slow test*"])


SKIPS = """
import pytest

def test_skipped(): pytest.skip("no reason to run")

@pytest.mark.skipif(True, reason="a condition")
def test_skipif(): pass

@pytest.mark.xfail(reason="known", strict=True)
def test_xfail(): assert False

def test_passes(): pass
"""

SKIPPED_MODULE = """
from support.optional import need

need("no_such_library_xyz", "some-extra")

def test_never(): pass
"""


def test_without_the_variable_a_skip_is_a_skip(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FLUE_TESTS_NO_SKIP", raising=False)
    suite.makepyfile(test_a=SKIPS, test_b=SKIPPED_MODULE)
    result = suite.runpytest("-p", "no:cacheprovider", "-rs")
    result.assert_outcomes(passed=1, skipped=3, xfailed=1)
    assert "test_b needs no_such_library_xyz: pip install -e '.[some-extra]'" in result.stdout.str()


def test_in_ci_every_skip_fails_naming_its_reason(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLUE_TESTS_NO_SKIP", "1")
    suite.makepyfile(test_a=SKIPS)
    result = suite.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1, errors=1, xfailed=1)  # skipif acts at setup: an error there
    for reason in ["no reason to run", "a condition"]:
        assert f"FLUE_TESTS_NO_SKIP=1 allows no skip (every optional library is installed here): Skipped: {reason}" in (
            result.stdout.str()
        )


def test_in_ci_a_module_skipped_for_a_missing_library_fails_the_run(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FLUE_TESTS_NO_SKIP", "1")
    suite.makepyfile(test_b=SKIPPED_MODULE)
    result = suite.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    assert result.ret == pytest.ExitCode.INTERRUPTED  # a collection error stops the run
    assert "allows no skip (every optional library is installed here): Skipped: test_b needs no_such_library_xyz" in (
        result.stdout.str()
    )


@pytest.mark.slow  # starts pytest-xdist's worker processes
def test_under_xdist_each_session_build_runs_on_one_worker(suite: pytest.Pytester) -> None:
    log = suite.path / "builds.log"
    suite.makeconftest(
        f"""
        import os
        import pytest
        from support import slow

        pytest_plugins = ("support.slow",)

        @pytest.fixture(scope="session")
        @slow.builds
        def wheel():
            with open({str(log)!r}, "a") as out:
                out.write(os.environ["PYTEST_XDIST_WORKER"] + "\\n")
            return "a wheel"

        @pytest.fixture
        def installed(wheel):
            return wheel
        """
    )
    suite.makepyfile(
        test_a="import pytest\npytestmark = pytest.mark.slow\n"
        + "".join(f"def test_wheel_{i}(wheel): pass\n" for i in range(6)),
        test_b="import pytest\npytestmark = pytest.mark.slow\n"
        + "".join(f"def test_installed_{i}(installed): pass\n" for i in range(6)),
        test_c="".join(f"def test_fast_{i}(): pass\n" for i in range(6)),
    )
    result = suite.runpytest("-p", "no:cacheprovider", "-n", "2", "--dist", "loadgroup")
    result.assert_outcomes(passed=18)
    assert len(log.read_text().splitlines()) == 1  # not once per worker
