"""Exact substitution that takes the one-sided limit where a nonnegative input is 0.

A symbol declared ``nonnegative`` may be 0 where a formula divides by it, provided the
quotient only appears where +oo is harmless: Volkov's ALU bound ``alu_thru/alpha`` inside
``Min(n/Latency, mem_thru, alu_thru/alpha, ...)`` at alpha = 0 (the memory-only workload).
Compiled NumPy code gets this right by IEEE arithmetic (x/0 = inf, min(..., inf)), but exact
SymPy substitution gives ``zoo``, which ``Min`` refuses. Here the value at 0 is the limit as
the symbol tends to 0 from above — the only side its declared domain has — taken argument by
argument through ``Min``/``Max`` (continuous in the extended reals, where SymPy's ``limit``
cannot go) and by :func:`sympy.limit` below them.
"""

from __future__ import annotations

from collections.abc import Mapping

import sympy

from symgpu import errors
from symgpu.memo import Tally
from symgpu.model import printing
from symgpu.proofs import forms, rational_value

_UNDEFINED = (sympy.nan, sympy.zoo)

#: :func:`value_at` values left to SymPy's substitution (a part that is no rational arithmetic)
_SYMPY_VALUES = Tally("evaluate.one_sided.sympy_values")


def _finite_or_ordered(value: sympy.Basic) -> bool:
    return not any(value.has(u) for u in _UNDEFINED)


def limit_from_above(expr: sympy.Basic, symbol: sympy.Symbol) -> sympy.Basic:
    """``lim expr`` as ``symbol -> 0+``, through ``Min``/``Max`` argument by argument.

    Raises:
        errors.EvaluationError: the limit is undefined (e.g. ``0 * oo`` outside a Min).
    """
    if symbol not in expr.free_symbols:
        return expr
    if isinstance(expr, (sympy.Min, sympy.Max)):
        return expr.func(*[limit_from_above(a, symbol) for a in expr.args])
    if not expr.has(sympy.Min, sympy.Max, sympy.Piecewise):
        value = sympy.limit(expr, symbol, 0, "+")
    elif isinstance(expr, sympy.Piecewise):
        raise errors.EvaluationError(f"{symbol} = 0 makes a piecewise expression singular; give a positive value")
    else:
        value = expr.func(*[limit_from_above(a, symbol) for a in expr.args])
    if not _finite_or_ordered(value) or value.has(sympy.Limit, sympy.AccumBounds):
        raise errors.EvaluationError(f"{symbol} = 0: no limit found as {symbol} -> 0+ for {printing.brief(expr, 120)}; give a positive value")
    return value


def substitute(expr: sympy.Basic, mapping: Mapping[sympy.Symbol, sympy.Basic],
               memo: dict[sympy.Basic, tuple[sympy.Basic, bool]] | None = None) -> sympy.Basic:
    """``expr.xreplace(mapping)``; where that is undefined (``zoo``, ``nan``, or a ``Min`` of
    ``zoo``) and nonnegative symbols are mapped to 0, their one-sided limits from above.
    ``memo``: the outcomes of ``xreplace(mapping)`` per subexpression, shared by calls with the same
    ``mapping`` (one point's relations and value repeat most of their subexpressions); a new one if None.

    Raises:
        errors.NoValueError: the value is undefined and no symbol mapped to 0 may take its limit.
        errors.EvaluationError: the value is undefined and no such limit is found.
    """
    try:
        replaced = _replaced(expr, dict(mapping), {} if memo is None else memo)
        if _finite_or_ordered(replaced):
            return replaced
    except ValueError:  # Min/Max of a non-comparable argument (zoo)
        pass
    at_zero = [s for s, v in mapping.items() if v == 0 and s.is_nonnegative and s in expr.free_symbols]
    if not at_zero:
        raise errors.NoValueError(f"the expression is undefined at the given values ({printing.brief(expr, 120)})")
    try:
        partial = _replaced(expr, {s: v for s, v in mapping.items() if s not in at_zero})
    except ValueError:  # undefined (a Min of zoo) whatever the symbols at 0 do
        raise errors.NoValueError(f"the expression is undefined at the given values ({printing.brief(expr, 120)})") from None
    for symbol in at_zero:
        partial = limit_from_above(partial, symbol)
    return partial


def value_at(expr: sympy.Basic, mapping: Mapping[sympy.Symbol, sympy.Basic], *, limits: bool = True) -> sympy.Basic:
    """``expr`` at a point that gives each of its free symbols a value: where every part is rational arithmetic of
    rational values (:mod:`symgpu.proofs.rational_value`), that exact number, which SymPy's substitution gives too,
    without building SymPy objects node by node (a sweep's near-tie points, each evaluated exactly); else
    :func:`substitute` (``limits=False``: ``expr.xreplace(mapping)``, no one-sided limit).

    Raises:
        errors.NoValueError, errors.EvaluationError: as :func:`substitute`.
    """
    rational = rational_value.value(expr, rational_value.inputs(mapping))
    if rational is not None:  # no division by zero on the way, so no limit to take either
        return sympy.Rational(rational.numerator, rational.denominator)
    _SYMPY_VALUES.add()
    return substitute(expr, mapping) if limits else expr.xreplace(mapping)


def _replaced(expr: sympy.Basic, rule: dict[sympy.Symbol, sympy.Basic],
              memo: dict[sympy.Basic, tuple[sympy.Basic, bool]] | None = None) -> sympy.Basic:
    """``expr.xreplace(rule)``, each distinct subexpression rebuilt once (:func:`forms.xreplaced`): a first-match
    ``Piecewise`` repeats its earlier conditions, negated, in every later one (Hong & Kim's regime table)."""
    return forms.xreplaced(expr, rule, {} if memo is None else memo)[0]
