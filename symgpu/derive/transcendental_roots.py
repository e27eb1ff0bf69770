"""The real roots of an equation of numbers in one unknown that sits inside a ``log``/``exp`` and outside it
(``x - 2 = 2.0005 - x - 0.0001*log(x)``): no closed form (Lambert's W at best, which symgpu neither evaluates
nor checks), and ``sympy.solve`` on it ran past 5 minutes. Found numerically instead, and all of them: the
domain is split where the expression's derivative vanishes (its roots in closed form, or found the same way one
derivative down) and where its denominator does, so it is monotone on each piece and holds at most one root
there; a piece whose ends (a limit at an open end) differ in sign holds one, bisected to :data:`DIGITS` digits.
None where that split cannot be made (a ``log`` of a non-linear argument, a limit SymPy leaves open, a derivative
of that kind past :data:`DEPTH` levels): the caller then refuses as before."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mpmath
import sympy

from symgpu.evaluate import compiler
from symgpu.memo import Tally

DIGITS = 30  # each root is given to this many digits (a Float)
BISECTED = "bisect roots"  # the step that records roots found here (a derivation's method then says so)
DEPTH = 3  # derivatives looked through for the split points
_WORK_DPS = 60  # mpmath's working precision while bisecting
_BISECTED = Tally("derive.roots.bisected")  # roots found by bisection here (no sympy.solve)
_STEPS = 400  # bisection and bracketing steps per piece at most (60 digits' worth of halvings, doublings to 1e120)


def transcendental_in(expr: sympy.Basic, var: sympy.Symbol) -> list[sympy.Expr]:
    """The ``log``/``exp`` terms of ``expr`` that hold ``var`` where ``var`` sits outside them too (``ilp`` beside
    ``log(ilp)``): no closed form for its roots, a Lambert-W equation at best; ``[]`` elsewhere."""
    inside = [f for f in expr.atoms(sympy.log, sympy.exp) if var in f.free_symbols]
    if not inside:
        return []
    return sorted(inside, key=sympy.default_sort_key) if var in expr.xreplace({f: sympy.Dummy() for f in inside}).free_symbols else []


def bisected_roots(target: sympy.Expr, var: sympy.Symbol, lower: sympy.Expr,
                   solve: Callable[[sympy.Expr], list[Any] | None]) -> list[sympy.Float] | None:
    """The real roots of ``target = 0`` (numbers and ``var`` alone) above ``lower`` (``0`` for a positive
    variable, ``-oo`` for a real one), each a Float of :data:`DIGITS` digits, in increasing order; ``solve``
    gives the closed-form roots of an equation without ``var`` inside and outside a ``log``/``exp`` (a derivative,
    a denominator). None where they cannot all be found this way (see the module's note)."""
    if target.free_symbols != {var}:
        return None
    low = _domain_start(target, var, lower)
    if low is None:
        return None
    return _roots(target, var, low, solve, DEPTH)


def _domain_start(target: sympy.Expr, var: sympy.Symbol, lower: sympy.Expr) -> sympy.Expr | None:
    """Where ``target`` starts to be real: ``lower``, or past it the largest zero of a ``log``'s (or a fractional
    power's) argument linear in ``var`` and rising with it; None for any other argument holding ``var``."""
    start = lower
    arguments = [f.args[0] for f in target.atoms(sympy.log)] + [p.base for p in target.atoms(sympy.Pow) if not p.exp.is_Integer]
    for argument in arguments:
        if var not in argument.free_symbols:
            continue
        try:
            poly = sympy.Poly(argument, var)
        except sympy.PolynomialError:
            return None
        if poly.degree() != 1 or not poly.LC() > 0:
            return None
        zero = -poly.TC() / poly.LC()
        start = zero if start == -sympy.oo or zero > start else start
    return start


def _roots(f: sympy.Expr, var: sympy.Symbol, low: sympy.Expr, solve: Callable[[sympy.Expr], list[Any] | None],
           depth: int) -> list[sympy.Float] | None:
    splits = _split_points(f, var, low, solve, depth)
    if splits is None:
        return None
    value = _evaluator(f, var)
    ends: list[tuple[Any, int]] = []
    for at, side in [(low, "+")] + [(s, None) for s in splits] + [(sympy.oo, "-")]:
        sign = _limit_sign(f, var, at, side) if side is not None else _sign(value(at), at)
        if sign is None:
            return None
        ends.append((at, sign))
    found: list[mpmath.mpf] = [at for at, sign in ends[1:-1] if sign == 0]  # a split point where f vanishes (a double root)
    for (a, sa), (b, sb) in zip(ends, ends[1:]):
        if sa * sb < 0:
            root = _bisect(value, a, b, sa, sb)
            if root is None:
                return None
            found.append(root)
    _BISECTED.count += len(found)
    return [sympy.Float(mpmath.nstr(r, DIGITS + 5), DIGITS) for r in sorted(set(found))]


def _split_points(f: sympy.Expr, var: sympy.Symbol, low: sympy.Expr, solve: Callable[[sympy.Expr], list[Any] | None],
                  depth: int) -> list[mpmath.mpf] | None:
    """The points above ``low`` where ``f``'s derivative or its denominator vanishes, increasing (mpmath numbers)."""
    points: list[mpmath.mpf] = []
    derivative = sympy.diff(f, var)
    denominator = sympy.fraction(sympy.together(f))[1]
    for g in (derivative, denominator):
        if var not in g.free_symbols:
            continue
        if transcendental_in(g, var):
            found: list[Any] | None = _roots(g, var, low, solve, depth - 1) if depth > 1 else None
        else:
            found = solve(g)
        if found is None:
            return None
        for r in found:
            number = _number(r)
            if number is None:
                return None
            if number is not False and (low == -sympy.oo or number > _number(low)):
                points.append(number)
    return sorted(set(points))


def _number(r: Any) -> Any:
    """``r`` as an mpmath real; False for a complex number (no split point); None where it is no number."""
    if not isinstance(r, sympy.Basic) or not r.is_number:
        return None
    with mpmath.workdps(_WORK_DPS):
        z = sympy.N(r, _WORK_DPS)
        if z.has(sympy.nan, sympy.zoo):
            return None
        re, im = z.as_real_imag()
        if im != 0 and abs(im) > 10 ** (-_WORK_DPS // 2) * (1 + abs(re)):
            return False
        return mpmath.mpf(str(re))


def _evaluator(f: sympy.Expr, var: sympy.Symbol) -> Callable[[Any], Any]:
    compiled = compiler.mpmath_function(var, f)

    def value(x: Any) -> Any:
        with mpmath.workdps(_WORK_DPS):
            try:
                y = compiled(mpmath.mpf(x))
            except (ZeroDivisionError, ValueError, OverflowError):
                return None
            return y if isinstance(y, mpmath.mpf) else None
    return value


def _sign(y: Any, at: Any) -> int | None:
    """The sign of ``y = f(at)``: 0 where it is zero to the working precision's half (a root at a split point)."""
    if y is None:
        return None
    scale = 1 + abs(at)
    return 0 if abs(y) < mpmath.mpf(10) ** (-_WORK_DPS // 2) * scale else (1 if y > 0 else -1)


def _limit_sign(f: sympy.Expr, var: sympy.Symbol, at: Any, side: str) -> int | None:
    """The sign of ``f``'s limit at an open end of its domain (``at`` a SymPy number or infinity); None where SymPy leaves it
    open or it is zero (a root at the end is no root inside)."""
    try:
        limit = sympy.limit(f, var, at, side)
    except (NotImplementedError, ValueError, TypeError):
        return None
    if limit in (sympy.oo, -sympy.oo):
        return 1 if limit == sympy.oo else -1
    if not limit.is_number or limit.has(sympy.nan, sympy.zoo, sympy.AccumBounds):
        return None
    number = _number(limit)
    if number is None or number is False or number == 0:
        return None
    return 1 if number > 0 else -1


def _bisect(value: Callable[[Any], Any], a: Any, b: Any, sa: int, sb: int) -> mpmath.mpf | None:
    """The one root between ``a`` and ``b`` (``f`` monotone there, of sign ``sa`` near ``a`` and ``sb`` near ``b``; an
    infinite end or one where ``f`` is undefined first drawn in until the value there has that sign), bisected."""
    with mpmath.workdps(_WORK_DPS):
        lo = _drawn_in(value, a, b, sa)
        hi = None if lo is None else _drawn_in(value, b, lo, sb)
        if lo is None or hi is None:
            return None
        for _ in range(_STEPS):
            mid = (lo + hi) / 2
            y = value(mid)
            if y is None:
                return None
            if y == 0 or hi - lo <= abs(mid) * mpmath.mpf(10) ** (-DIGITS - 8):
                return mid
            lo, hi = (mid, hi) if (y > 0) == (sa > 0) else (lo, mid)
        return None


def _drawn_in(value: Callable[[Any], Any], end: Any, other: Any, sign: int) -> mpmath.mpf | None:
    """A point near ``end`` (toward ``other``) where ``f`` has ``sign``: ``end`` itself where ``f`` has it there."""
    if end in (sympy.oo, -sympy.oo):
        o = mpmath.mpf(0) if other in (sympy.oo, -sympy.oo) else _number(other) if isinstance(other, sympy.Basic) else mpmath.mpf(other)
        step = max(mpmath.mpf(1), abs(o))
        for _ in range(_STEPS):
            x = o + step if end == sympy.oo else o - step
            y = value(x)
            if y is not None and y != 0 and (y > 0) == (sign > 0):
                return x
            step *= 2
        return None
    e = _number(end) if isinstance(end, sympy.Basic) else mpmath.mpf(end)
    if other in (sympy.oo, -sympy.oo):  # toward an infinite other end: from one unit (or |end|) away from end
        o = e + max(mpmath.mpf(1), abs(e)) * (1 if other == sympy.oo else -1)
    else:
        o = _number(other) if isinstance(other, sympy.Basic) else mpmath.mpf(other)
    y = value(e)
    if y is not None and y != 0 and (y > 0) == (sign > 0):
        return e
    for k in range(1, _STEPS):
        x = e + (o - e) / mpmath.mpf(2) ** k
        y = value(x)
        if y is not None and y != 0 and (y > 0) == (sign > 0):
            return x
    return None
