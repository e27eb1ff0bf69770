"""Memoised forms of expressions for the derivation engine: factored (``sympy.factor``) and
simplified (``sympy.simplify``, or ``cancel`` for large expressions), each computed once per
expression (both are deterministic: the same input gives the same output)."""

from __future__ import annotations

from typing import Any

import sympy

_PIECEWISE = (sympy.Min, sympy.Max, sympy.Piecewise)
_INTEGER_PARTS = (sympy.floor, sympy.ceiling)
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
        if _monomial_of_integer_parts(expr):
            out = expr.xreplace({part: part.func(small_simplify(part.args[0])) for part in _parts(expr)})
        elif sympy.count_ops(expr) > 120:
            out = sympy.cancel(expr) if not has_pieces(expr) else expr
        else:
            out = sympy.simplify(expr)
    except (TypeError, ValueError, NotImplementedError, RecursionError):
        out = expr
    if len(_SIMPLIFIED) > 20000:
        _SIMPLIFIED.clear()
    _SIMPLIFIED[expr] = out
    return out


def _parts(expr: sympy.Expr) -> set[sympy.Expr]:
    """The ``floor``/``ceiling`` factors of a product (their powers' bases)."""
    return {f.as_base_exp()[0] for f in sympy.Mul.make_args(expr) if isinstance(f.as_base_exp()[0], _INTEGER_PARTS)}


def _monomial_of_integer_parts(expr: sympy.Expr) -> bool:
    """Is ``expr`` a product of integer powers of symbols, numbers and ``floor``/``ceiling``
    terms (a monomial)? ``simplify`` leaves such a product as it is (its factors are
    independent generators) and can change only the terms' arguments: those are simplified
    on their own. (The occupancy limits, floors of floors, took 50-120 ms each in ``simplify``
    for no change.)"""
    if not isinstance(expr, (sympy.Mul, sympy.Pow, *_INTEGER_PARTS)):
        return False
    for factor in sympy.Mul.make_args(expr):
        base, exponent = factor.as_base_exp()
        if not (exponent.is_Integer and (base.is_Symbol or base.is_Number or isinstance(base, _INTEGER_PARTS))):
            return False
    return True


def nice(expr: Any) -> Any:
    """Present a result: :func:`small_simplify` (non-expressions are returned as they are)."""
    if not isinstance(expr, sympy.Expr):
        return expr
    out = small_simplify(expr)
    return out
