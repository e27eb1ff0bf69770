"""Memoised forms of expressions for the derivation engine: factored (``sympy.factor``) and
simplified (``sympy.simplify``, or ``cancel`` for large expressions), each computed once per
expression (both are deterministic: the same input gives the same output)."""

from __future__ import annotations

from typing import Any

import sympy

_PIECEWISE = (sympy.Min, sympy.Max, sympy.Piecewise)
#: simplified forms by expression (simplify is deterministic: the same input gives the same output)
_SIMPLIFIED: dict[sympy.Basic, sympy.Basic] = {}
#: factored forms by expression (``sympy.factor`` is deterministic too; tidying meets the same
#: polynomial again under each regime and variable)
_FACTORED: dict[sympy.Basic, sympy.Basic] = {}


def factored(expr: sympy.Expr) -> sympy.Expr:
    """``sympy.factor(expr)``, memoised per expression."""
    if expr not in _FACTORED:
        if len(_FACTORED) > 20000:
            _FACTORED.clear()
        _FACTORED[expr] = sympy.factor(expr)
    return _FACTORED[expr]


def has_pieces(expr: Any) -> bool:
    return isinstance(expr, sympy.Basic) and expr.has(*_PIECEWISE)


def small_simplify(expr: sympy.Expr) -> sympy.Expr:
    """Simplify, but only when the expression is small enough to do it quickly (memoised per expression)."""
    if not isinstance(expr, sympy.Basic) or expr.is_Atom:
        return expr
    if expr in _SIMPLIFIED:
        return _SIMPLIFIED[expr]
    try:
        if sympy.count_ops(expr) > 120:
            out = sympy.cancel(expr) if not has_pieces(expr) else expr
        else:
            out = sympy.simplify(expr)
    except (TypeError, ValueError, NotImplementedError, RecursionError):
        out = expr
    if len(_SIMPLIFIED) > 20000:
        _SIMPLIFIED.clear()
    _SIMPLIFIED[expr] = out
    return out


def nice(expr: Any) -> Any:
    """Present a result: :func:`small_simplify` (non-expressions are returned as they are)."""
    if not isinstance(expr, sympy.Expr):
        return expr
    out = small_simplify(expr)
    return out
