"""The last line of defence: a built wheel holds exactly the vetted skill files, nothing else of theirs.

Every entry inside a `_flue_skills/` folder must be a planned bundle file or manifest with
the planned bytes; nothing may remain under a referenced skill's original folder; every
planned file must be there. A wrong file in a wheel is the worst outcome of a build.
"""

from __future__ import annotations

import hashlib
import zipfile
from collections.abc import Sequence
from pathlib import Path

from flue_build.pack import BundlePlan
from flue_runtime.format.diagnostics import Diagnostic
from flue_runtime.format.manifest import BUNDLE_DIR


def audit_wheel(wheel: Path, bundles: Sequence[BundlePlan], original_prefixes: Sequence[str] = ()) -> list[Diagnostic]:
    """Problems in `wheel`; `original_prefixes` are wheel paths (`pkg/skills/refunds/`) that must stay empty."""
    expected: dict[str, str] = {}
    for bundle in bundles:
        expected[bundle.manifest_path] = hashlib.sha256(bundle.manifest).hexdigest()
        for item in bundle.files:
            expected[item.dest] = item.sha256
    problems: list[Diagnostic] = []
    shown = wheel.name

    def report(entry: str, message: str) -> None:
        problems.append(
            Diagnostic.make(
                "FLU409",
                f"{shown}/{entry}",
                message,
                "this is a bug or a conflicting build configuration (force-include, artifacts, another hook); "
                "the wheel was deleted",
            )
        )

    seen: set[str] = set()
    with zipfile.ZipFile(wheel) as archive:
        for info in archive.infolist():
            name = info.filename
            if name.endswith("/"):
                continue
            if name in expected:
                seen.add(name)
                if hashlib.sha256(archive.read(info)).hexdigest() != expected[name]:
                    report(name, "bytes differ from the vetted file (changed during the build?)")
            elif f"/{BUNDLE_DIR}/" in f"/{name}":
                report(name, "not a vetted file, yet it sits in a skill bundle")
            elif any(name.startswith(prefix) for prefix in original_prefixes):
                report(name, "left in a referenced skill's original folder; only the bundled copy may ship")
    for name in sorted(set(expected) - seen):
        report(name, "a vetted file is missing from the wheel")
    return problems
