"""What users may import: the supported modules (docs/internals.md) and each module's `__all__`."""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

import pytest
from support.paths import ROOT

PACKAGES = ("flue_runtime", "flue_build", "hatch_plugin/hatch_flue_skills")


def module_files() -> list[Path]:
    return sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    parts = parts[1:] if parts[0] == "hatch_plugin" else parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def top_level_names(body: list[ast.stmt]) -> set[str]:
    """Every name a module binds at its top level, in any branch of an `if` or `try`."""
    names: set[str] = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.If):
            names |= top_level_names(node.body) | top_level_names(node.orelse)
        elif isinstance(node, ast.Try):
            names |= top_level_names(node.body) | top_level_names(node.orelse)
            for handler in node.handlers:
                names |= top_level_names(handler.body)
    return names


def declared_all(tree: ast.Module) -> list[str] | None:
    for node in tree.body:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            value = node.value
            assert isinstance(value, (ast.List, ast.Tuple)), "__all__ must be a literal list of names"
            assert all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts)
            return [e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return None


#: flue_runtime's own `__all__` is computed from its lazy table and the errors, and checked by tests/test_project.py.
LITERAL_ALL = [path for path in module_files() if path != ROOT / "flue_runtime" / "__init__.py"]


@pytest.mark.parametrize("path", LITERAL_ALL, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_declares_its_names(path: Path) -> None:
    """A literal `__all__` in every module, naming only what the module binds."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = declared_all(tree)
    assert names is not None, f"{path.relative_to(ROOT)} declares no __all__"
    assert len(set(names)) == len(names), "a name listed twice"
    missing = set(names) - top_level_names(tree.body)
    assert not missing, f"__all__ names what the module does not define: {sorted(missing)}"


def supported_modules() -> list[str]:
    text = (ROOT / "docs" / "internals.md").read_text(encoding="utf-8")
    section = text.split("## Supported modules", 1)[1].split("\n## ", 1)[0]
    modules: list[str] = []
    for cell in re.findall(r"^\| ([^|]*) \|", section, re.MULTILINE):
        last = ""
        for name in re.findall(r"`([\w.]+)`", cell):
            # `.openai_agents` after `flue_runtime.integrations.pydantic_ai` is its sibling
            name = last.rsplit(".", 1)[0] + name if name.startswith(".") else name
            modules.append(name)
            last = name
    return modules


def test_the_supported_modules_exist_and_declare_their_names() -> None:
    files = {module_name(path): path for path in module_files()}
    modules = supported_modules()
    assert "flue_runtime" in modules and "flue_build.errors" in modules
    for module in modules:
        assert module in files, f"docs/internals.md lists {module}, which does not exist"
        if module != "flue_runtime":
            names = declared_all(ast.parse(files[module].read_text(encoding="utf-8")))
            assert names, f"supported module {module} exports nothing"


def user_imports() -> list[tuple[str, str]]:
    """(where, module) for every import of flue code in the README's and the docs' Python blocks and in examples."""
    found: list[tuple[str, str]] = []
    sources: list[tuple[str, str]] = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        text = doc.read_text(encoding="utf-8")
        for block in re.findall(r"^ *```python\n(.*?)^ *```", text, re.DOTALL | re.MULTILINE):
            sources.append((str(doc.relative_to(ROOT)), textwrap.dedent(block)))
    for example in sorted((ROOT / "examples").rglob("*.py")):
        sources.append((str(example.relative_to(ROOT)), example.read_text(encoding="utf-8")))
    for where, source in sources:
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.append((where, node.module))
            elif isinstance(node, ast.Import):
                found += [(where, alias.name) for alias in node.names]
    return [(where, module) for where, module in found if module.split(".")[0] in ("flue_runtime", "flue_build")]


def test_user_facing_code_imports_only_supported_modules() -> None:
    supported = set(supported_modules())
    imports = user_imports()
    assert len({module for _, module in imports}) > 3  # the README does import from several
    private = [(where, module) for where, module in imports if module not in supported]
    assert not private, f"code shown to users imports private modules: {private}"


def test_the_top_level_is_what_an_application_writes() -> None:
    """At most 40 names (issue 35 item 7): the calls, hooks and types an application writes and the base errors; the
    rest is in its documented module (`flue_runtime.errors`, `flue_runtime.validation`)."""
    import flue_runtime
    from flue_runtime import errors, validation

    assert len(flue_runtime.__all__) <= 40
    assert {"skill", "markdown", "define_skill", "agent", "use_skill", "Harness", "Session", "Model"} <= set(
        flue_runtime.__all__
    )
    assert {"FlueError", "SkillError", "MountError", "AgentError"} <= set(flue_runtime.__all__)
    assert not {"Diagnostic", "Severity", "check_skill_md", "SkillPathError"} & set(flue_runtime.__all__)
    assert set(validation.__all__) == {"Diagnostic", "Severity", "SkillMetadata", "check_skill_md"}
    assert set(flue_runtime.__all__) - set(errors.__all__) <= set(dir(flue_runtime))


@pytest.mark.parametrize(
    "name, now",
    [("SkillPathError", "SkillPathError"), ("SpecError", "MountError"), ("check_skill_md", None), ("Diagnostic", None)],
)
def test_a_moved_name_still_imports_for_one_minor_version_with_a_deprecation_warning(
    name: str, now: str | None
) -> None:
    """A merged error's warning names the class it is now (issue 42 item 4)."""
    import importlib

    import flue_runtime

    home, now = flue_runtime._MOVED[name], now or name
    with pytest.warns(DeprecationWarning, match=rf"flue_runtime\.{name} moved to {re.escape(home)}\.{now}"):
        value = getattr(flue_runtime, name)
    assert value is getattr(importlib.import_module(home), now)
    assert name not in flue_runtime.__all__


def test_our_code_imports_each_name_from_the_module_that_defines_it() -> None:
    """One name, one place (issue 35 item 6): flue's own modules never import a name through a module that merely
    imports it (the supported facades, `flue_runtime.models` and the like, are for users), so a name has one home
    and one way in."""
    files = {module_name(path): path for path in module_files()}
    trees = {module: ast.parse(path.read_text(encoding="utf-8")) for module, path in files.items()}
    bound = {module: top_level_names(tree.body) for module, tree in trees.items()}
    imported = {
        module: {
            alias.asname or alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.col_offset == 0
            for alias in node.names
        }
        for module, tree in trees.items()
    }
    through: list[str] = []
    for module, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in files:
                for alias in node.names:
                    defined_there = alias.name in bound[node.module] and alias.name not in imported[node.module]
                    if not defined_there and f"{node.module}.{alias.name}" not in files:
                        through.append(
                            f"{files[module].relative_to(ROOT)}:{node.lineno}: {alias.name} via {node.module}"
                        )
    assert not through, "import each from where it is defined:\n" + "\n".join(through)


#: Names each module of a family defines, each for its own member of that family (one meaning: a module of the
#: family is used through them), so the family is named here instead of the name being defined once.
FAMILIES = {
    # `flue_build.cli.commands.<command>`: `register` adds the subparser (`cli.CommandModule`), `run` handles it.
    "register": "flue_build.cli.commands.",
    "run": "flue_build.cli.commands.",
    # `flue_runtime.models.<provider>`: the provider (`models.providers` reads `PROVIDER`) and its translations.
    "PROVIDER": "flue_runtime.models.",
    "convert_messages": "flue_runtime.models.",
    "convert_response": "flue_runtime.models.",
    "convert_tool": "flue_runtime.models.",
    # `flue_runtime.integrations.<framework>`: the skill tools and the catalog in each framework's types (the
    # harness's own, `flue_runtime.agents`, in flue's); switching frameworks changes the import only.
    "skill_tools": "flue_runtime.",
    "catalog": "flue_runtime.",
    # each build backend's exclusions, read by its own rules (`flue_build.backends`)
    "Exclusions": "flue_build.backends.",
    # each session store's own schema version (its migrations)
    "SCHEMA_VERSION": "flue_runtime.agents.stores.",
    # each build backend's static reading of a project (`check`, `ls`): the modules it builds, its view of them
    "sources": "flue_build.backends.",
    "view": "flue_build.backends.",
}


def top_level_statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """A module's statements at its top level, in any branch of an `if` or `try` (`flue_runtime.mcp` imports its
    names only where the SDK is installed), never inside a function or class."""
    found: list[ast.stmt] = []
    for node in body:
        found.append(node)
        if isinstance(node, ast.If):
            found += top_level_statements(node.body) + top_level_statements(node.orelse)
        elif isinstance(node, ast.Try):
            found += top_level_statements(node.body) + top_level_statements(node.orelse)
    return found


def public_definitions() -> dict[str, list[str]]:
    """Each name some module's `__all__` lists and the module binds itself (not imported): the modules defining it."""
    defined: dict[str, list[str]] = {}
    for path in LITERAL_ALL:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {
            (alias.asname or alias.name).split(".")[0]
            for node in top_level_statements(tree.body)
            if isinstance(node, (ast.Import, ast.ImportFrom))
            for alias in node.names
        }
        for name in declared_all(tree) or ():
            if name not in imported:
                defined.setdefault(name, []).append(module_name(path))
    return defined


def test_each_public_name_is_defined_once() -> None:
    """One name, one meaning, one place (issue 42 item 6): a name some module exports is defined by that module
    alone, but for the families above, each module of which defines it for itself."""
    twice = {
        name: modules
        for name, modules in public_definitions().items()
        if len(modules) > 1 and not all(m.startswith(FAMILIES.get(name, "\0")) for m in modules)
    }
    assert not twice, "public names defined in more than one module:\n" + "\n".join(
        f"{name}: {', '.join(modules)}" for name, modules in sorted(twice.items())
    )


def test_no_two_modules_of_a_package_share_a_name() -> None:
    """Two modules named alike (`format/specs.py` and `mount/specs.py`) are two places for one name: within
    flue_runtime, and within flue_build, each module's name is its own (commands are named for their command; each
    backend's folder under `flue_build/backends/` has the same parts, one per backend)."""
    for package in ("flue_runtime", "flue_build"):
        names: dict[str, list[str]] = {}
        for path in (ROOT / package).rglob("*.py"):
            if path.name != "__init__.py" and path.parent.parent != ROOT / "flue_build" / "backends":
                names.setdefault(path.stem, []).append(str(path.relative_to(ROOT)))
        assert not {n: p for n, p in names.items() if len(p) > 1}, package
