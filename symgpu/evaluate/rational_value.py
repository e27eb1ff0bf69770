"""An expression's exact value at rational inputs in Python's ``Fraction`` arithmetic, where that is all it takes.

:mod:`.ties` decides, at each point a check visits, whether a case relation is within
:data:`stepwise.NEAR` of a tie, from the exact values of its sides and of the terms of their
difference. SymPy's ``xreplace`` builds each of those values as SymPy objects, node by node (Hong &
Kim's regime table: some 3600 substitutions, a fifth of ``regimes Exec_cycles_app``); where every node
is rational arithmetic (sums, products, integer powers, ``Min``/``Max``, ``floor``/``ceiling``,
``Abs``) of rational numbers and inputs, the value is one rational number either way, and
``Fraction`` computes it without building SymPy objects. Anything else (a float literal, a root, a
function, a ``Piecewise``, a division by zero) gives None: the caller substitutes with SymPy, as before.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction

import sympy

#: a node whose value is no rational number of this arithmetic (kept in the memo as such)
_NO = None

Memo = dict[sympy.Basic, Fraction | None]


def inputs(mapping: Mapping[sympy.Symbol, sympy.Basic]) -> dict[sympy.Basic, Fraction | None]:
    """A memo that starts from ``mapping``'s values as fractions (None for a value that is no rational number)."""
    return {s: Fraction(int(v.p), int(v.q)) if isinstance(v, sympy.Rational) else _NO for s, v in mapping.items()}


def value(expr: sympy.Basic, memo: Memo) -> Fraction | None:
    """``expr``'s exact value with each symbol at its value in ``memo`` (:func:`inputs`; shared by the calls of one
    point), or None where a node is not rational arithmetic or has no value (a division by zero)."""
    found = memo.get(expr, memo)
    if found is not memo:
        return found  # type: ignore[return-value]
    try:
        out = _value(expr, memo)
    except (ZeroDivisionError, OverflowError, RecursionError):
        out = _NO
    memo[expr] = out
    return out


def _value(expr: sympy.Basic, memo: Memo) -> Fraction | None:
    if isinstance(expr, sympy.Rational):
        return Fraction(int(expr.p), int(expr.q))
    if isinstance(expr, sympy.Symbol):
        return _NO  # a symbol the mapping leaves free
    if isinstance(expr, (sympy.Add, sympy.Mul, sympy.Min, sympy.Max)):
        found = [value(a, memo) for a in expr.args]
        parts = [p for p in found if p is not None]
        if len(parts) < len(found):
            return _NO
        if isinstance(expr, sympy.Add):
            return sum(parts, Fraction(0))
        if isinstance(expr, sympy.Mul):
            return math.prod(parts, start=Fraction(1))
        return min(parts) if isinstance(expr, sympy.Min) else max(parts)
    if isinstance(expr, sympy.Pow):
        exponent = expr.exp
        if not isinstance(exponent, sympy.Integer) or abs(int(exponent)) > 64:
            return _NO
        base = value(expr.base, memo)
        return _NO if base is None else base ** int(exponent)
    if isinstance(expr, (sympy.floor, sympy.ceiling, sympy.Abs)):
        inner = value(expr.args[0], memo)
        if inner is None:
            return _NO
        if isinstance(expr, sympy.Abs):
            return abs(inner)
        return Fraction(math.floor(inner) if isinstance(expr, sympy.floor) else math.ceil(inner))
    return _NO
