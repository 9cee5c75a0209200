"""Where the checkout and its fixtures are."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
PROJECTS = FIXTURES / "projects"
SKILLS = FIXTURES / "skills"
HOSTILE = FIXTURES / "hostile"
README = ROOT / "README.md"
