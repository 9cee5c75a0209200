"""Optional libraries a test module needs, skipped without them (so the `test-base` extra collects every module).

`need("mcp", "mcp")` at the top of a module, before the imports of the library, skips the whole module when
`mcp` is not installed, naming the extra that installs it. CI installs `test` (every optional library) and
fails on any skip (`support.noskip`), so nothing is left out there.
"""

from __future__ import annotations

import importlib.util
import sys

import pytest


def need(module: str, extra: str) -> None:
    """Skip the calling module (or test, or fixture's users) unless `module` is installed.

    Found, not imported: a module whose tests import the library only inside them (the SDKs take seconds to
    import) is collected on every xdist worker without loading it."""
    if importlib.util.find_spec(module) is None:
        caller = sys._getframe(1).f_globals.get("__name__", "?")
        reason = f"{caller} needs {module}: pip install -e '.[{extra}]' (or '.[test]', every library the tests use)"
        pytest.skip(reason, allow_module_level=True)
