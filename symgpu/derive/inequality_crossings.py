"""``f(x) REL t`` at a point where ``f`` is a continuous, piece-free function of the variable alone with exact
numbers in it that neither layer-by-layer inversion nor SymPy's rational inequality covers (Volkov's H100
latency-bound root ``x/(2*x + sqrt(a*x + (c - 2*x)**2) + c)``, its Min already decided by the point's numbers).

``f - t`` is written as one fraction; its denominator's sign must be proved over the variable's declared range
(so the fraction is continuous there and keeps its sign between the numerator's zeros). The numerator's closed-form
real roots (:func:`symgpu.derive.roots.real_root_cases`: a square root squared away, each candidate checked) that
lie in the declared range and give a residual within :data:`RESIDUAL` at 30 digits are the crossings; the sign of
``f - t`` read at 30 digits at one value inside each interval between them says where the relation holds, and a
crossing belongs to the set exactly for ``<=``/``>=``. SymPy's own ``solve_univariate_inequality`` ran past two
minutes on the Volkov form. The answer is certified on the evaluate path (:mod:`symgpu.derive.certify_bound`).
"""

from __future__ import annotations

from typing import Any

import mpmath
import sympy

from symgpu import errors
from symgpu.derive import roots, summary

#: the relative residual of the numerator at a candidate (30 digits) below which it is a crossing
RESIDUAL = 1e-20
_DIGITS = 30
#: the most crossings read one by one
MAX_CROSSINGS = 16
#: the highest degree of the polynomial whose real roots are the candidates
MAX_DEGREE = 12
#: the most characters a refusal shows of why no layer peeled
WHY = 120


def where(split: Any, f: sympy.Expr, op: type[sympy.core.relational.Relational], t: sympy.Expr,
          error: errors.DerivationError) -> sympy.Set:
    """The values of ``split.x`` (a set of reals, inside ``split.universe``) where ``f op t``; ``split`` gives the
    variable, its declared range, ``sign`` and ``refuse``; ``error``: why no layer peeled, for a refusal.

    Raises:
        errors.DerivationError: the denominator's sign is not proved, the roots have no closed form, or a sign is not decided."""
    x, universe = split.x, split.universe
    numerator, denominator = sympy.together(f - t).as_numer_denom()
    if _strict_sign(split, denominator) is None:
        raise split.refuse(f"no rule inverts it at the point ({_why(error)}), and the denominator of {split.show(f - t)} has no proved "
                           "sign over the variable's declared range, so it may jump")
    crossings: list[sympy.Expr] = []
    for root in _candidates(split, f - t, error):
        inside = universe.contains(root)
        if inside not in (sympy.true, sympy.false):
            raise split.refuse(f"whether the candidate crossing {split.show(root)} is admissible is not decided at the point")
        if inside is sympy.false:
            continue
        terms = [_number(term.xreplace({x: root})) for term in sympy.Add.make_args(sympy.expand(numerator))]
        residual = _number(numerator.xreplace({x: root}))
        if residual is None or None in terms or abs(residual) > RESIDUAL * max([abs(v) for v in terms if v is not None] + [1e-300]):
            continue  # a root of the squared form only
        value = _number(root) or 0.0
        if all(abs(value - (_number(c) or 0.0)) > 1e-25 * max(1.0, abs(value)) for c in crossings):
            crossings.append(root)
    if len(crossings) > MAX_CROSSINGS:
        raise split.refuse(f"it crosses its target at {len(crossings)} values at the point, too many to read one by one")
    crossings.sort(key=lambda c: _number(c) or 0.0)
    ends = [universe.inf, *crossings, universe.sup]
    out: sympy.Set = sympy.S.EmptySet
    for low, high in zip(ends, ends[1:]):
        inside = _inside(low, high)
        sign = _number((numerator / denominator).xreplace({x: inside}))
        if sign is None or sign == 0:
            raise split.refuse(f"the sign of {split.show(f - t)} at {float(inside):.6g} is not decided at the point")
        if bool(op(sympy.Integer(1 if sign > 0 else -1), 0)):
            out = sympy.Union(out, sympy.Interval.open(low, high))
    if op in (sympy.LessThan, sympy.GreaterThan):  # the crossings themselves hold
        out = sympy.Union(out, sympy.FiniteSet(*crossings))
    return out


def _strict_sign(split: Any, expr: sympy.Expr) -> int | None:
    """The sign of ``expr`` (numbers and the variable) at every admissible value, where it has one and it is proved: SymPy's
    (``split.sign``), else part by part through sums and products, a square root's radicand a polynomial with no real root
    over the admissible values (Volkov's refined root at alpha = 0, ``c*n + sqrt(a*n**2 - b*n + d) + e``: SymPy proves no sign
    of the expanded radicand). None where not proved."""
    proved = split.sign(expr)
    if proved in (1, -1):
        return int(proved)
    weak = _weak_sign(split, expr)
    return weak[0] if weak is not None and weak[1] else None


