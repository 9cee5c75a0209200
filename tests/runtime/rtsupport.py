"""Hand-made installs for run-time unit tests: a source package and its "installed" copy with a bundle.

`install()` does what a build with the hook does, with the run time's own pieces
(`vet_skill`, `Manifest`): it copies the modules, leaves the skill folders out, and writes
`_flue_skills/` with the manifest and every vetted file. The result can be put on
`sys.path` as a folder or as a zip. The real backends are tested in test_setups.py.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import shutil
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from flue_runtime.format.manifest import BUNDLE_DIR, MANIFEST_FILE, Manifest, MarkdownEntry, Reference, SkillEntry
from flue_runtime.format.skill_folder import vet_skill


@dataclass
class Call:
    module: str
    spec: str
    kind: str = "skill"
    package: bool = False  # recorded as {"package": spec}: resolved from another package at run time


@dataclass
class Project:
    """A source tree under `src` whose packages live at `src/<package path>`."""

    src: Path
    calls: list[Call] = field(default_factory=list)

    def module_file(self, module: str) -> Path:
        parts = module.split(".")
        package_init = self.src.joinpath(*parts, "__init__.py")
        return package_init if package_init.exists() else self.src.joinpath(*parts[:-1], parts[-1] + ".py")

    def install(self, site: Path, bundle_package: str, *, editable: bool = False) -> Path:
        """Copy `bundle_package`'s modules to `site` and write its bundle (entries with `source` when `editable`)."""
        package_dir = self.src.joinpath(*bundle_package.split("."))
        dest = site.joinpath(*bundle_package.split("."))
        skill_dirs: set[Path] = set()
        markdown_files: set[Path] = set()
        skills: dict[str, SkillEntry] = {}
        markdown: dict[str, MarkdownEntry] = {}
        references: dict[str, dict[str, Reference]] = {}
        payload: dict[str, bytes] = {}
        for call in self.calls:
            if not (call.module == bundle_package or call.module.startswith(bundle_package + ".")):
                continue
            if call.package:
                references.setdefault(call.module, {})[call.spec] = Reference("package", call.spec)
                continue
            if call.spec.startswith(("./", "../")):
                target = Path(os.path.normpath(self.module_file(call.module).parent / call.spec))
            else:  # a package spec into this very package: the build bundles it like a relative one
                target = self.src.joinpath(*call.spec.split("/"))
            if call.kind == "skill":
                folder = target.parent
                vetted = vet_skill(folder)
                assert vetted.ok and vetted.metadata is not None, vetted.diagnostics
                entry = SkillEntry.of(
                    vetted.id, vetted.metadata, vetted.files, vetted.body_offset, str(folder) if editable else None
                )
                skills[entry.id] = entry
                skill_dirs.add(folder)
                for packed in vetted.files:
                    payload[f"{entry.directory}/{packed.path}"] = folder.joinpath(*packed.path.split("/")).read_bytes()
                references.setdefault(call.module, {})[call.spec] = Reference("skill", entry.id)
            else:
                data = target.read_bytes()
                digest = hashlib.sha256(data).hexdigest()
                md = MarkdownEntry(digest[:16], len(data), digest, str(target) if editable else None)
                markdown[md.id] = md
                markdown_files.add(target)
                payload[md.path] = data
                references.setdefault(call.module, {})[call.spec] = Reference("markdown", md.id)
        manifest = Manifest(bundle_package, skills, markdown, references)

        def ignore(folder: str, names: list[str]) -> list[str]:
            here = Path(folder)
            return [n for n in names if here / n in skill_dirs or here / n in markdown_files or n == "__pycache__"]

        shutil.copytree(package_dir, dest, ignore=ignore, dirs_exist_ok=True)
        bundle = dest / BUNDLE_DIR
        bundle.mkdir()
        (bundle / MANIFEST_FILE).write_bytes(manifest.dumps())
        if not editable:
            for rel, data in payload.items():
                out = dest.joinpath(*rel.split("/"))
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(data)
        return dest


def zip_folder(folder: Path, archive: Path) -> Path:
    """Every file under `folder` into a zip, paths relative to `folder` (a wheel's shape)."""
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        for current, dirs, names in os.walk(folder):
            dirs.sort()
            for name in sorted(names):
                full = Path(current, name)
                zf.write(full, posixpath.join(*full.relative_to(folder).parts))
    return archive
