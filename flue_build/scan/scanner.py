"""Find `skill(...)` and `markdown(...)` calls bound to `flue_runtime` in Python source, statically.

A file whose text never mentions `flue_runtime` cannot hold a reference and is skipped
before parsing (`flue_build.scan.prefilter`): that is what keeps a scan of thousands of
modules fast. Names are resolved with Python's scoping rules, so `skill` rebound locally
(a parameter, an assignment, a loop target) is not a reference, while every way of
reaching flue's functions is: an import from `flue_runtime` or any of its modules, under
any alias (`from flue_runtime.mount.resolve import skill as s`), a module alias and its
attributes (`import flue_runtime.mount.resolve as r; r.skill(...)`), a simple alias by
assignment (`load = skill`), in decorators too. Identifiers are compared as Python
normalises them (NFKC), which the parser does for us.
"""

from __future__ import annotations

import ast
import bisect
import contextlib
import gc
import io
import re
import tokenize
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from flue_build.scan.prefilter import MODULE, prefilter
from flue_runtime.errors import UnsafeFileError
from flue_runtime.format.diagnostics import Diagnostic, diagnostic
from flue_runtime.format.messages import piece
from flue_runtime.format.safe_read import read_regular
from flue_runtime.format.specs import SpecKind, example_spec, spec_problem
from flue_runtime.format.vetting import refused

__all__ = ["Call", "Position", "ScanResult", "scan_file", "scan_source"]


_SKILL, _MARKDOWN, _MODULE, _OTHER = "skill", "markdown", "module", "other"
_FLUE_NAMES = {"skill": _SKILL, "markdown": _MARKDOWN}
#: Aliases resolving to aliases (`a = b`, `b = c`, ...) are followed this far, then given up on.
_ALIAS_DEPTH = 64
_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Call:
    """One reference: its kind, its literal spec, and where it is (1-based line and column)."""

    kind: SpecKind
    spec: str
    line: int
    column: int


@dataclass
class ScanResult:
    calls: list[Call] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


def scan_file(path: Path, display: str | Callable[[], str]) -> ScanResult:
    """Every reference in one Python file; `display` names it in diagnostics (a callable: only when needed)."""
    try:
        data = read_regular(path).data or b""
    except (UnsafeFileError, OSError) as exc:
        return ScanResult(diagnostics=[refused(display() if callable(display) else display, exc)])
    found = prefilter(data)
    if not found.possible:
        return ScanResult()
    return _scan(data, display() if callable(display) else display, found.hot)


def scan_source(data: bytes, display: str) -> ScanResult:
    """Every reference in Python source bytes (the encoding cookie is honoured)."""
    return _scan(data, display, prefilter(data).hot)


