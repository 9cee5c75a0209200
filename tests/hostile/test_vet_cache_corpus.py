"""Every case of the hostile corpus gets the same verdict through the workspace's vetting cache as from
`vet_skill`: vetted once, and again from the kept verdict (the folder unchanged, every entry trusted)."""

from __future__ import annotations

import pytest
from hostile_support import Corpus, corpus

from flue_runtime.format.skill_folder import vet_skill
from flue_runtime.format.vet_cache import VetCache

pytestmark = pytest.mark.slow  # the hostile corpus


@pytest.mark.parametrize("case", corpus.CASES, ids=[c.folder for c in corpus.CASES])
def test_the_kept_verdict_is_the_fresh_one(case: corpus.Case, hostile: Corpus) -> None:
    project = hostile.accepted if case.accepted else hostile.refused
    folder = project / ".agents" / "skills" / case.folder
    display = f".agents/skills/{case.folder}"
    cache = VetCache(settle_ns=0)
    first = cache.vet(folder, display=display)
    kept = cache.vet(folder, display=display)
    fresh = vet_skill(folder, display=display)
    assert kept is first  # nothing changed: the walk's answers were all the same
    for vetted in (first, kept):
        assert (vetted.metadata, vetted.files, vetted.body_offset, vetted.diagnostics) == (
            fresh.metadata,
            fresh.files,
            fresh.body_offset,
            fresh.diagnostics,
        )
    if not case.unprivileged:  # (root reads a file whatever its mode)
        assert {d.code for d in fresh.diagnostics if d.is_error} == set(case.errors)
