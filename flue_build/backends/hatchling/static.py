"""What hatchling would select for a project, asked of its builders over `[project]` as written
(`reach_ins.static_metadata`), for `flue-skills check` and `ls`; the build asks the builders hatchling made."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from flue_build.backends.hatchling import reach_ins, selection
from flue_build.backends.view import BackendView
from flue_build.scan.sources import Source

__all__ = ["sources", "static_builders", "view"]


def static_builders(root: str) -> tuple[Any, Any]:
    """hatchling's wheel and sdist builders for the project at `root`, over its metadata as written."""
    from hatchling.builders.sdist import SdistBuilder
    from hatchling.builders.wheel import WheelBuilder

    metadata = reach_ins.static_metadata
    return WheelBuilder(root, metadata=metadata(root)), SdistBuilder(root, metadata=metadata(root))


def sources(root: Path) -> list[Source] | None:
    """The modules hatchling's wheel target selects; None when hatchling is not installed or rejects them."""
    try:
        builder, _ = static_builders(os.fspath(root))
        return selection.modules(selection.walked(builder))
    except Exception:  # not installed, or a configuration hatchling itself rejects: its build says so
        return None


def view(root: Path) -> BackendView:
    """What the wheel and the sdist would select and exclude."""
    wheel, sdist = static_builders(os.fspath(root))
    walked = selection.walked(wheel)
    placed = [*walked, *selection.configured(wheel, True), *selection.configured(sdist, False)]
    exclusions = selection.Exclusions(wheel.config, walked)

    def sdist_walk() -> list[Path]:
        try:
            return [item.source for item in selection.walked(sdist)]
        except Exception:  # a configuration hatchling rejects: its build says so
            return []

    files = [item.source for item in placed]
    skill_files = reach_ins.skill_files(os.fspath(root))
    return BackendView(lambda _: exclusions, files, selection.modules(walked), sdist_walk, skill_files)
