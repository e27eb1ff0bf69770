"""Tables of the innermost axis for numba's sweep loop: the common subexpressions of a fused function that read no
swept symbol but the innermost axis, computed once per value of that axis (per box of the grid) instead of once per
point.

:func:`split` takes the fused outputs' common subexpressions exactly as ``lambdify`` with ``cse=True`` takes them
(``sympy.cse(expr, list=False)``) and sorts them: those of numbers (not conditions, nor whole numbers such as a ``floor``: a table holds
floats) whose swept symbols are the
innermost axis alone go to the table function, which returns the ones the rest reads (the frontier); the point
function takes the frontier as arguments and computes the rest. Each subexpression is printed and computed as in the
function without tables (the same expression, the same operations in the same order, no ``fastmath``), so every value
and every tie decision is the same to the bit; only where it is computed moves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import sympy


@dataclass(frozen=True)
class Split:
    """A fused function's common subexpressions sorted for tables (see :func:`split`)."""

    table_body: tuple[tuple[sympy.Symbol, sympy.Basic], ...]  # what the table function computes, in CSE order
    frontier: tuple[sympy.Symbol, ...]  # the table's outputs: the subexpressions the point function reads from it
    point_body: tuple[tuple[sympy.Symbol, sympy.Basic], ...]  # what the point function computes, in CSE order
    reduced: sympy.Basic  # the outputs in those subexpressions


@dataclass(frozen=True)
class Tabled:
    """A numba fused function with a table of its innermost axis: ``table((x,), fixed)`` is the tuple of ``count``
    frontier values at that axis's value ``x``; ``point(row, fixed, entries, t)`` the outputs at the point ``row``, its
    frontier values read from ``entries[:, t]`` (a row per frontier value, a column per value of the axis)."""

    point: Callable[..., Any]
    table: Callable[..., Any]
    count: int


def split(expr: sympy.Basic, swept: Sequence[sympy.Symbol]) -> Split:
    """``expr``'s common subexpressions (``sympy.cse(expr, list=False)``, as ``lambdify`` takes them) sorted into
    those a table of the last of ``swept`` holds and the rest; ``frontier`` is empty where there is nothing to
    tabulate."""
    replacements, reduced = sympy.cse(expr, list=False)
    innermost, others = swept[-1], set(swept[:-1])
    floats = set(expr.free_symbols)  # the swept and fixed symbols, then every subexpression surely a float
    reads: dict[sympy.Symbol, set[sympy.Symbol]] = {}  # per subexpression, the swept symbols it reads
    tabled: set[sympy.Symbol] = set()
    for symbol, value in replacements:
        free = value.free_symbols
        reads[symbol] = (free & (others | {innermost})).union(*(reads[s] for s in free if s in reads))
        if _surely_float(value, floats):
            floats.add(symbol)
            if reads[symbol] == {innermost}:
                tabled.add(symbol)
    used = set(reduced.free_symbols)
    for symbol, value in replacements:
        if symbol not in tabled:
            used |= value.free_symbols
    frontier = tuple(s for s, _ in replacements if s in tabled and s in used)
    needed = set(frontier)  # the table's body: the frontier and what it reads, in CSE order
    for symbol, value in reversed(replacements):
        if symbol in needed:
            needed |= {s for s in value.free_symbols if s in reads}
    return Split(tuple((s, v) for s, v in replacements if s in needed), frontier,
                 tuple((s, v) for s, v in replacements if s not in tabled), reduced)


#: functions numba's ``math`` computes in floats from floats
_FLOAT_FUNCTIONS = (sympy.exp, sympy.log, sympy.sin, sympy.cos, sympy.tan, sympy.atan, sympy.sinh, sympy.cosh, sympy.tanh)


def _surely_float(value: sympy.Basic, floats: set[sympy.Symbol]) -> bool:
    """Whether ``value``, printed for numba, is surely a float (so a table of floats holds it unchanged): ``floats``
    (the inputs and the subexpressions already found so), float literals, and sums, products and powers with such a term,
    Min/Max, ``Abs`` and cases of such, the float functions of ``math``; not a whole part (``floor`` is an integer in
    numba), a bare integer or a truth value."""
    if isinstance(value, sympy.Symbol):
        return value in floats  # an input, or a subexpression found a float
    if isinstance(value, sympy.Float):
        return True
    if isinstance(value, (sympy.Add, sympy.Mul, sympy.Pow)):
        return any(_surely_float(a, floats) for a in value.args)
    if isinstance(value, (sympy.Min, sympy.Max, sympy.Abs, *_FLOAT_FUNCTIONS)):
        return all(_surely_float(a, floats) for a in value.args)
    if isinstance(value, sympy.Piecewise):
        return all(_surely_float(e, floats) for e, _ in value.args)
    return False
