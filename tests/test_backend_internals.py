"""A build backend's internals are reached in one place (issue 42 item 3): every name setuptools or hatchling does not
publish is used only in that backend's `reach_ins` module, where each use says why, so a backend release that
moves one breaks one module, which `tests/build/test_reach_ins.py` builds with the oldest and the newest release.

What the backends publish: hatchling's plugin interfaces (`BuildHookInterface`, `BuilderInterface` and the
builder and builder-config objects they hand over, `build_data`), setuptools' `Distribution` and command classes
(a command's own methods, overridden by the adapter's mixins) and `setuptools.errors`. What they do not: private
modules, module helpers and constants, classes not meant to be subclassed or built by a plugin, and what either
keeps for its own bookkeeping (below).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from support.paths import ROOT

PACKAGES = ("flue_runtime", "flue_build", "hatch_plugin")

#: Per backend: the names it does not publish (a dotted name is a module, with everything under it).
PRIVATE = {
    "hatchling": {
        "ProjectMetadata",  # subclassed, to read `[project]` without its hooks
        "CoreMetadata",
        "core_raw_metadata",
        "exclude_spec",  # how hatchling builds its exclusion rules, to name the one that matched
        "load_vcs_exclusion_patterns",
        "vcs_exclusion_files",
        "default_global_exclude",
        "default_exclude",
        "build_reserved_paths",
        "hatchling.builders.constants",
        "hatchling.builders.utils",
    },
    "setuptools": {
        "get_command_class",
        "setuptools._distutils",
        "setuptools.config",  # expand, setupcfg, pyprojecttoml: setuptools' readers of its configuration
        "walk_revctrl",
        "FileList",
        "process_template_line",
        "editable_mode",
        "get_output_mapping",
        "get_data_files_without_manifest",
        "exclude_data_files",
    },
}

REACH_INS = {backend: ROOT / "flue_build" / "backends" / backend / "reach_ins.py" for backend in PRIVATE}


def used_names(path: Path) -> set[str]:
    """Every name `path` uses: attributes, names, modules and names it imports (`a.b.c` for `from a.b import c`),
    and identifiers written as strings (`getattr(command, "editable_mode")`)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found |= {alias.name for alias in node.names} | {f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
            found.add(node.value)
    return found


def private_uses(path: Path, private: set[str]) -> set[str]:
    used = used_names(path)
    return {name for name in private if name in used or any(u.startswith(name + ".") for u in used if "." in name)}


def product_files() -> list[Path]:
    return sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def test_private_names_are_used_only_in_their_backends_reach_ins() -> None:
    found = []
    for path in product_files():
        for backend, private in PRIVATE.items():
            if path != REACH_INS[backend]:
                found += [f"{path.relative_to(ROOT)}: {name} ({backend})" for name in private_uses(path, private)]
    assert found == [], "move these into the backend's reach_ins.py, with why:\n" + "\n".join(sorted(found))


def test_every_listed_name_is_a_reach_in_and_each_reach_in_says_why() -> None:
    for backend, private in PRIVATE.items():
        path = REACH_INS[backend]
        assert private_uses(path, private) == private, f"{backend}: no longer reached, drop from PRIVATE"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        functions = [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))]
        public = [node for node in functions if not node.name.startswith("_")]
        assert public
        for node in public:
            assert re.search(r"\bWhy\b", ast.get_docstring(node) or ""), f"{path.name}: {node.name} says not why"


def test_the_check_sees_a_use(tmp_path: Path) -> None:
    module = tmp_path / "adapter.py"
    module.write_text(
        "from setuptools.config.expand import find_packages\n"
        "from setuptools.command.sdist import walk_revctrl\n"
        "def f(command, config):\n"
        "    return getattr(command, 'editable_mode', False), config.exclude_spec\n"
    )
    assert private_uses(module, PRIVATE["setuptools"]) == {"setuptools.config", "walk_revctrl", "editable_mode"}
    assert private_uses(module, PRIVATE["hatchling"]) == {"exclude_spec"}


def test_the_modules_release_0_1_0_named_still_import() -> None:
    """hatch-flue-skills 0.1.0 imports `flue_build.hatchling_build`; flue-skills 0.1.0's metadata names the plugin
    `flue_build.setuptools_plugin`: both stay, the names they import the backends' own."""
    from flue_build import hatchling_build, setuptools_plugin
    from flue_build.backends.hatchling import hook
    from flue_build.backends.setuptools import plugin

    assert setuptools_plugin.finalize_distribution_options is plugin.finalize_distribution_options
    assert (hatchling_build.prepare, hatchling_build.finish) == (hook.prepare, hook.finish)