def _scan(data: bytes, display: str, hot: frozenset[int] | None) -> ScanResult:
    """`hot`: the lines a reference may start on (`flue_build.scan.prefilter`); None for all."""
    try:
        with warnings.catch_warnings(), _collector_paused():  # invalid escapes: Python's business, not the build log's
            warnings.simplefilter("ignore")
            tree = ast.parse(data, filename=display)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        # ValueError: a NUL byte (Python 3.11) or a source the declared encoding cannot decode;
        # RecursionError/MemoryError: nesting too deep for Python's own parser (Python cannot import it either).
        line = max(getattr(exc, "lineno", None) or 1, 1)
        column = max(getattr(exc, "offset", None) or 1, 1)
        if isinstance(exc, (RecursionError, MemoryError)):
            return ScanResult(diagnostics=[diagnostic("FLU402 deep", display, line, column)])
        problem = getattr(exc, "msg", None) or str(exc) or type(exc).__name__
        return ScanResult(diagnostics=[diagnostic("FLU402", display, line, column, problem=problem)])
    binder = _Binder(hot)
    binder.run(tree)
    result = ScanResult()
    columns = _Columns(data)
    for node, scope in binder.calls:
        kind = _call_kind(node.func, scope)
        if kind is not None:
            _check_call(node, kind, display, columns, result)
    result.calls.sort(key=lambda c: (c.line, c.column))
    result.diagnostics.sort(key=lambda d: (d.line or 0, d.column or 0))
    return result


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused while the parser builds a tree: an AST holds no reference
    cycles, so a collection then finds nothing, yet the nodes created trigger many, a large share of the parse."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _check_call(node: ast.Call, kind: SpecKind, display: str, columns: _Columns, result: ScanResult) -> None:
    argument: ast.expr | None = node.args[0] if node.args else None
    if argument is None:
        argument = next((k.value for k in node.keywords if k.arg == "spec"), None)
    where = argument if argument is not None else node
    line, column = where.lineno, columns.column(where.lineno, where.col_offset)

    def fail(key: str, **values: str) -> None:
        result.diagnostics.append(
            diagnostic(key, display, line, column, kind=kind, example=example_spec(kind), **values)
        )

    if argument is None or isinstance(argument, ast.Starred):
        fail("FLU401 missing")
        return
    if not (isinstance(argument, ast.Constant) and isinstance(argument.value, str)):
        fail("FLU401", what=_describe(argument))
        return
    spec = argument.value
    problem = spec_problem(kind, spec)
    if problem:
        fail("FLU403", spec=spec, problem=problem)
        return
    result.calls.append(Call(kind, spec, line, column))


def _describe(node: ast.expr) -> str:
    if isinstance(node, ast.JoinedStr):
        return piece("spec: f-string")
    if isinstance(node, ast.Name):
        return piece("spec: variable", name=node.id)
    if isinstance(node, ast.BinOp):
        return piece("spec: concatenation" if isinstance(node.op, ast.Add) else "spec: computed")
    if isinstance(node, ast.Call):
        return piece("spec: call")
    if isinstance(node, ast.Constant):
        return piece("spec: constant", type=type(node.value).__name__)
    if isinstance(node, ast.Attribute):
        return piece("spec: attribute")
    return piece("spec: expression")


