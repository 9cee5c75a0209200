"""Every use of hatchling's internals, each where its plugin interface does not do the job, with why.

The hook otherwise uses what hatchling publishes: `BuildHookInterface`, its `build_config` and `metadata`, the
builder and builder configuration they hand over, and `build_data`. What is here is what those leave out;
`tests/build/test_reach_ins.py` builds with the oldest and the newest hatchling we support, so a release that moves
one fails there first.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["reserve_paths"]


def reserve_paths(build_config: Any, paths: Iterable[str]) -> None:
    """Keep `paths` (distribution paths) out of the artifact hatchling is about to build.

    Why `BuilderConfig.build_reserved_paths`: a build hook can add files (`force_include`, shared data)
    but the hook interface has no way to leave out a file the target's walk selected, and neither a
    bundled skill's original copies nor a file the vetting did not keep may ship. hatchling skips its
    reserved paths in the walk; adding ours there does that. The artifact's audit checks the result
    whatever this does.
    """
    reserved = getattr(build_config, "build_reserved_paths", None)
    if isinstance(reserved, set):
        reserved.update(paths)
