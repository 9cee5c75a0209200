"""Every test module collects without the optional libraries (issue 35 item 9): one that needs a library
skips itself naming the extra (`support.optional.need`), so a contributor with only `test-base` runs the rest.

The libraries are hidden by a plugin (`support.without_extras`), in a child pytest that only collects."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from support.paths import ROOT
from support.without_extras import HIDDEN

pytestmark = pytest.mark.slow  # a whole collection in a child process


def test_every_module_collects_without_the_optional_libraries() -> None:
    env = {key: value for key, value in os.environ.items() if key != "FLUE_TESTS_NO_SKIP"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "support.without_extras",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    # the libraries were hidden: the modules needing them skipped themselves, each naming one
    skipped = {name for name in HIDDEN if f" needs {name}: pip install" in done.stdout}
    assert {"mcp", "anthropic", "openai", "psycopg"} <= skipped, done.stdout[-4000:]
