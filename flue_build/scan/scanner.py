"""Find `skill(...)` and `markdown(...)` calls bound to `flue_runtime` in Python source, statically.

A file whose bytes never mention `flue_runtime` cannot hold a reference and is skipped
before parsing: that is what keeps a scan of thousands of modules fast. Names are
resolved with Python's scoping rules, so `skill` rebound locally (a parameter, an
assignment, a loop target) is not a reference, and an alias (`from flue_runtime import
skill as s`, `import flue_runtime as fr`) is.
"""

from __future__ import annotations

import ast
import bisect
import io
import re
import tokenize
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from flue_runtime.errors import UnsafeFileError
from flue_runtime.format.diagnostics import Diagnostic
from flue_runtime.format.safe_read import read_regular
from flue_runtime.format.vetting import refused
from flue_runtime.mount.specs import Kind, example_spec, spec_problem

MODULE = "flue_runtime"
NEEDLE = MODULE.encode()

_SKILL, _MARKDOWN, _MODULE, _OTHER = "skill", "markdown", "module", "other"
_FLUE_NAMES = {"skill": _SKILL, "markdown": _MARKDOWN}
_ALIAS = re.compile(rb"\bas\s+([A-Za-z_][A-Za-z0-9_]*)")


@dataclass(frozen=True)
class Call:
    """One reference: its kind, its literal spec, and where it is (1-based line and column)."""

    kind: Kind
    spec: str
    line: int
    column: int


@dataclass
class ScanResult:
    calls: list[Call] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


def might_reference(data: bytes) -> bool:
    """False when the file cannot hold a reference, so it need not be parsed: it never names
    `flue_runtime`, or it never follows `skill`, `markdown`, `flue_runtime` or an `as` alias
    with a call or an attribute (a module that only imports `SkillReference` for typing)."""
    return NEEDLE in data and _reference_pattern(data).search(data) is not None


def _reference_pattern(data: bytes) -> re.Pattern[bytes]:
    """A name flue's functions may be bound to (over-inclusive on purpose), then `(`, `.` or `)`,
    with white space, line continuations and comments allowed in between."""
    names = {b"skill", b"markdown", NEEDLE, *_ALIAS.findall(data)}
    alternatives = b"|".join(re.escape(n) for n in sorted(names))
    return re.compile(rb"\b(?:" + alternatives + rb")\b(?:\s|\\\r?\n|#[^\n]*)*[(.)]")


def scan_file(path: Path, display: str | Callable[[], str]) -> ScanResult:
    """Every reference in one Python file; `display` names it in diagnostics (a callable: only when needed)."""
    try:
        data = read_regular(path).data or b""
    except (UnsafeFileError, OSError) as exc:
        return ScanResult(diagnostics=[refused(display() if callable(display) else display, exc)])
    if not might_reference(data):
        return ScanResult()
    return scan_source(data, display() if callable(display) else display)


def scan_source(data: bytes, display: str) -> ScanResult:
    """Every reference in Python source bytes (the encoding cookie is honoured)."""
    try:
        with warnings.catch_warnings():  # invalid escapes and the like: Python's business, not the build log's
            warnings.simplefilter("ignore")
            tree = ast.parse(data, filename=display)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        # ValueError: a NUL byte (Python 3.11) or a source the declared encoding cannot decode;
        # RecursionError/MemoryError: nesting too deep for Python's own parser (Python cannot import it either).
        line = max(getattr(exc, "lineno", None) or 1, 1)
        column = max(getattr(exc, "offset", None) or 1, 1)
        message = getattr(exc, "msg", None) or str(exc) or type(exc).__name__
        hint = "fix the syntax error; every module of a package is scanned for skill references"
        if isinstance(exc, (RecursionError, MemoryError)):
            message = "nested too deeply for Python's parser"
            hint = "split the deeply nested expression: Python cannot compile this module either"
        return ScanResult(
            diagnostics=[
                Diagnostic.make(
                    "FLU402",
                    display,
                    f"does not parse: {message}",
                    hint,
                    line,
                    column,
                )
            ]
        )
    binder = _Binder(_hot_lines(data))
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


def _hot_lines(data: bytes) -> frozenset[int]:
    """Lines where a reference could start (`_reference_pattern`). Function and class bodies
    without such a line hold no reference and are not walked: most of a large module is
    skipped after parsing.
    """
    pattern = _reference_pattern(data)
    hot: set[int] = set()
    line, position = 1, 0
    for match in pattern.finditer(data):
        line += data.count(b"\n", position, match.start())
        position = match.start()
        hot.add(line)
    return frozenset(hot)


def _check_call(node: ast.Call, kind: Kind, display: str, columns: _Columns, result: ScanResult) -> None:
    argument: ast.expr | None = node.args[0] if node.args else None
    if argument is None:
        argument = next((k.value for k in node.keywords if k.arg == "spec"), None)
    where = argument if argument is not None else node
    line, column = where.lineno, columns.column(where.lineno, where.col_offset)

    def fail(code: str, message: str, hint: str) -> None:
        result.diagnostics.append(Diagnostic.make(code, display, message, hint, line, column))

    if argument is None or isinstance(argument, ast.Starred):
        fail("FLU401", f"`{kind}()` needs one string literal spec", f'write `{kind}("{example_spec(kind)}")`')
        return
    if not (isinstance(argument, ast.Constant) and isinstance(argument.value, str)):
        fail(
            "FLU401",
            f"dynamic {kind} reference: the spec is {_describe(argument)}, not one string literal",
            f"the build finds {kind}s by reading the source; write the spec as one string literal, "
            f'e.g. `{kind}("{example_spec(kind)}")`, and pick between several literal calls if you must',
        )
        return
    spec = argument.value
    problem = spec_problem(kind, spec)
    if problem:
        fail("FLU403", f"malformed {kind} spec `{spec}`: {problem}", f'for example `{kind}("{example_spec(kind)}")`')
        return
    result.calls.append(Call(kind, spec, line, column))


