"""What importing `flue_runtime.integrations.agentskills` says without agentskills-core: on Python 3.11 (where the
package cannot be installed) that it needs 3.12 or newer, there that the extra is missing. The integration itself
is tested on 3.12 by `test_agentskills.py`."""

from __future__ import annotations

import importlib
import sys

import pytest

MODULE = "flue_runtime.integrations.agentskills"


def test_importing_without_agentskills_core_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "agentskills_core", None)  # not installed (where it could be, as if it were not)
    monkeypatch.delitem(sys.modules, MODULE, raising=False)
    with pytest.raises(ImportError) as raised:
        importlib.import_module(MODULE)
    if sys.version_info >= (3, 12):
        assert str(raised.value) == f"{MODULE} needs agentskills-core: pip install 'flue-skills[agentskills]'"
    else:
        assert str(raised.value) == (
            f"{MODULE} needs agentskills-core, which needs Python 3.12 or newer "
            f"(this is Python 3.{sys.version_info.minor})"
        )
    assert MODULE not in sys.modules  # nothing half-imported
