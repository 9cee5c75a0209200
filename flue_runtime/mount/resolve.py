"""`skill(spec)` and `markdown(spec)`: find what a call names, starting from the calling module.

Order, for a call in module M:
1. the bundle of M's bundle package, when it has a manifest and the manifest lists the call
   (an entry with `source` is read from that folder on disk: editable builds);
2. a relative spec: the file next to M's `__file__`, from disk, through the build's rules
   (a source checkout or an editable install);
3. a package spec: the named package's own bundle, else its folder on disk; when the distribution
   providing it declares `[tool.flue] exports` (its manifest, or its project in dev mode), a spec
   from another package must be one of them (`SkillNotFoundError`).
Anything else is an error that says which of these was tried and how to fix it. A package without a
bundle that was installed from a wheel (not a source tree, not an editable install: `wheel_install`) was
built without the hook: its skills read from disk get one `SkillWarning` per distribution,
and a skill missing from disk is a `SkillNotFoundError`; from a source tree it is a wrong path, with
a "did you mean" when a folder or file close to it exists.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a bundled skill resolves without pathlib (a costly import); disk and packages use it
    from pathlib import Path

from flue_runtime.errors import FlueError, MountError, SkillNotFoundError, SkillWarning
from flue_runtime.format.exports import not_exported
from flue_runtime.format.manifest import BUNDLE_DIR, MANIFEST_FILE, Reference
from flue_runtime.format.messages import words
from flue_runtime.format.nearest import nearest_path
from flue_runtime.format.paths import is_inside
from flue_runtime.format.specs import SKILL_SUFFIX, Spec, SpecKind, parse_spec
from flue_runtime.mount.bundled import InstalledBundle, bundle_of, bundle_package, is_regular_package, module_spec
from flue_runtime.mount.reference import SkillReference
from flue_runtime.mount.wheel_install import wheel_install

__all__ = ["markdown", "resolve_markdown", "resolve_skill", "skill"]

#: How to add the build hook, a backend a line, after a message's first line (which says what is wrong).
HOOK_HELP = (
    "  To fix, add the flue-skills build hook to the project's pyproject.toml, then rebuild and reinstall:\n"
    '    hatchling: "hatch-flue-skills" in [build-system] requires, and [tool.hatch.build.hooks.flue-skills]\n'
    '    setuptools: "flue-skills" in [build-system] requires, and a [tool.flue] table\n'
    "  While developing, `pip install -e .` reads skills from the source tree."
)


@dataclass(frozen=True, slots=True)
class Caller:
    """The module a `skill()`/`markdown()` call sits in: its dotted name and its file, if any."""

    module: str
    file: str | None

    @classmethod
    def of_frame(cls, depth: int) -> Caller:
        """The caller `depth` frames above the function asking (1: that function's caller)."""
        f_globals = sys._getframe(depth + 1).f_globals
        spec = f_globals.get("__spec__")
        name = getattr(spec, "name", None) or f_globals.get("__name__") or "__main__"
        file = f_globals.get("__file__")
        return cls(str(name), file if isinstance(file, str) else None)

    def where(self) -> str:
        return f"module {self.module!r}" + (f" ({self.file})" if self.file else "")


def skill(spec: str) -> SkillReference:
    """The skill `spec` names, from the calling module: bundled, from disk in dev mode, or from a package.

    `spec` is `./path/SKILL.md` (next to the calling module) or `package/path/SKILL.md`.
    """
    return resolve_skill(spec, Caller.of_frame(1))


def markdown(spec: str) -> str:
    """The text (UTF-8) of the markdown file `spec` names, resolved like `skill()`."""
    return resolve_markdown(spec, Caller.of_frame(1))


def resolve_skill(spec: str, caller: Caller) -> SkillReference:
    """`skill(spec)` as called from `caller`."""
    found = _resolve(parse_spec("skill", spec), caller)
    assert isinstance(found, SkillReference)
    return found


def resolve_markdown(spec: str, caller: Caller) -> str:
    """`markdown(spec)` as called from `caller`."""
    found = _resolve(parse_spec("markdown", spec), caller)
    assert isinstance(found, str)
    return found


# --- resolution -----------------------------------------------------------------------


def _path(text: str) -> Path:
    from pathlib import Path  # only off the bundled path (see the imports)

    return Path(text)


def _resolve(spec: Spec, caller: Caller) -> SkillReference | str:
    package = bundle_package(caller.module)
    bundle = bundle_of(package) if package is not None else None
    if bundle is not None:
        ref = bundle.manifest.reference(caller.module, spec.text)
        if ref is not None:
            return _from_reference(bundle, ref, spec, caller)
    if not spec.relative:
        return _from_package(spec, caller)
    base = os.path.dirname(caller.file) if caller.file else os.getcwd()
    target = _path(os.path.normpath(os.path.join(base, *spec.segments)))
    found = _from_disk(spec, target, caller)
    if found is not None:
        if package is not None and bundle is None:
            _warn_if_installed(package, spec, caller)
        return found
    raise _relative_not_found(spec, caller, package, bundle, target)


def _from_reference(bundle: InstalledBundle, ref: Reference, spec: Spec, caller: Caller) -> SkillReference | str:
    if ref.kind == "package":
        return _from_package(dataclasses.replace(spec, text=ref.target, relative=False), caller)
    if ref.kind != spec.kind:
        raise MountError(
            f"{bundle.where(f'{BUNDLE_DIR}/{MANIFEST_FILE}')}: lists {spec.call} in {caller.module!r} as a {ref.kind}; "
            "the bundle does not match the code: reinstall the package"
        )
    return _load(bundle, spec.kind, ref.target, spec, caller)


def _load(bundle: InstalledBundle, kind: SpecKind, id: str, spec: Spec, caller: Caller) -> SkillReference | str:
    if kind == "skill":
        entry = bundle.skill_entry(id)
        if entry.source is not None:
            from flue_runtime.mount.disk import load_skill_dir

            return load_skill_dir(_path(entry.source), f"{spec.call} in {caller.where()}")
        return bundle.skill(id)
    markdown_entry = bundle.markdown_entry(id)
    if markdown_entry.source is not None:
        from flue_runtime.mount.disk import read_markdown_file

        return read_markdown_file(_path(markdown_entry.source), f"{spec.call} in {caller.where()}")
    return bundle.markdown_text(markdown_entry)


def _from_disk(spec: Spec, target: Path, caller: Caller) -> SkillReference | str | None:
    """The skill folder or markdown file at `target`, vetted; None when there is nothing there."""
    context = f"{spec.call} in {caller.where()}"
    if spec.kind == "skill":
        folder = target.parent
        if not os.path.isdir(folder) and not os.path.islink(folder):
            return None
        from flue_runtime.mount.disk import load_skill_dir

        return load_skill_dir(folder, context)
    if not os.path.lexists(target):
        return None
    from flue_runtime.mount.disk import read_markdown_file

    return read_markdown_file(target, context)


def _from_package(spec: Spec, caller: Caller) -> SkillReference | str:
    parts = spec.segments
    top = parts[0]
    top_spec = module_spec(top)
    if top_spec is None:
        beside = os.path.join(os.path.dirname(caller.file), *parts) if caller.file else None
        if beside is not None and os.path.lexists(beside):
            raise SkillNotFoundError(
                f"{spec.call} in {caller.where()}: no importable package {top!r}, but {beside} exists next to the "
                f"module; did you mean `./{spec.text}`? A spec relative to the module starts with ./"
            )
        raise SkillNotFoundError(
            f"{spec.call} in {caller.where()}: no importable package {top!r}; "
            f"install the distribution that provides it, or start the spec with ./ for a path next to the module"
        )
    locations = list(top_spec.submodule_search_locations or [])
    if top_spec.submodule_search_locations is None:
        raise SkillNotFoundError(
            f"{spec.call} in {caller.where()}: {top!r} is a module, not a package; a package spec starts with a package"
        )
    bundle_name, depth = _bundle_along(parts)
    bundle = bundle_of(bundle_name) if bundle_name is not None else None
    if bundle is not None:
        _check_exported(spec, caller, bundle.manifest.exports, bundle_name)
        inside = "/".join(parts[depth:])
        key = inside[: -len(SKILL_SUFFIX)] if spec.kind == "skill" else inside
        hit = bundle.lookup(key)
        if hit is not None and hit[0] == spec.kind:
            return _load(bundle, spec.kind, hit[1], spec, caller)
    for location in locations:
        if bundle is None:  # read from a source tree: the exports its project declares
            from flue_runtime.format.config import project_config

            config = project_config(_path(location))
            _check_exported(spec, caller, config.exports, bundle_name, config.root)
        found = _from_disk(spec, _path(os.path.join(location, *parts[1:])), caller)
        if found is not None:
            if bundle is None and bundle_name is not None and bundle_package(caller.module) == bundle_name:
                _warn_if_installed(bundle_name, spec, caller)
            return found
    where = ", ".join(locations) or "no folder"
    what = "skill folder" if spec.kind == "skill" else "markdown file"
    guess = next(filter(None, (_guess(location, parts[1:], parts[:1]) for location in locations)), "")
    if bundle_name is not None and bundle is None:
        missing = os.path.join(locations[0], *parts[1:]) if locations else "/".join(parts)
        missing = os.path.dirname(missing) if spec.kind == "skill" else missing
        if wheel_install(bundle_name) is None:  # a source tree or an editable install: the path is wrong
            raise SkillNotFoundError(
                f"{spec.call} in {caller.where()}: package {top!r} is read from its source tree (at {where}) and "
                f"there is no {what} {missing}; {guess}check the spec's path"
            )
        raise SkillNotFoundError(
            f"{spec.call} in {caller.where()}: package {top!r} (at {where}) has no bundled skills "
            f"(no {bundle_name.replace('.', '/')}/{BUNDLE_DIR}/{MANIFEST_FILE}) and no such {what} on disk: "
            f"it was built without the flue-skills build hook\n{_guessed(guess)}{HOOK_HELP}"
        )
    if bundle is not None:
        prefix = bundle.package.replace(".", "/")
        shown = [f"{prefix}/{p}/SKILL.md" if spec.kind == "skill" else f"{prefix}/{p}" for p in bundle.paths(spec.kind)]
        held = f"its bundle holds {', '.join(shown) or f'no {what}'}"
    else:
        held = "nothing was bundled for it"
    raise SkillNotFoundError(
        f"{spec.call} in {caller.where()}: package {top!r} (at {where}) has no such {what}: {held}, and it is not on disk. "
        f"A package ships a skill when one of its own modules references it (like skill('./review/SKILL.md')) "
        f"or its [tool.flue] exports list it, and it is built with the flue-skills hook; {guess}check the spec's path"
    )


def _check_exported(
    spec: Spec, caller: Caller, exports: tuple[str, ...] | None, package: str | None, project: Path | None = None
) -> None:
    """`SkillNotFoundError` when the distribution declares exports, `spec` is not one of them and the caller is
    another package's code: not a module of the same bundle `package`, nor (dev mode) a file of its `project`."""
    if exports is None or spec.text in exports:
        return
    if package is not None and bundle_package(caller.module) == package:
        return
    if project is not None and caller.file is not None and is_inside(project, os.path.abspath(caller.file)):
        return
    key, values = not_exported(spec.text, exports)
    message, hint = words(key, **values)
    raise SkillNotFoundError(f"{spec.call} in {caller.where()}: {message}; {hint}", spec.text, exports)


def _bundle_along(parts: list[str]) -> tuple[str | None, int]:
    """The outermost regular package on the spec's path (its name and depth), skipping namespaces."""
    for depth in range(1, len(parts)):
        name = ".".join(parts[:depth])
        if not parts[depth - 1].isidentifier():
            break
        found = module_spec(name)
        if found is None or found.submodule_search_locations is None:
            break
        if is_regular_package(found):
            return name, depth
    return None, 0


def _relative_not_found(
    spec: Spec, caller: Caller, package: str | None, bundle: InstalledBundle | None, target: Path
) -> FlueError:
    what = f"skill folder {target.parent}" if spec.kind == "skill" else f"file {target}"
    head = f"{spec.call} in {caller.where()}"
    base = os.path.dirname(caller.file) if caller.file else os.getcwd()
    guess = _guess(base, spec.segments)
    if caller.file is None:
        return SkillNotFoundError(
            f"{head}: no {what} (a module without a file resolves ./ specs against the working directory); "
            f"{guess}check the path, or use a package spec"
        )
    if package is None:
        return SkillNotFoundError(
            f"{head}: no {what}, and {caller.module!r} is not inside a regular package (a folder with __init__.py), "
            f"so nothing could be bundled for it; {guess}check the path, or move the module into a package"
        )
    if bundle is None and wheel_install(package) is None:  # a source tree or an editable install: the path is wrong
        return SkillNotFoundError(
            f"{head}: no {what} (package {package!r} is read from its source tree, and a ./ spec is relative to the "
            f"module's folder); {guess}check the spec's path"
        )
    if bundle is None:
        return SkillNotFoundError(
            f"{head}: not bundled and no {what} on disk: package {package!r} was built without the flue-skills "
            f"build hook (it has no {package.replace('.', '/')}/{BUNDLE_DIR}/{MANIFEST_FILE})\n{_guessed(guess)}{HOOK_HELP}"
        )
    return SkillNotFoundError(
        f"{head}: the bundle of package {package!r} lists no such call for {caller.module!r} and there is no {what} on disk; "
        f"{guess}the installed package is older than its code, or the call is not visible to the build (rebuild and reinstall)"
    )


def _guessed(guess: str) -> str:
    """A "did you mean" (`_guess`) as a line of its own, after a message's first line; "" for none."""
    return f"  {guess.rstrip()}\n" if guess else ""


def _guess(base: str, parts: list[str], prefix: list[str] | None = None) -> str:
    """ "did you mean `...`? " when a path close to `parts` (below `base`) exists (`nearest_path`); "" otherwise.
    `prefix`: the spec's segments before `parts` (a package spec's package)."""
    fixed = nearest_path(base, parts)
    return "" if fixed is None else f"did you mean `{'/'.join([*(prefix or []), *fixed])}`? "


#: The distributions (or archives) already warned about: one `SkillWarning` each per process.
_warned: set[str] = set()


def _warn_if_installed(package: str, spec: Spec, caller: Caller) -> None:
    """One `SkillWarning` per distribution when `package`, read from disk, was installed from a wheel:
    a wheel built without the hook ships its skill folders raw and unvetted, `.env` files included."""
    found = wheel_install(package)
    if found is None or (found.distribution or found.location) in _warned:
        return
    _warned.add(found.distribution or found.location)
    import warnings

    warnings.warn(
        f"{found.describe()} (package {package!r} at {found.location}) was built without the flue-skills build "
        f"hook: {spec.call} in {caller.where()} is read from the installed files, as from a source tree. Its wheel "
        "ships the skill folders as they are, not vetted by its build (a secret in one is published with it), "
        f"and every import vets them again.\n{HOOK_HELP}",
        SkillWarning,
        stacklevel=_outside_flue(),
    )


def _outside_flue() -> int:
    """The `stacklevel` that shows a warning at the first frame outside flue_runtime: the user's `skill()` call."""
    frame, level = sys._getframe(1), 1  # the function that warns is level 1
    while frame.f_back is not None and str(frame.f_globals.get("__name__", "")).split(".")[0] == "flue_runtime":
        frame, level = frame.f_back, level + 1
    return level
