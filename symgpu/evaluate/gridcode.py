"""A grid function's code rewritten to write into buffers: every grid-sized operation of a
compiled NumPy function (:func:`symgpu.evaluate.compiler.fused_function`, axes that broadcast
against each other) as one ufunc call with ``out=``, its buffer reused once its value is dead,
the last step of each target output written straight into the caller's array (a slice of the
result: no copy after, no fresh pages per chunk), as one writes NumPy by hand.

The operations and their order are the compiled function's own (the same ufuncs on the same
operands: Python's ``a / b`` on arrays is ``true_divide(a, b)``), so every value is the same to
the last bit; only where each grid-sized result is stored changes. Operations over fewer axes
than the grid (constants, one axis) stay as they were: they are small. An operation the rewrite
does not know (a power, a call that is not a ufunc) keeps its own new array.

NOTE: the source rewritten is the one ``lambdify`` printed from SymPy expressions (never text
from a file or the command line); it is parsed with :mod:`ast`, and the rewritten tree is compiled
with the same namespace (the NumPy names the printed code imported).
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

#: Python operators on arrays, as the ufuncs NumPy calls for them
_BINARY = {ast.Add: "add", ast.Sub: "subtract", ast.Mult: "multiply", ast.Div: "true_divide",
           ast.FloorDiv: "floor_divide", ast.Mod: "remainder"}
_UNARY = {ast.USub: "negative", ast.UAdd: "positive"}
_OPERATORS = frozenset(_BINARY.values()) | frozenset(_UNARY.values())
#: ufuncs whose result is boolean (their inputs: floats or booleans)
_BOOLEAN = frozenset({"equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
                      "logical_or", "logical_xor", "logical_not", "isnan", "isinf", "isfinite", "signbit"})
FLOAT, BOOL, OTHER = "f", "b", "o"


@dataclass(frozen=True)
class GridProgram:
    """A grid function that writes into buffers: ``function(*arguments, targets, floats, bools)``.

    ``targets``: per output index, an array of the box's shape to write that output into, or None
    (an output the program did not route there is returned as computed: compare identities);
    ``floats``/``bools``: ``floats_needed``/``bools_needed`` scratch arrays of the box's shape.
    Returns the tuple of outputs, as the compiled function does, except for ``deferred`` outputs.

    ``deferred``: outputs whose last step the program leaves to the caller (asked for with
    ``defer``): their target holds that step's grid-sized operand when the program returns, and
    :func:`finish` applies the step there, once the caller has read the operand."""

    function: Callable[..., Any]
    floats_needed: int
    bools_needed: int
    source: str
    deferred: tuple[Deferred, ...] = ()


@dataclass(frozen=True)
class Deferred:
    """The last step of output ``position``, left to the caller: ``ufunc(*(outputs[i] for i in
    operands), out=targets[position])`` (one operand is ``position`` itself: the grid-sized one,
    computed in the target; the other an output the program appended)."""

    position: int
    ufunc: str
    operands: tuple[int, int]


def finish(program: GridProgram, outputs: Sequence[Any], targets: Sequence[Any]) -> None:
    """Apply ``program``'s deferred last steps in place (see :class:`GridProgram`): the same ufunc on
    the same operands as the step it stands for, so the same bits."""
    for step in program.deferred:
        getattr(np, step.ufunc)(*(outputs[i] for i in step.operands), out=targets[step.position])


#: ufuncs whose last step may be deferred: a Min/Max argument is also a regime row read after
_DEFERRABLE = frozenset({"minimum", "maximum"})


def buffered(function: Callable[..., Any], axes: int, targets: Sequence[int], defer: bool = False) -> GridProgram | None:
    """``function`` (a compiled grid function whose first ``axes`` arguments are the grid's axes as
    broadcasting views, the others scalars) rewritten to write its grid-sized results into buffers,
    output ``i`` of ``targets`` into the caller's array; None where its code cannot be rewritten.

    ``defer``: where a target's last step is a ``minimum``/``maximum`` of one grid-sized value that
    is also an output (a regime row) and values over fewer axes, that value is computed in the
    target and the step left to the caller (:class:`Deferred`): the caller reads the value, then
    :func:`finish` takes the extreme in place, one buffer less than keeping the value apart."""
    try:
        tree = ast.parse(inspect.getsource(function))
    except (OSError, TypeError, SyntaxError):
        return None
    definition = tree.body[0] if tree.body else None
    if axes < 1 or not isinstance(definition, ast.FunctionDef):
        return None
    namespace = function.__globals__
    names = [a.arg for a in definition.args.args]
    if any(n.startswith("_g") or n in ("_np", "_targets", "_floats", "_bools") for n in names):
        return None  # a name the rewritten code uses for itself
    rewriter = _Rewriter([a.arg for a in definition.args.args], axes, namespace)
    for statement in definition.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            rewriter.bind(statement.targets[0].id, statement.value)
        elif isinstance(statement, ast.Return) and isinstance(statement.value, ast.Tuple):
            rewriter.outputs([e for e in statement.value.elts])
        else:
            return None
    source = rewriter.source(definition.name, set(targets), defer)
    scope: dict[str, Any] = {**namespace, "_np": np}
    exec(compile(source, f"<symgpu.evaluate.gridcode {definition.name}>", "exec"), scope)  # noqa: S102 - see NOTE
    return GridProgram(scope[definition.name], rewriter.floats_needed, rewriter.bools_needed, source, rewriter.deferred)


@dataclass(frozen=True)
class _Step:
    """One grid-sized operation: ``name = call(operands)``, or an expression left as it was."""

    name: str
    ufunc: str | None  # None: ``expression`` evaluated as printed (a new array)
    operands: list[ast.expr]
    kind: str
    expression: ast.expr | None = None


class _Rewriter:
    """Flattens the printed statements into steps and gives each grid-sized step a buffer."""

    def __init__(self, arguments: list[str], axes: int, namespace: dict[str, Any]) -> None:
        self.arguments = arguments
        self.full = frozenset(range(axes))
        self.rank: dict[str, frozenset[int]] = {a: frozenset([k]) if k < axes else frozenset() for k, a in enumerate(arguments)}
        self.kind: dict[str, str] = {a: FLOAT for a in arguments}
        self.namespace = namespace
        self.steps: list[_Step] = []
        self.small: list[tuple[str, ast.expr]] = []  # (name, expression) of values over fewer axes, in order
        self.order: list[tuple[str, int]] = []  # ("small"|"step", index) in evaluation order
        self.returned: list[ast.expr] = []
        self.floats_needed = self.bools_needed = 0
        self.counter = 0
        self.deferred: tuple[Deferred, ...] = ()

    def _fresh(self) -> str:
        self.counter += 1
        return f"_g{self.counter}"

    def _ranks(self, node: ast.expr) -> frozenset[int]:
        found: frozenset[int] = frozenset()
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and sub.id in self.rank:
                found |= self.rank[sub.id]
        return found

    def _kind(self, node: ast.expr) -> str:
        if isinstance(node, ast.Name):
            return self.kind.get(node.id, OTHER)
        if isinstance(node, ast.Constant):
            return FLOAT if isinstance(node.value, (int, float)) and not isinstance(node.value, bool) else OTHER
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return self._kind(node.operand)
        if isinstance(node, ast.BinOp) and (type(node.op) in _BINARY or isinstance(node.op, ast.Pow)):
            return FLOAT if self._kind(node.left) == self._kind(node.right) == FLOAT else OTHER
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            name = node.func.id
            kinds = {self._kind(a) for a in node.args}
            if name in _BOOLEAN and kinds <= {FLOAT, BOOL} and self._signature(name, len(node.args), "?"):
                return BOOL
            if kinds == {FLOAT} and self._signature(name, len(node.args), "d"):
                return FLOAT
        return OTHER

    def _signature(self, name: str, count: int, result: str) -> bool:
        """Whether ``name`` is a ufunc of ``count`` inputs and one output that gives ``result``
        (a NumPy type character) for float64 inputs, so one buffer of that type can take it."""
        if name in _OPERATORS:
            return result == "d"
        ufunc = self.namespace.get(name)
        if not isinstance(ufunc, np.ufunc) or ufunc.nin != count or ufunc.nout != 1:
            return False
        return "d" * count + "->" + result in ufunc.types or (result == "?" and "?" * count + "->?" in ufunc.types)

    def _is_ufunc(self, name: str) -> bool:
        """Whether ``name`` is a NumPy ufunc in the printed code (or one a Python operator calls)."""
        return isinstance(self.namespace.get(name), np.ufunc) or name in _OPERATORS

    def _flatten(self, node: ast.expr) -> ast.expr:
        """``node`` with its grid-sized operations made steps (returns a name or a small expression)."""
        if self._ranks(node) != self.full or isinstance(node, (ast.Name, ast.Constant)):
            return node
        ufunc, operands = None, None
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            ufunc, operands = _BINARY[type(node.op)], [node.left, node.right]
        elif isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            ufunc, operands = _UNARY[type(node.op)], [node.operand]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords
              and (self._is_ufunc(node.func.id) or node.func.id == "where")):
            ufunc, operands = node.func.id, list(node.args)
        if ufunc is not None and operands is not None:
            flat = [self._flatten(o) for o in operands]
            kind = self._kind(ast.Call(ast.Name(ufunc), flat, [])) if ufunc != "where" else self._where_kind(flat)
            if kind != OTHER:
                return self._step(_Step(self._fresh(), ufunc, flat, kind))
            if isinstance(node, ast.BinOp):
                node = ast.BinOp(flat[0], node.op, flat[1])
            elif isinstance(node, ast.UnaryOp):
                node = ast.UnaryOp(node.op, flat[0])
            else:
                node = ast.Call(ast.Name(ufunc), flat, [])
        return self._step(_Step(self._fresh(), None, [], OTHER, node))

    def _where_kind(self, operands: list[ast.expr]) -> str:
        if len(operands) != 3 or self._kind(operands[0]) != BOOL:
            return OTHER
        values = operands[1:]
        nan = all(isinstance(v, ast.Name) and v.id == "nan" or self._kind(v) == FLOAT for v in values)
        return FLOAT if nan and any(self._kind(v) == FLOAT for v in values) else OTHER

    def _step(self, step: _Step) -> ast.Name:
        self.steps.append(step)
        self.order.append(("step", len(self.steps) - 1))
        self.rank[step.name] = self.full
        self.kind[step.name] = step.kind
        return ast.Name(step.name)

    def bind(self, name: str, value: ast.expr) -> None:
        rank = self._ranks(value)
        if rank == self.full:
            flat = self._flatten(value)
            self.small.append((name, flat))  # an alias of the step's name
            self.order.append(("small", len(self.small) - 1))
            self.rank[name], self.kind[name] = self.full, self._kind(flat)
        else:
            self.small.append((name, value))
            self.order.append(("small", len(self.small) - 1))
            self.rank[name], self.kind[name] = rank, self._kind(value)

    def outputs(self, values: list[ast.expr]) -> None:
        self.returned = [self._flatten(v) for v in values]

    def _resolve(self, name: str) -> str:
        """The step a name stands for (names bound to a step's name are aliases)."""
        aliases = {n: v.id for n, v in self.small if isinstance(v, ast.Name)}
        while name in aliases and aliases[name] != name:
            name = aliases[name]
        return name

    def _defer(self, targets: set[int], steps: dict[str, _Step], home: dict[str, str], uses: dict[str, int],
               kept: set[str]) -> tuple[set[str], list[ast.expr]]:
        """The target steps left to the caller (see :func:`buffered`): their names, and the outputs
        returned in their place and after the others (:attr:`deferred` says how to finish them)."""
        skipped: set[str] = set()
        returned = list(self.returned)
        deferred: list[Deferred] = []
        for position in sorted(targets):
            value = self.returned[position] if position < len(self.returned) else None
            name = self._resolve(value.id) if isinstance(value, ast.Name) else ""
            step = steps.get(name)
            if step is None or step.ufunc not in _DEFERRABLE or len(step.operands) != 2 or home.get(name) != f"_targets[{position}]":
                continue
            named = [self._resolve(o.id) if isinstance(o, ast.Name) else "" for o in step.operands]
            grid = [i for i, n in enumerate(named) if n in steps]
            others = [v for i, v in enumerate(self.returned) if i != position]
            if (len(grid) != 1 or name in skipped or uses.get(name, 0) or any(isinstance(v, ast.Name) and self._resolve(v.id) == name for v in others)
                    or any(isinstance(v, ast.Name) and v.id != name and self._resolve(v.id) == name for _, v in self.small)):
                continue  # the step's value is read elsewhere, under its name or an alias
            inner = named[grid[0]]
            if (inner not in kept or inner in home or uses.get(inner) != 1 or steps[inner].ufunc is None
                    or steps[inner].kind != FLOAT):
                continue
            home[inner] = home[name]
            skipped.add(name)
            returned[position] = ast.Name(inner)
            extra = len(returned)
            returned.append(step.operands[1 - grid[0]])
            deferred.append(Deferred(position, step.ufunc, (position, extra) if grid[0] == 0 else (extra, position)))
        self.deferred = tuple(deferred)
        return skipped, returned

    def source(self, function_name: str, targets: set[int], defer: bool = False) -> str:
        """The rewritten function's source: buffers given to grid-sized steps in evaluation order
        (a step's dying operand's buffer reused for its result, in place), targets first."""
        steps = {s.name: s for s in self.steps}
        last_use: dict[str, int] = {}
        uses: dict[str, int] = {}
        for i, step in enumerate(self.steps):
            for node in step.operands + ([step.expression] if step.expression is not None else []):
                for sub in ast.walk(node):
                    if isinstance(sub, ast.Name) and self._resolve(sub.id) in steps:
                        name = self._resolve(sub.id)
                        last_use[name], uses[name] = i, uses.get(name, 0) + 1
        kept = {self._resolve(v.id) for v in self.returned if isinstance(v, ast.Name)}
        home: dict[str, str] = {}
        for position, value in enumerate(self.returned):
            name = self._resolve(value.id) if isinstance(value, ast.Name) else ""
            if position in targets and name in steps and steps[name].kind == FLOAT and name not in home:
                home[name] = f"_targets[{position}]"
        for step in reversed(self.steps):  # a dying operand computed in the buffer its one consumer writes
            if step.name not in home or step.ufunc is None:
                continue
            for operand in step.operands[2:] if step.ufunc == "where" else step.operands:
                name = self._resolve(operand.id) if isinstance(operand, ast.Name) else ""
                if (name in steps and steps[name].ufunc is not None and steps[name].kind == step.kind and uses.get(name) == 1
                        and name not in kept and name not in home):
                    home[name] = home[step.name]
                    break
        skipped, returned = self._defer(targets, steps, home, uses, kept) if defer else (set(), self.returned)
        free: dict[str, list[str]] = {FLOAT: [], BOOL: []}
        held: dict[str, str] = {}  # step -> the buffer its value is in
        counts = {FLOAT: 0, BOOL: 0}
        lines = [f"def {function_name}({', '.join(self.arguments + ['_targets', '_floats', '_bools'])}):"]
        for what, i in self.order:
            if what == "small":
                name, value = self.small[i]
                lines.append(f"    {name} = {ast.unparse(value)}")
                continue
            step = self.steps[i]
            if step.name in skipped:
                continue
            if step.ufunc is None:
                assert step.expression is not None
                lines.append(f"    {step.name} = {ast.unparse(step.expression)}")
                continue
            named = [self._resolve(o.id) if isinstance(o, ast.Name) else "" for o in step.operands]
            dying = [n for n in dict.fromkeys(named) if n in steps and last_use.get(n) == i and n not in kept
                     and _pooled(held.get(n))]
            if step.name in home:
                buffer = home[step.name]
            else:
                # in place over a dying operand of the same kind (a where: only over its value-if-false)
                inplace = [n for n in dying if steps[n].kind == step.kind
                           and (step.ufunc != "where" or (named[2] == n and named[1] != n))]
                if inplace:
                    buffer = held[inplace[0]]
                elif free[step.kind]:
                    buffer = free[step.kind].pop()
                else:
                    buffer = f"{'_floats' if step.kind == FLOAT else '_bools'}[{counts[step.kind]}]"
                    counts[step.kind] += 1
            held[step.name] = buffer
            if step.ufunc == "where":
                condition, yes, no = (ast.unparse(o) for o in step.operands)
                if not (isinstance(step.operands[2], ast.Name) and self._resolve(step.operands[2].id) in steps
                        and held.get(self._resolve(step.operands[2].id)) == buffer):
                    lines.append(f"    _np.copyto({buffer}, {no})")
                lines.append(f"    _np.copyto({buffer}, {yes}, where={condition})")
                lines.append(f"    {step.name} = {buffer}")
            else:
                lines.append(f"    {step.name} = _np.{step.ufunc}({', '.join(ast.unparse(o) for o in step.operands)}, out={buffer})")
            for n in dying:
                if held[n] != buffer:
                    free[steps[n].kind].append(held[n])
        lines.append(f"    return ({''.join(ast.unparse(v) + ', ' for v in returned)})")
        self.floats_needed, self.bools_needed = counts[FLOAT], counts[BOOL]
        return "\n".join(lines) + "\n"


def _pooled(buffer: str | None) -> bool:
    """Whether ``buffer`` is a scratch buffer (not a target, not a new array)."""
    return bool(buffer) and not str(buffer).startswith("_targets")