class _Columns:
    """1-based character columns from ast's UTF-8 byte offsets, decoding a line only when needed."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._lines: list[str] | None = None

    def column(self, line: int, offset: int) -> int:
        if self._lines is None:
            try:
                encoding, _ = tokenize.detect_encoding(io.BytesIO(self._data).readline)
                text = self._data.decode(encoding, "replace")
            except (SyntaxError, LookupError):
                text = self._data.decode("utf-8", "replace")
            self._lines = _LINE_END.split(text)  # Python's line ends only (not str.splitlines's form feeds)
        if 0 < line <= len(self._lines):
            raw = self._lines[line - 1].encode("utf-8")
            return len(raw[:offset].decode("utf-8", "replace")) + 1
        return offset + 1


# --- scopes ------------------------------------------------------------------------


Position = tuple[int, int]


class _Alias:
    """A name bound by assignment (`load = skill`): it refers to whatever its value refers to.

    Resolved at most once, lazily; an alias met again while it is being resolved (names
    bound to each other in enclosing scopes) or past `_ALIAS_DEPTH` refers to nothing of flue's.
    """

    def __init__(self, value: ast.expr, scope: _Scope) -> None:
        self.value = value
        self.scope = scope
        self.kind: str | None = None
        self.state = "new"  # new, busy, done

    def resolve(self, depth: int) -> str | None:
        if self.state == "done":
            return self.kind
        if self.state == "busy" or depth > _ALIAS_DEPTH:
            return _OTHER
        self.state = "busy"
        try:
            self.kind = _expr_kind(self.value, self.scope, depth + 1)
        finally:
            self.state = "new"
        self.state = "done"
        return self.kind


_Binding = str | _Alias


def _resolve(what: _Binding, depth: int) -> str | None:
    return what if isinstance(what, str) else what.resolve(depth)


class _Scope:
    def __init__(self, kind: str, parent: _Scope | None) -> None:
        self.kind = kind  # module, function, class, comprehension
        self.parent = parent
        self.bindings: dict[str, list[tuple[Position, _Binding]]] = {}
        self.globals: set[str] = set()
        self.nonlocals: set[str] = set()

    def bind(self, name: str, what: _Binding, where: Position) -> None:
        self.bindings.setdefault(name, []).append((where, what))

    def module(self) -> _Scope:
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope

    def lookup(self, name: str, where: Position, depth: int = 0) -> str | None:
        """What `name` read at `where` in this scope refers to: a flue kind, _OTHER, or None (a builtin).

        In the reading scope itself the last binding before the read wins (an import,
        then a loop target of the same name: the loop target); from an enclosing scope,
        which is read later, any flue binding of the name counts.
        """
        scope: _Scope | None = self
        if name in self.globals:
            scope = self.module()
        elif name in self.nonlocals:
            scope = self.parent
        first = True
        while scope is not None:
            if scope.kind != "class" or first:
                found = scope.bindings.get(name)
                if found is not None:
                    if scope is self:
                        before = [(position, what) for position, what in found if position < where]
                        if before:
                            return _resolve(max(before, key=lambda item: item[0])[1], depth)
                    flue = sorted({_resolve(what, depth) or _OTHER for _, what in found} - {_OTHER})
                    return flue[0] if flue else _OTHER
            first = False
            scope = scope.parent
        return None


def _expr_kind(node: ast.expr, scope: _Scope, depth: int = 0) -> str | None:
    """What an expression names: a flue kind (`skill`, `fr.skill`, `r.mount.resolve`), _OTHER, or None.

    An attribute chain is followed from its root name without recursion; an attribute of
    one of flue's modules is `skill`, `markdown`, or (over-inclusively) another module.
    """
    attributes: list[str] = []
    while isinstance(node, ast.Attribute):
        attributes.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return _OTHER
    kind = scope.lookup(node.id, (node.lineno, node.col_offset), depth)
    for attribute in reversed(attributes):
        if kind != _MODULE:
            return _OTHER
        kind = _FLUE_NAMES.get(attribute, _MODULE)
    return kind


def _call_kind(func: ast.expr, scope: _Scope) -> SpecKind | None:
    kind = _expr_kind(func, scope)
    if kind == _SKILL:
        return "skill"
    if kind == _MARKDOWN:
        return "markdown"
    return None


_Visit = tuple[ast.AST, _Scope]


class _Binder:
    """One pass: builds the scope tree, records every binding and every call with its scope.

    The walk is iterative (an explicit stack of node and scope), so an expression or a
    nesting depth that Python's parser accepts never overflows the scanner's own stack.
    Lookups happen after the walk and compare source positions, so the order in which
    nodes are visited does not matter.
    """

    def __init__(self, hot: frozenset[int] | None) -> None:
        self.module = _Scope("module", None)
        self.calls: list[tuple[ast.Call, _Scope]] = []
        self.hot = None if hot is None else sorted(hot)

    def run(self, tree: ast.AST) -> None:
        pending: list[_Visit] = [(tree, self.module)]
        while pending:
            node, scope = pending.pop()
            handler = getattr(self, f"visit_{type(node).__name__}", None)
            children = handler(node, scope) if handler is not None else _children(node, scope)
            pending.extend(reversed(children))

    def _cold(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> bool:
        """True when no line of `node`, its decorators included, can start a reference: its inside need not be walked."""
        if self.hot is None:
            return False
        start = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
        end = node.end_lineno or node.lineno
        index = bisect.bisect_left(self.hot, start)
        return index >= len(self.hot) or self.hot[index] > end

    # bindings ---------------------------------------------------------------------

    def visit_Name(self, node: ast.Name, scope: _Scope) -> list[_Visit]:
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            scope.bind(node.id, _OTHER, _at(node))
        return []

    def visit_Import(self, node: ast.Import, scope: _Scope) -> list[_Visit]:
        for alias in node.names:
            if alias.asname is None:
                top = alias.name.split(".")[0]
                scope.bind(top, _MODULE if top == MODULE else _OTHER, _at(node))
            else:
                scope.bind(alias.asname, _MODULE if _is_ours(alias.name) else _OTHER, _at(node))
        return []

    def visit_ImportFrom(self, node: ast.ImportFrom, scope: _Scope) -> list[_Visit]:
        ours = node.level == 0 and _is_ours(node.module)
        for alias in node.names:
            if alias.name == "*":
                if ours:
                    for name, what in _FLUE_NAMES.items():
                        scope.bind(name, what, _at(node))
                continue
            # Anything else imported from flue's modules may be a module: its `.skill` is a reference.
            what = _FLUE_NAMES.get(alias.name, _MODULE) if ours else _OTHER
            scope.bind(alias.asname or alias.name, what, _at(node))
        return []

    def visit_Assign(self, node: ast.Assign, scope: _Scope) -> list[_Visit]:
        out: list[_Visit] = [(node.value, scope)]
        for target in node.targets:
            out += self._assign(target, node.value, scope)
        return out

    def visit_AnnAssign(self, node: ast.AnnAssign, scope: _Scope) -> list[_Visit]:
        out: list[_Visit] = [(node.annotation, scope)]
        if node.value is None:
            return out + [(node.target, scope)]
        return out + [(node.value, scope)] + self._assign(node.target, node.value, scope)

    def _assign(self, target: ast.expr, value: ast.expr, scope: _Scope) -> list[_Visit]:
        """Bind a name to what `value` refers to (pairwise for `a, b = x, y`); walk any other target.

        The binding takes effect where the value ends: in `skill = skill` the value still
        reads the earlier binding.
        """
        if isinstance(target, ast.Name):
            scope.bind(target.id, _Alias(value, scope), _end(value))
            return []
        if (
            isinstance(target, (ast.Tuple, ast.List))
            and isinstance(value, (ast.Tuple, ast.List))
            and len(target.elts) == len(value.elts)
            and not any(isinstance(e, ast.Starred) for e in [*target.elts, *value.elts])
        ):
            out: list[_Visit] = []
            for inner, part in zip(target.elts, value.elts, strict=True):
                out += self._assign(inner, part, scope)
            return out
        return [(target, scope)]

    def visit_Global(self, node: ast.Global, scope: _Scope) -> list[_Visit]:
        scope.globals.update(node.names)
        return []

    def visit_Nonlocal(self, node: ast.Nonlocal, scope: _Scope) -> list[_Visit]:
        scope.nonlocals.update(node.names)
        return []

    def visit_ExceptHandler(self, node: ast.ExceptHandler, scope: _Scope) -> list[_Visit]:
        if node.name:
            scope.bind(node.name, _OTHER, _at(node))
        return _children(node, scope)

    def visit_MatchAs(self, node: ast.MatchAs, scope: _Scope) -> list[_Visit]:
        if node.name:
            scope.bind(node.name, _OTHER, _at(node))
        return _children(node, scope)

    def visit_MatchStar(self, node: ast.MatchStar, scope: _Scope) -> list[_Visit]:
        if node.name:
            scope.bind(node.name, _OTHER, _at(node))
        return []

    def visit_MatchMapping(self, node: ast.MatchMapping, scope: _Scope) -> list[_Visit]:
        if node.rest:
            scope.bind(node.rest, _OTHER, _at(node))
        return _children(node, scope)

    def visit_NamedExpr(self, node: ast.NamedExpr, scope: _Scope) -> list[_Visit]:
        target = scope
        while target.kind == "comprehension" and target.parent is not None:
            target = target.parent
        target.bind(node.target.id, _Alias(node.value, scope), _end(node.value))
        return [(node.value, scope)]

    def visit_Call(self, node: ast.Call, scope: _Scope) -> list[_Visit]:
        self.calls.append((node, scope))
        return _children(node, scope)

    # scopes -----------------------------------------------------------------------

    @staticmethod
    def _outer_arguments(args: ast.arguments, scope: _Scope) -> list[_Visit]:
        """Defaults and annotations are evaluated in the enclosing scope."""
        out: list[_Visit] = [(default, scope) for default in [*args.defaults, *args.kw_defaults] if default is not None]
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None and arg.annotation is not None:
                out.append((arg.annotation, scope))
        return out

    @staticmethod
    def _parameters(args: ast.arguments, scope: _Scope) -> _Scope:
        """A function scope with its parameters bound before the body runs."""
        inner = _Scope("function", scope)
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None:
                inner.bind(arg.arg, _OTHER, (0, 0))
        return inner

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: _Scope) -> list[_Visit]:
        scope.bind(node.name, _OTHER, _at(node))
        if self._cold(node):
            return []
        out: list[_Visit] = [(decorator, scope) for decorator in node.decorator_list]
        out += self._outer_arguments(node.args, scope)
        if node.returns is not None:
            out.append((node.returns, scope))
        inner = self._parameters(node.args, scope)
        return out + [(statement, inner) for statement in node.body]

    def visit_FunctionDef(self, node: ast.FunctionDef, scope: _Scope) -> list[_Visit]:
        return self._function(node, scope)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef, scope: _Scope) -> list[_Visit]:
        return self._function(node, scope)

    def visit_Lambda(self, node: ast.Lambda, scope: _Scope) -> list[_Visit]:
        return self._outer_arguments(node.args, scope) + [(node.body, self._parameters(node.args, scope))]

    def visit_ClassDef(self, node: ast.ClassDef, scope: _Scope) -> list[_Visit]:
        scope.bind(node.name, _OTHER, _at(node))
        if self._cold(node):
            return []
        out: list[_Visit] = [(e, scope) for e in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]]
        inner = _Scope("class", scope)
        return out + [(statement, inner) for statement in node.body]

    def _comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp, scope: _Scope
    ) -> list[_Visit]:
        generators = node.generators
        out: list[_Visit] = [(generators[0].iter, scope)]  # evaluated in the enclosing scope
        inner = _Scope("comprehension", scope)
        for index, generator in enumerate(generators):
            out.append((generator.target, inner))
            if index:
                out.append((generator.iter, inner))
            out.extend((condition, inner) for condition in generator.ifs)
        if isinstance(node, ast.DictComp):
            out += [(node.key, inner), (node.value, inner)]
        else:
            out.append((node.elt, inner))
        return out

    def visit_ListComp(self, node: ast.ListComp, scope: _Scope) -> list[_Visit]:
        return self._comprehension(node, scope)

    def visit_SetComp(self, node: ast.SetComp, scope: _Scope) -> list[_Visit]:
        return self._comprehension(node, scope)

    def visit_GeneratorExp(self, node: ast.GeneratorExp, scope: _Scope) -> list[_Visit]:
        return self._comprehension(node, scope)

    def visit_DictComp(self, node: ast.DictComp, scope: _Scope) -> list[_Visit]:
        return self._comprehension(node, scope)


def _children(node: ast.AST, scope: _Scope) -> list[_Visit]:
    return [(child, scope) for child in ast.iter_child_nodes(node)]


def _at(node: ast.AST) -> Position:
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))


def _end(node: ast.expr) -> Position:
    return (node.end_lineno or node.lineno, node.end_col_offset or node.col_offset)


def _is_ours(module: str | None) -> bool:
    """`flue_runtime` or any module inside it."""
    return module is not None and (module == MODULE or module.startswith(MODULE + "."))
