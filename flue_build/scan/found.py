"""Find skills under a folder: every directory holding a SKILL.md, noise folders skipped."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from flue_build.fswalk import walk_tree
from flue_runtime.format.records import SKILL_FILE
from flue_runtime.format.vetting import is_noise_dir

__all__ = ["Found", "find_skills"]


@dataclass(frozen=True)
class Found:
    """A skill file found by the walk_tree; `misnamed` when it is `skill.md` or another case variant."""

    file: Path
    misnamed: bool = False


def find_skills(root: Path) -> list[Found]:
    """Skill files under `root` in a stable order; symlinked folders are not followed.

    A folder holding a `SKILL.md` that is not a file (a folder, a FIFO) is found too: vetting it says what is wrong.
    """
    found: list[Found] = []
    for folder, dirs, files in walk_tree(root):
        dirs[:] = sorted(d for d in dirs if not is_noise_dir(d))
        if SKILL_FILE in files or SKILL_FILE in dirs:
            found.append(Found(Path(folder, SKILL_FILE)))
        else:
            found.extend(
                Found(Path(folder, f), misnamed=True) for f in sorted(files) if f.lower() == SKILL_FILE.lower()
            )
    return found