def _weak_sign(split: Any, expr: sympy.Expr) -> tuple[int, bool] | None:
    """(sign, strict) of ``expr`` over the admissible values: 1 or -1, strict where it is never 0. None where not proved."""
    x = split.x
    if expr.is_positive or expr.is_negative:
        return (1 if expr.is_positive else -1), True
    if expr.is_nonnegative or expr.is_nonpositive:
        return (1 if expr.is_nonnegative else -1), False
    if isinstance(expr, (sympy.Add, sympy.Mul)):
        parts = [_weak_sign(split, a) for a in expr.args]
        if any(p is None for p in parts):
            return None
        signs = [p for p in parts if p is not None]
        if isinstance(expr, sympy.Mul):
            sign = 1
            for part, _ in signs:
                sign *= part
            return sign, all(strict for _, strict in signs)
        if len({part for part, _ in signs}) != 1:
            return None
        return signs[0][0], any(strict for _, strict in signs)
    if expr.is_Pow and expr.exp == sympy.S.Half and expr.base.is_polynomial(x):
        poly = sympy.Poly(expr.base, x)
        if poly.degree() < 1 or not all(c.is_Rational for c in poly.all_coeffs()):
            return None
        low, high = split.universe.inf, split.universe.sup
        ends = [None if e.is_infinite else e for e in (low, high)]
        if not all(e is None or e.is_Rational for e in ends) or poly.count_roots(*ends) != 0:
            return None
        return (1, True) if poly.eval(_inside(low, high)) > 0 else None
    return None


def _candidates(split: Any, gap: sympy.Expr, error: errors.DerivationError) -> list[sympy.Expr]:
    """Every real root of ``gap`` (numbers and the variable) among the real roots of one polynomial: its numerator, or
    with the variable under one square root, ``P**2 - Q**2*R`` for ``P + Q*sqrt(R)``; exactly where its coefficients are
    rational, else to :data:`_DIGITS` digits from ``mpmath.polyroots`` at twice that precision. Not every candidate is a root."""
    x = split.x
    radical = roots.one_square_root(gap, x)
    if radical is not None:
        numerator = sympy.expand(roots.squared_numerator(radical))
    else:
        numerator = sympy.expand(sympy.together(gap).as_numer_denom()[0])
    try:
        poly = sympy.Poly(numerator, x)
    except sympy.PolynomialError:
        poly = None
    if poly is None or any(c.free_symbols for c in poly.all_coeffs()) or poly.is_zero:
        raise split.refuse(f"no rule inverts it at the point ({_why(error)}), and its equation is no polynomial once one square root "
                           "is squared away")
    if poly.degree() > MAX_DEGREE:
        raise split.refuse(f"no rule inverts it at the point ({_why(error)}), and its equation squared is a polynomial of degree "
                           f"{poly.degree()} (at most {MAX_DEGREE} is solved)")
    if poly.degree() < 1:
        return []
    exact = roots.exact_real_roots(poly) if all(c.is_Rational for c in poly.all_coeffs()) else None
    if exact is not None:
        return exact
    with mpmath.workdps(2 * _DIGITS):
        try:
            found = mpmath.polyroots([mpmath.mpf(str(sympy.N(c, 2 * _DIGITS))) for c in poly.all_coeffs()], maxsteps=400, extraprec=4 * _DIGITS)
        except mpmath.libmp.NoConvergence:
            raise split.refuse(f"no rule inverts it at the point ({_why(error)}), and the roots of its equation were not found") from None
        found = found if isinstance(found, list) else [found]
        size = max(abs(r) for r in found) if found else 1
        return [sympy.Float(str(mpmath.re(r)), _DIGITS) for r in found if abs(mpmath.im(r)) <= mpmath.mpf(10) ** (-_DIGITS) * max(size, 1)]


def _why(error: errors.DerivationError) -> str:
    """Why no layer peeled, shortened for a message."""
    return summary.shorten(str(error), WHY, "shortened")


def _inside(low: sympy.Expr, high: sympy.Expr) -> sympy.Expr:
    """A value strictly between ``low`` and ``high`` (either may be infinite), exact."""
    if low == -sympy.oo and high == sympy.oo:
        return sympy.Integer(1)
    if low == -sympy.oo:
        return high - 1 - abs(high)
    if high == sympy.oo:
        return low + 1 + abs(low)
    return (low + high) / 2


def _number(expr: sympy.Basic) -> float | None:
    """``expr`` to 30 digits as a float; None where it is no real number."""
    value = sympy.N(expr, _DIGITS)
    return float(value) if value.is_real and value.is_finite else None
