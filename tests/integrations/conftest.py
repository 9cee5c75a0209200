from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from intsupport import Installed, build_and_install
from support import slow
from support.fakeapi import clean_env, fake_api
from support.imports import imported_from
from support.rawdist import RawInstalled, build_and_install_raw

from flue_runtime.mount.reference import SkillReference

# agentskills-core needs Python 3.12 or newer: test_agentskills.py is collected only there (CI runs it in its 3.12
# venv); test_agentskills_extra.py, collected everywhere, checks what an older Python is told.
collect_ignore = [] if sys.version_info >= (3, 12) else ["test_agentskills.py"]

__all__ = ["clean_env", "demo", "fake_api", "installed", "raw_installed"]


@pytest.fixture(scope="session")
@slow.builds
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The fixture project built into a wheel by the real backend and installed by pip, once per session."""
    return build_and_install(tmp_path_factory.mktemp("integrations"))


@pytest.fixture
def demo(installed: Installed) -> Iterator[dict[str, SkillReference]]:
    """The installed package's skills, read from the installed wheel: {"refunds": ..., "triage": ...}."""
    with imported_from(installed.site):
        import skills_demo

        assert Path(skills_demo.__file__).is_relative_to(installed.site)
        yield {"refunds": skills_demo.REFUNDS, "triage": skills_demo.TRIAGE}


@pytest.fixture(scope="session")
@slow.builds
def raw_installed(tmp_path_factory: pytest.TempPathFactory) -> RawInstalled:
    """A distribution shipping plain skill folders, built by hatchling without the hook and installed by pip."""
    return build_and_install_raw(tmp_path_factory.mktemp("raw-dist"))
