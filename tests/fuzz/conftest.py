"""Hypothesis profiles: a fixed-seed budget for CI, a long campaign on demand (scripts/fuzz.py)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# 150 fixed-seed examples a property: the same inputs every run, a regression net (generating the recursive schemas
# is most of the cost); the search for new failures is the campaign's, which runs the same properties.
settings.register_profile(
    "ci", derandomize=True, max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
settings.register_profile(
    "campaign",
    max_examples=int(os.environ.get("FLUE_FUZZ_EXAMPLES", "200000")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
