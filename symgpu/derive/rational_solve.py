"""``sympy.solve`` of an equation rational in its unknown, with SymPy's checks of the candidates shown to keep
every one by exact values at a point, instead of run.

``sympy.solve(target, x)`` finds the candidates (for a rational ``target``: the exact roots of its numerator's
factors, SymPy's radicals, each simplified), then checks each: (1) that it makes no denominator 0 (``checksol(den)``
not True; a check that simplifies the candidate again, in place, as it goes), (2) that it is a root of its factor
(``checksol`` not False), (3) that it may meet the unknown's assumptions (real: ``check_assumptions`` not False).
On a candidate with a square root each check simplifies the equation with the candidate put in and decides nothing
(Hong & Kim's eq23/eq24 switch along ``Uncoal_Mem_insts``: 4 s of each solve, 0.8 s without the checks).

:func:`solved` asks SymPy for the candidates alone (``check=False``: the same path, the same candidates in the same
order, none dropped) and keeps them all where that is what the checks would do, shown without simplifying: at one
point allowed by the symbols' declared assumptions (exact values, :mod:`symgpu.proofs.surds`' ``a + b*sqrt(r)``
where square roots come in) each candidate is real and ``target`` is defined and 0 there, so no denominator is 0
at the candidate (check 1 cannot be True), the candidate is a root (2: a root of its factor by construction, seen
at the point) and real (3); and simplifying each candidate again gives it back unchanged, so the checks' in-place
simplification changes nothing. Anything else (no such point, an expression outside that arithmetic, a candidate
that simplifies further) runs ``sympy.solve`` with its checks, as before.
"""

from __future__ import annotations

from typing import Any

import sympy

from symgpu.proofs import exact_signs, forms, sample_points, surds

#: the most admissible points tried for a candidate (a seeded sequence: the first ones often make a denominator
#: 0 or the candidate's discriminant negative)
POINTS = 16


def solved(target: sympy.Expr, var: sympy.Symbol) -> list[Any]:
    """``sympy.solve(target, var, dict=False)``: the same roots in the same order (see the module notes)."""
    if target.is_rational_function(var) is True:
        try:
            candidates = sympy.solve(target, var, dict=False, check=False)
        except (NotImplementedError, TypeError, ValueError, ArithmeticError):
            candidates = None
        if candidates is not None and all(_kept(target, var, c) for c in candidates):
            return list(candidates)
    return list(sympy.solve(target, var, dict=False))


def _kept(target: sympy.Expr, var: sympy.Symbol, candidate: Any) -> bool:
    """Would SymPy's checks keep ``candidate`` as it is (see the module notes)?"""
    if not isinstance(candidate, sympy.Expr) or var in candidate.free_symbols or candidate.has(sympy.nan, sympy.zoo):
        return False
    if not exact_signs.modest_powers(candidate) or not _root_at_a_point(target, var, candidate):
        return False
    return bool(forms.simplified(candidate) == candidate)  # sympy.simplify, once per candidate


def _root_at_a_point(target: sympy.Expr, var: sympy.Symbol, candidate: sympy.Expr) -> bool:
    """Is ``candidate`` real and ``target`` defined and exactly 0 there, at one of :data:`POINTS` admissible points?"""
    symbols = sample_points.ordered((target.free_symbols | candidate.free_symbols) - {var})
    pools = [sample_points.SMALL.admissible(s) for s in symbols]
    if not all(pools):
        return False
    for point in sample_points.points(symbols, pools, 1729, POINTS, fixed_first=2):
        try:
            root = exact_signs.surd_at(candidate, point)
            values: dict[sympy.Symbol, surds.Number] = {s: exact_signs.surd_at(s, point) for s in symbols}
            values[var] = root
            at = surds.value(target, values.__getitem__, exact_signs.MAX_POINT_EXPONENT, {})
        except (ZeroDivisionError, surds.NotReal):
            continue  # no real value here
        except (surds.Unsupported, KeyError):
            return False  # a node outside that arithmetic (at every point)
        return at == 0
    return False
