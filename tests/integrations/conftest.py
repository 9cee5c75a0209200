from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# The loopback model API of the provider tests, for the README snippets that talk to a model.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "providers"))

from fakeapi import clean_env, fake_api  # noqa: E402
from intsupport import Installed, build_and_install  # noqa: E402
from support.imports import imported_from  # noqa: E402

from flue_runtime.mount.reference import SkillReference  # noqa: E402

__all__ = ["clean_env", "demo", "fake_api", "installed"]


@pytest.fixture(scope="session")
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
