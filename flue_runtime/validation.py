"""Validating a skill without building it: `check_skill_md` and what it reports.

The supported home of these names (`flue_runtime` exported them until 0.1); each is defined in the format layer,
which the build, `flue-skills check` and the run time share, so a skill is judged by the same rules everywhere.
"""

from __future__ import annotations

from flue_runtime.format.diagnostics import Diagnostic, Severity
from flue_runtime.format.records import SkillMetadata
from flue_runtime.format.validate import check_skill_md

__all__ = ["Diagnostic", "Severity", "SkillMetadata", "check_skill_md"]
