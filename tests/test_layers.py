"""Imports run one way: in flue_runtime agents → mount → format (and errors), in flue_build scan → collect →
pack → audit → the CLI and the backends; nothing in flue_runtime imports flue_build."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from support.paths import ROOT

#: Each layer, lowest first; a module may import its own layer and the layers below it.
RUNTIME_LAYERS = [
    ("flue_runtime.errors", "flue_runtime.format", "flue_runtime.validation"),
    ("flue_runtime.mount",),
    ("flue_runtime.agents", "flue_runtime.models"),
    ("flue_runtime.integrations", "flue_runtime.mcp", "flue_runtime.publish"),
]
BUILD_LAYERS = [
    ("flue_build.errors", "flue_build.fswalk", "flue_build.report"),
    ("flue_build.scan", "flue_build.backends"),
    ("flue_build.collect", "flue_build.shipping", "flue_build.inventory"),
    ("flue_build.pack",),
    ("flue_build.audit", "flue_build.project"),
    (
        "flue_build.cli",
        "flue_build.backends.hatchling.hook",
        "flue_build.backends.setuptools.plugin",
        "flue_build.setuptools_plugin",
        "flue_build.hatchling_build",
        "flue_build.__main__",
    ),
]


def _rank(module: str, layers: list[tuple[str, ...]]) -> int | None:
    """The layer of the longest prefix naming `module` (a backend's build adapter sits above its package)."""
    found = [
        (len(prefix), rank)
        for rank, prefixes in enumerate(layers)
        for prefix in prefixes
        if module == prefix or module.startswith(prefix + ".")
    ]
    return max(found)[1] if found else None


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module `path` imports (also inside functions and TYPE_CHECKING blocks), with its line."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _violations(package: str, layers: list[tuple[str, ...]]) -> list[str]:
    out = []
    for path in sorted((ROOT / package).rglob("*.py")):
        module = _module_name(path)
        if module == package:
            continue  # the package's __init__ re-exports the public names of every layer
        own = _rank(module, layers)
        assert own is not None, f"{module} belongs to no layer: add it to the table in {__file__}"
        for line, imported in _imports(path):
            if package == "flue_runtime" and imported.split(".")[0] == "flue_build":
                out.append(f"{path.relative_to(ROOT)}:{line}: the run time imports {imported}")
                continue
            if not imported.startswith(package + "."):
                continue
            rank = _rank(imported, layers)
            if rank is not None and rank > own:
                out.append(f"{path.relative_to(ROOT)}:{line}: {module} imports {imported}, a layer above it")
    return out


@pytest.mark.parametrize(("package", "layers"), [("flue_runtime", RUNTIME_LAYERS), ("flue_build", BUILD_LAYERS)])
def test_imports_run_one_way(package: str, layers: list[tuple[str, ...]]) -> None:
    assert _violations(package, layers) == []


def test_the_check_sees_an_upward_import(tmp_path: Path) -> None:
    bad = tmp_path / "mod.py"
    bad.write_text("def f():\n    from flue_runtime.agents.harness import Harness\n")
    assert (2, "flue_runtime.agents.harness") in _imports(bad)
    assert _rank("flue_runtime.agents.harness", RUNTIME_LAYERS) == 2
    assert _rank("flue_runtime.format.vetting", RUNTIME_LAYERS) == 0
    assert _rank("flue_build.backends.hatchling.selection", BUILD_LAYERS) == 1
    assert _rank("flue_build.backends.hatchling.hook", BUILD_LAYERS) == len(BUILD_LAYERS) - 1
