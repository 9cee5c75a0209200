"""Issue 21 item 5: agreement with the reference validator (skills-ref) stays measurable.

`benchmarks/agreement.py` checks a generated corpus (one skill per rule) with `flue-skills check`
and with skills-ref, and classifies every difference; BENCHMARKS.md holds its table. This keeps
the harness working on the small corpus: it runs, finds the known differences, and explains each.
"""

from __future__ import annotations

import sys
from pathlib import Path

from support.paths import ROOT

_saved = list(sys.path)
try:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import agreement
finally:
    sys.path[:] = _saved


def test_the_benchmark_runs_and_classifies_the_known_differences(tmp_path: Path) -> None:
    outcomes, described = agreement.run(tmp_path, collection=0)  # skills-ref in this process (the test extra)
    by_case = {o.case: o for o in outcomes}
    assert {o.corpus for o in outcomes} == {"mutations"} and len(by_case) == len(outcomes) > 50
    assert by_case["valid-every-field"].flue == by_case["valid-every-field"].reference == set()
    # The seed's rule: an unknown field is a warning for flue-skills, an error for skills-ref.
    unknown = by_case["unknown-field"]
    assert (unknown.flue, unknown.flue_warned, unknown.reference) == (set(), {"unknown-field"}, {"unknown-field"})
    # An invalid name that differs from its folder: both say both (FLU204 and FLU205).
    assert by_case["name-invalid-mismatch"].flue == by_case["name-invalid-mismatch"].reference
    assert "name-mismatch" in by_case["name-invalid-mismatch"].flue
    # Every rule of the name is read the same way by both.
    for case in ("name-65", "name-uppercase", "name-underscore", "name-leading-hyphen", "name-double-hyphen"):
        assert by_case[case].same_rules and by_case[case].flue, case

    classes = {(d.family, d.side): d for d in agreement.differences(outcomes)}
    seen = classes[("unknown-field", agreement.REFERENCE)]
    assert seen.count == {"mutations": 2} and seen.example is not None and seen.example.case == "unknown-field"
    assert classes[("secret", agreement.FLUE)].example.case == "secret-env"  # type: ignore[union-attr]
    assert classes[("no-frontmatter", agreement.REFERENCE)].example.case == "bom"  # type: ignore[union-attr]
    unexplained = [key for key, d in classes.items() if not d.why]
    assert not unexplained, f"explain these in agreement.EXPLAINED: {unexplained}"

    text = agreement.report(outcomes, "0.1.1", described)
    assert "| mutations: one skill per rule | 61 |" in text
    assert "| `unknown-field` | skills-ref only | 2 | mutations: `unknown-field` |" in text
    assert "**unexplained**" not in text