def _describe(node: ast.expr) -> str:
    if isinstance(node, ast.JoinedStr):
        return "an f-string"
    if isinstance(node, ast.Name):
        return f"the variable `{node.id}`"
    if isinstance(node, ast.BinOp):
        return "a concatenation" if isinstance(node.op, ast.Add) else "a computed expression"
    if isinstance(node, ast.Call):
        return "a function call"
    if isinstance(node, ast.Constant):
        return f"a {type(node.value).__name__} constant"
    if isinstance(node, ast.Attribute):
        return "an attribute"
    return "an expression"


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
            self._lines = text.splitlines()
        if 0 < line <= len(self._lines):
            raw = self._lines[line - 1].encode("utf-8")
            return len(raw[:offset].decode("utf-8", "replace")) + 1
        return offset + 1


# --- scopes ------------------------------------------------------------------------


Position = tuple[int, int]


class _Scope:
    def __init__(self, kind: str, parent: _Scope | None) -> None:
        self.kind = kind  # module, function, class, comprehension
        self.parent = parent
        self.bindings: dict[str, list[tuple[Position, str]]] = {}
        self.globals: set[str] = set()
        self.nonlocals: set[str] = set()

    def bind(self, name: str, what: str, where: Position) -> None:
        self.bindings.setdefault(name, []).append((where, what))

    def module(self) -> _Scope:
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope

    def lookup(self, name: str, where: Position) -> str | None:
        """What `name` read at `where` in this scope refers to: a flue kind, _OTHER, or None (a builtin).

        In the reading scope itself the last binding before the read wins (an import,
        then a loop target of the same name: the loop target); from an enclosing scope,
        which is read later, any flue import of the name counts.
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
                            return max(before, key=lambda item: item[0])[1]
                    flue = sorted({what for _, what in found} - {_OTHER})
                    return flue[0] if flue else _OTHER
            first = False
            scope = scope.parent
        return None


def _call_kind(func: ast.expr, scope: _Scope) -> Kind | None:
    where = (func.lineno, func.col_offset)
    if isinstance(func, ast.Name):
        found = scope.lookup(func.id, where)
        if found == _SKILL:
            return "skill"
        if found == _MARKDOWN:
            return "markdown"
        return None
    if isinstance(func, ast.Attribute) and func.attr in _FLUE_NAMES and isinstance(func.value, ast.Name):
        if scope.lookup(func.value.id, where) == _MODULE:
            return "skill" if func.attr == "skill" else "markdown"
    return None


_Visit = tuple[ast.AST, _Scope]


class _Binder:
    """One pass: builds the scope tree, records every binding and every call with its scope.

    The walk is iterative (an explicit stack of node and scope), so an expression or a
    nesting depth that Python's parser accepts never overflows the scanner's own stack.
    Lookups happen after the walk and compare source positions, so the order in which
    nodes are visited does not matter.
    """

    def __init__(self, hot: frozenset[int]) -> None:
        self.module = _Scope("module", None)
        self.calls: list[tuple[ast.Call, _Scope]] = []
        self.hot = sorted(hot)

    def run(self, tree: ast.AST) -> None:
        pending: list[_Visit] = [(tree, self.module)]
        while pending:
            node, scope = pending.pop()
            handler = getattr(self, f"visit_{type(node).__name__}", None)
            children = handler(node, scope) if handler is not None else _children(node, scope)
            pending.extend(reversed(children))

    def _cold(self, node: ast.stmt | ast.expr) -> bool:
        """True when no line of `node` can start a reference: its inside need not be walked."""
        end = node.end_lineno or node.lineno
        index = bisect.bisect_left(self.hot, node.lineno)
        return index >= len(self.hot) or self.hot[index] > end

    # bindings ---------------------------------------------------------------------

    def visit_Name(self, node: ast.Name, scope: _Scope) -> list[_Visit]:
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            scope.bind(node.id, _OTHER, _at(node))
        return []

    def visit_Import(self, node: ast.Import, scope: _Scope) -> list[_Visit]:
        for alias in node.names:
            top = alias.name.split(".")[0]
            if alias.asname is None:
                scope.bind(top, _MODULE if top == MODULE else _OTHER, _at(node))
            else:
                scope.bind(alias.asname, _MODULE if alias.name == MODULE else _OTHER, _at(node))
        return []

    def visit_ImportFrom(self, node: ast.ImportFrom, scope: _Scope) -> list[_Visit]:
        ours = node.level == 0 and node.module == MODULE
        for alias in node.names:
            if alias.name == "*":
                if ours:
                    for name, what in _FLUE_NAMES.items():
                        scope.bind(name, what, _at(node))
                continue
            what = _FLUE_NAMES.get(alias.name, _OTHER) if ours else _OTHER
            scope.bind(alias.asname or alias.name, what, _at(node))
        return []

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
        target.bind(node.target.id, _OTHER, _at(node.target))
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
