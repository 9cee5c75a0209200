"""No import circles: the modules of flue_runtime and flue_build, with every import they make (at the top, inside
functions, under TYPE_CHECKING), form a graph without a cycle. A circle closed by a type-checking import is
still a circle: the two modules cannot be understood, or moved, one without the other."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

from support.paths import ROOT

PACKAGES = ("flue_runtime", "flue_build")


def module_files(root: Path = ROOT) -> dict[str, Path]:
    files = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return files


def imports_of(path: Path, module: str, known: Iterable[str]) -> set[str]:
    """The modules of the graph that `module` (at `path`) imports: `from a.b import c` is `a.b.c` when that is a
    module, else `a.b`; a package's `__init__` is an edge only when imported itself."""
    known = set(known)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    return {name for name in found if name in known and name != module}


def graph(root: Path = ROOT) -> dict[str, set[str]]:
    files = module_files(root)
    return {module: imports_of(path, module, files) for module, path in files.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module (Tarjan's algorithm, iteratively),
    each as the path that closes it: [a, b, ..., a]."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(component)
    return [_path_through(component, edges) for component in components]


def _path_through(component: set[str], edges: dict[str, set[str]]) -> list[str]:
    """The shortest cycle through the component's first module (breadth first, inside the component)."""
    first = min(component)
    previous: dict[str, str] = {}
    frontier = [first]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(edges[node] & component):
                if child == first:
                    path = [node]
                    while path[-1] != first:
                        path.append(previous[path[-1]])
                    return [*reversed(path), first]
                if child not in previous:
                    previous[child] = node
                    following.append(child)
        frontier = following
    raise AssertionError(f"no cycle through {first}")


def test_there_is_no_import_cycle() -> None:
    found = cycles(graph())
    assert not found, "import cycles: " + "; ".join(" -> ".join(cycle) for cycle in found)


def test_a_cycle_is_found_and_named() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert cycles(edges) == [["a", "b", "c", "a"]]
