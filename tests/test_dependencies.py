"""The declared dependencies match the imports: every third-party module flue_runtime or flue_build imports is
provided by a requirement of pyproject.toml, and every run-time requirement is imported by something."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from support.paths import ROOT

#: Distributions whose import name is not their name with `-` as `_`.
IMPORT_NAME = {
    "pyyaml": "yaml",
    "pydantic-ai-slim": "pydantic_ai",
    "openai-agents": "agents",
    "opentelemetry-api": "opentelemetry",
}
#: Modules imported directly that come with a declared distribution (its own requirement), not declared alone.
THROUGH = {
    "referencing": "jsonschema",  # `$ref` resolution of user tool schemas; jsonschema's own resolver
    "anyio": "mcp",
    "mcp_types": "mcp",
    "starlette": "mcp",  # `mcp --http`: the SDK's ASGI app, guarded by the CLI
    "uvicorn": "mcp",
    "httpx2": "mcp",  # remote_skills: the SDK's own HTTP client, whose replies are counted (flue_runtime/mcp/replies.py)
    "pydantic": "mcp",  # the SDK's models; tool_schema imports it only once a model of it was met
}
#: Provided by the build backend that runs flue's build code, not by flue-skills' own requirements:
#: hatch-flue-skills requires hatchling; the setuptools plugin runs inside setuptools.
BUILD_BACKENDS = {"hatchling", "setuptools"}


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def module_of(requirement: str) -> str:
    name = canonical(Requirement(requirement).name)
    return IMPORT_NAME.get(name, name.replace("-", "_"))


def declared() -> dict[str, set[str]]:
    """Each requirement's import name -> where it is declared (`dependencies` or the extra's name); the test
    extras and the documentation's are not the code's and are left out."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    out: dict[str, set[str]] = {}
    for requirement in project["dependencies"]:
        out.setdefault(module_of(requirement), set()).add("dependencies")
    for extra, requirements in project["optional-dependencies"].items():
        if extra.startswith("test") or extra == "docs":
            continue
        for requirement in requirements:
            if not Requirement(requirement).name.startswith("flue-skills"):
                out.setdefault(module_of(requirement), set()).add(extra)
    return out


def imported(packages: tuple[str, ...] = ("flue_runtime", "flue_build"), root: Path = ROOT) -> dict[str, str]:
    """Every third-party module the code imports (anywhere in a module, type-checking imports too), with the first
    file importing it; a model provider's SDK, imported by name (`Provider(label, module, extra, ...)`), too."""
    found: dict[str, str] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            where = str(path.relative_to(root))
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names: list[str] = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Provider":
                    names = [node.args[1].value] if isinstance(node.args[1], ast.Constant) else []
                for name in names:
                    top = name.split(".")[0]
                    if top not in sys.stdlib_module_names and top not in (*packages, "__future__"):
                        found.setdefault(top, where)
    return found


def test_every_import_is_declared_and_every_requirement_imported() -> None:
    uses = imported()
    requirements = declared()
    undeclared = {m: where for m, where in uses.items() if m not in requirements and m not in THROUGH}
    undeclared = {m: where for m, where in undeclared.items() if m not in BUILD_BACKENDS}
    assert not undeclared, f"imported but not declared in pyproject.toml: {undeclared}"
    unused = {m: extras for m, extras in requirements.items() if m not in uses}
    assert not unused, f"declared in pyproject.toml but imported by nothing: {unused}"


def test_each_module_that_comes_through_a_requirement_does() -> None:
    uses, requirements = imported(), declared()
    assert set(THROUGH) <= set(uses), set(THROUGH) - set(uses)
    distributions = importlib.metadata.packages_distributions()
    for module, carrier in THROUGH.items():
        assert carrier in requirements, f"{module} comes with {carrier}, which pyproject.toml does not declare"
        try:
            needs = importlib.metadata.requires(carrier) or []
        except importlib.metadata.PackageNotFoundError:
            continue  # the extra is not installed here: CI, which installs every extra, checks it
        names = {canonical(Requirement(r).name) for r in needs}
        assert {canonical(d) for d in distributions.get(module, [module])} & names, (
            f"{carrier} does not require {module}"
        )


def test_the_hatchling_hook_requires_hatchling() -> None:
    hook = tomllib.loads((ROOT / "hatch_plugin" / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "hatchling" in {canonical(Requirement(r).name) for r in hook["dependencies"]}


def test_a_requirement_nothing_imports_is_found(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text("import json\nfrom yaml import safe_load\n\ndef f():\n    import psycopg\n")
    assert imported(("pkg",), tmp_path) == {"yaml": "pkg/m.py", "psycopg": "pkg/m.py"}
    assert module_of("importlib-resources>=6.4; python_version < '3.12'") == "importlib_resources"
