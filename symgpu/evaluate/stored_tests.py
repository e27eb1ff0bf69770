"""Near-tie tests (:func:`symgpu.evaluate.ties.near_points`) kept in the cache as data, and run back without SymPy.

Building an array evaluation's near-tie test costs seconds of SymPy per quantity (the test, its base-unit form,
printing: the fixed cost of ``symgpu kernel --launches``); the function it compiles to is one expression of NumPy
calls. :func:`record` reads that function's source (printed by ``lambdify`` from symgpu's own expressions, parsed
with :mod:`ast`, never text from a file) into a tree of plain data: arguments, constants, Python's operators, and
calls of the NumPy functions of :data:`FUNCTIONS` (``logical_and.reduce``/``logical_or.reduce``, and
``functools.reduce`` of ``minimum``/``maximum``, as SymPy prints them). :func:`run` evaluates such a tree by a short
recursive walk that makes the same calls on the same operands in the same order as the printed code, so the same
bits. A tree comes back from the store through :func:`tree_of`, which checks every node (kinds, names in the table,
arguments in range, constants as numbers, depth and size bounded): nothing read back is executed or unpickled.
The entry (kind ``near_test``) is keyed by the expression's ``srepr``, the model's definitions and symgpu's source,
and a tree is kept only where it gave the compiled function's flags, bit for bit, at the points it was built for.

NOTE: imports SymPy only to key an entry (``srepr``).
"""

from __future__ import annotations

import ast
import functools
import inspect
import json
import operator
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy

from symgpu import store
from symgpu.entry_kinds import NEAR_TEST
from symgpu.evaluate.state import state_of

if TYPE_CHECKING:
    from symgpu.model import Model

#: the NumPy functions a tree may call by name
FUNCTIONS = frozenset({
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "logical_not",
    "floor", "ceil", "select", "where", "minimum", "maximum", "amin", "amax", "absolute", "abs", "sqrt", "isnan",
})
#: ``name.reduce(...)`` calls a tree may make, and the functions ``functools.reduce`` may fold with
REDUCED = frozenset({"logical_and", "logical_or"})
FOLDED = frozenset({"minimum", "maximum"})
#: Python's operators as the printed code applies them (the operator itself is called: the same dispatch)
BINARY: dict[str, Callable[[Any, Any], Any]] = {"+": operator.add, "-": operator.sub, "*": operator.mul,
                                                 "/": operator.truediv, "**": operator.pow}
COMPARE: dict[str, Callable[[Any, Any], Any]] = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
                                                  "==": operator.eq, "!=": operator.ne}
_BINARY_AST = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}
_COMPARE_AST = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
#: names the printed code may read as numbers
VALUES = {"nan": float("nan"), "inf": float("inf")}
#: the deepest and the largest tree kept (Python's recursion limit bounds the walk)
MAX_DEPTH, MAX_NODES = 400, 200_000
#: the largest whole number a tree may hold
MAX_WHOLE = 2**53


class _Refused(Exception):
    """Internal: a construct a tree does not hold."""


def record(function: Callable[..., Any], arguments: int) -> Any | None:
    """``function`` (printed by ``lambdify``: ``def f(a, b, ...): return <expression>``, ``arguments`` of them) as a
    tree, or None where its code holds anything else."""
    try:
        tree = ast.parse(inspect.getsource(function))
        definition = tree.body[0]
        if len(tree.body) != 1 or not isinstance(definition, ast.FunctionDef) or len(definition.body) != 1:
            return None
        names = [a.arg for a in definition.args.args]
        body = definition.body[0]
        if len(names) != arguments or not isinstance(body, ast.Return) or body.value is None:
            return None
        return _node(body.value, {n: i for i, n in enumerate(names)}, 0)
    except (_Refused, OSError, TypeError, SyntaxError, IndexError, RecursionError):
        return None


