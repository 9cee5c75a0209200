"""What a project's backend says of it, read as data (`flue-skills check`, `ls`): each backend's `static.view`."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from flue_build.scan.sources import Source

__all__ = ["BackendView", "ExcludedBy"]


#: Why the project's own rules leave a file (absolute path) out of an artifact, e.g.
#: "excluded by .gitignore line 3 (`*.draft.md`)"; None when they keep it.
ExcludedBy = Callable[[str | os.PathLike[str]], str | None]


@dataclass
class BackendView:
    """`excluded_by` makes the wheel's exclusion rules, told the files they will be asked about; `files`: what
    the wheel and the sdist would select; `wheel_sources`: the modules of the wheel's walk (hatchling).

    hatchling's sdist selects most of the project, and its walk only matters for the skill folders in it:
    `sdist_walk` makes it, needed only when a `SKILL.md` of `skill_files` (every one any target's walk could
    meet) lies in a folder not vetted yet."""

    excluded_by: Callable[[list[Path]], ExcludedBy] | None = None
    files: list[Path] = field(default_factory=list)
    wheel_sources: list[Source] | None = None
    sdist_walk: Callable[[], list[Path]] | None = None
    skill_files: list[Path] = field(default_factory=list)
    #: Why the backend rejects the project's configuration (FLU503), when it does.
    rejected: str | None = None