def _node(node: ast.expr, names: dict[str, int], depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise _Refused
    deeper = depth + 1
    if isinstance(node, ast.Name):
        if node.id in names:
            return ["a", names[node.id]]
        if node.id in VALUES:
            return ["n", node.id]
        raise _Refused
    if isinstance(node, ast.Constant):
        return ["c", _constant(node.value)]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY_AST:
        return ["b", _BINARY_AST[type(node.op)], _node(node.left, names, deeper), _node(node.right, names, deeper)]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return ["u", _node(node.operand, names, deeper)]
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE_AST:
        return ["k", _COMPARE_AST[type(node.ops[0])], _node(node.left, names, deeper), _node(node.comparators[0], names, deeper)]
    if isinstance(node, (ast.Tuple, ast.List)):
        return ["t" if isinstance(node, ast.Tuple) else "l", [_node(e, names, deeper) for e in node.elts]]
    if isinstance(node, ast.Call):
        return _call(node, names, deeper)
    raise _Refused


def _call(node: ast.Call, names: dict[str, int], depth: int) -> Any:
    func = node.func
    if (isinstance(func, ast.Name) and func.id == "reduce" and len(node.args) == 2 and not node.keywords
            and isinstance(node.args[0], ast.Name) and node.args[0].id in FOLDED):
        return ["r", node.args[0].id, _node(node.args[1], names, depth)]
    args = [_node(a, names, depth) for a in node.args]
    keywords = {k.arg: _node(k.value, names, depth) for k in node.keywords if k.arg is not None}
    if len(keywords) != len(node.keywords) or set(keywords) - {"default", "axis"}:
        raise _Refused
    if isinstance(func, ast.Name) and func.id in FUNCTIONS:
        return ["f", func.id, args, keywords]
    if (isinstance(func, ast.Attribute) and func.attr == "reduce" and isinstance(func.value, ast.Name)
            and func.value.id in REDUCED and not keywords):
        return ["m", func.value.id, args]
    raise _Refused


def _constant(value: Any) -> Any:
    if isinstance(value, bool) or (isinstance(value, int) and abs(value) <= MAX_WHOLE) or isinstance(value, float):
        return value
    raise _Refused


def run(tree: Any, arguments: Sequence[Any]) -> Any:
    """The value of ``tree`` (checked by :func:`tree_of`, or made by :func:`record`) at ``arguments``."""
    kind = tree[0]
    if kind == "a":
        return arguments[tree[1]]
    if kind == "c":
        return tree[1]
    if kind == "n":
        return VALUES[tree[1]]
    if kind == "b":
        return BINARY[tree[1]](run(tree[2], arguments), run(tree[3], arguments))
    if kind == "u":
        return -run(tree[1], arguments)
    if kind == "k":
        return COMPARE[tree[1]](run(tree[2], arguments), run(tree[3], arguments))
    if kind in ("t", "l"):
        items = [run(e, arguments) for e in tree[1]]
        return tuple(items) if kind == "t" else items
    if kind == "f":
        args = [run(a, arguments) for a in tree[2]]
        return getattr(np, tree[1])(*args, **{k: run(v, arguments) for k, v in tree[3].items()})
    if kind == "m":
        return getattr(np, tree[1]).reduce(*[run(a, arguments) for a in tree[2]])
    return functools.reduce(getattr(np, tree[1]), run(tree[2], arguments))  # "r"


def tree_of(data: Any, arguments: int) -> Any | None:
    """``data`` read back as a tree of ``arguments`` arguments, every node checked; None where anything is amiss."""
    count = [0]
    try:
        return _checked(data, arguments, 0, count)
    except _Refused:
        return None


def _checked(node: Any, arguments: int, depth: int, count: list[int]) -> Any:
    count[0] += 1
    if depth > MAX_DEPTH or count[0] > MAX_NODES or not isinstance(node, list) or not node or not isinstance(node[0], str):
        raise _Refused
    kind, rest = node[0], node[1:]
    deeper = depth + 1

    def each(items: Any) -> list[Any]:
        if not isinstance(items, list):
            raise _Refused
        return [_checked(i, arguments, deeper, count) for i in items]

    if kind == "a" and len(rest) == 1 and type(rest[0]) is int and 0 <= rest[0] < arguments:
        return node
    if kind == "c" and len(rest) == 1 and type(rest[0]) in (bool, int, float):
        return ["c", _constant(rest[0])]
    if kind == "n" and len(rest) == 1 and rest[0] in VALUES:
        return node
    if kind in ("b", "k") and len(rest) == 3 and rest[0] in (BINARY if kind == "b" else COMPARE):
        return [kind, rest[0], _checked(rest[1], arguments, deeper, count), _checked(rest[2], arguments, deeper, count)]
    if kind == "u" and len(rest) == 1:
        return ["u", _checked(rest[0], arguments, deeper, count)]
    if kind in ("t", "l") and len(rest) == 1:
        return [kind, each(rest[0])]
    if kind == "f" and len(rest) == 3 and rest[0] in FUNCTIONS and isinstance(rest[2], dict) and set(rest[2]) <= {"default", "axis"}:
        return ["f", rest[0], each(rest[1]), {k: _checked(v, arguments, deeper, count) for k, v in rest[2].items()}]
    if kind == "m" and len(rest) == 2 and rest[0] in REDUCED:
        return ["m", rest[0], each(rest[1])]
    if kind == "r" and len(rest) == 2 and rest[0] in FOLDED:
        return ["r", rest[0], _checked(rest[1], arguments, deeper, count)]
    raise _Refused


def key(model: Model, expr: sympy.Basic) -> str:
    """The store key of ``expr``'s near-tie test in ``model``: its ``srepr`` (symbols with their assumptions), the
    model's symbols and equations as defined, symgpu's source and its libraries' versions."""
    kept = state_of(model).compiled
    found = kept.get(("stored tests", "definitions"))
    if found is None:
        found = kept[("stored tests", "definitions")] = store.digest(
            repr(sorted((n, repr(d)) for n, d in model.symbol_definitions.items())),
            repr([repr(e.definition) for e in model.equations.values()]))
    return store.digest(NEAR_TEST.version, store.engine_digest(), found, sympy.srepr(expr))


def stored(model: Model, expr: sympy.Basic) -> tuple[bool, tuple[tuple[str, ...], Any] | None]:
    """The test kept for ``expr``: (found, (argument names, tree) or None for no test)."""
    if not store.enabled():
        return False, None
    body = store.get(NEAR_TEST, key(model, expr))
    if body is None:
        return False, None
    try:
        data = json.loads(body)
        if data is None:
            return True, None
        names = data["args"]
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            return False, None
        tree = tree_of(data["tree"], len(names))
    except (ValueError, KeyError, TypeError, RecursionError):
        return False, None
    return (tree is not None), (None if tree is None else (tuple(names), tree))


def keep(model: Model, expr: sympy.Basic, names: tuple[str, ...] | None, tree: Any) -> None:
    """Store ``expr``'s test: its argument ``names`` and ``tree`` (None for both: no test)."""
    if store.enabled():
        store.put(NEAR_TEST, key(model, expr), json.dumps(None if names is None else {"args": list(names), "tree": tree}))
