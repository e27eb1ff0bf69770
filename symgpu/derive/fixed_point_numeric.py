"""A fixed point ``x = Min(g(x), K...)`` at a point, numerically: ``g`` and the bounds ``K`` read at the point (the
variable itself excluded: a value the preset gives it is no input of ``g``), every root of ``x = g(x)`` on the domain
(:mod:`.fixed_point_scan`), and from them the fixed points of the whole ``Min`` (:func:`.fixed_point_scan.with_bound`),
of which the one, or the one stable, is the answer. Also the check of a closed form at a point: the roots of its
polynomial there, with the bounds, must give the closed form's value as the one fixed point (:func:`confirms`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import mpmath
import sympy

from symgpu import errors
from symgpu.derive import at_point, declared_range, fixed_point_scan, jobs, results
from symgpu.evaluate import compiler, scaling


@dataclass(frozen=True)
class AtPoint:
    """``x = Min(g(x), K...)`` read at a point, in base units: ``g`` (a function of ``x`` alone), ``x - g(x)`` (``f``)
    and ``g`` (``g_of``) as mpmath functions, the domain ``(low, high)``, the least bound (None: no bound), the least
    whole value an integer variable takes (0 for a real one: no such floor), x's unit scale and unit."""

    g: sympy.Expr
    f: Callable[[Any], Any]
    g_of: Callable[[Any], Any]
    low: Any
    high: Any
    bound: Any
    whole: Any
    scale: sympy.Rational
    unit: str

    def slope(self, r: Any) -> Any:
        return mpmath.diff(self.g_of, r)

    def shown(self, value: Any) -> str:
        return fixed_point_scan.shown(value, self.scale, self.unit)

    def attained(self, low: Any, high: Any) -> bool:
        """Whether ``x - g(x)``, which jumps between ``low`` and ``high`` (a bisected bracket) from a side where it
        vanishes, vanishes at the jump's edge itself: the case conditions of g that switch there taken at their edge (a
        relation that admits equality holds there, a strict one fails), the others as at both ends (gen_11_25's
        ``q0 >= c1`` holds at c1 = q0, a fixed point; gen_11_63's ``q2 < t0`` fails at t0 = q2, none); False where
        none switches (a staircase's step) or a condition has no truth value at an end."""
        symbols = self.g.free_symbols if isinstance(self.g, sympy.Basic) else set()
        if len(symbols) != 1:
            return False
        (x,) = symbols
        with mpmath.workdps(40):
            ends = [sympy.Float(low, 40), sympy.Float(high, 40)]
            truths: dict[sympy.Basic, sympy.Basic] = {}
            switched = False
            for relation in dict.fromkeys(n for n in sympy.preorder_traversal(self.g) if isinstance(n, sympy.core.relational.Relational)):
                sides = [relation.xreplace({x: e}) for e in ends]
                if not all(side in (sympy.true, sympy.false) for side in sides):
                    return False
                closed = isinstance(relation, (sympy.GreaterThan, sympy.LessThan, sympy.Eq))
                switched |= sides[0] != sides[1]
                truths[relation] = sides[0] if sides[0] == sides[1] else sympy.true if closed else sympy.false
            if not switched:
                return False  # no condition switches here: a staircase's step (or a pole), whose edge is not read
            middle = (mpmath.mpf(low) + mpmath.mpf(high)) / 2
            try:
                gap = sympy.N((x - self.g.xreplace(truths)).xreplace({x: sympy.Float(middle, 40)}), 40)
            except (TypeError, ValueError, ZeroDivisionError):
                return False
            if not gap.is_real or not gap.is_finite:
                return False
            return bool(abs(mpmath.mpf(gap)) <= mpmath.mpf(10) ** -10 * max(abs(middle), mpmath.mpf(10) ** -30))

    def fixed(self, found: list[fixed_point_scan.FixedPoint], low: Any, high: Any) -> list[fixed_point_scan.FixedPoint]:
        """The fixed points of the whole Min from ``found`` (the roots of x = g(x) in ``(low, high)``), below an
        integer variable's least whole value dropped."""
        kept = fixed_point_scan.with_bound(found, self.f, self.slope, self.bound, low, high)
        return [p for p in kept if p.value >= self.whole * (1 - mpmath.mpf(10) ** -12)]


def point(job: jobs._Job, g: sympy.Expr, x: sympy.Symbol, lo: sympy.Expr, hi: sympy.Expr, bounds: Sequence[sympy.Expr],
          preset: str | None, values: Mapping[str, Any]) -> AtPoint:
    """``x = Min(g(x), bounds...)`` at the preset and values (x's own value there left out).

    Raises:
        errors.EvaluationError: an input of g has no value at the point.
    """
    model = job.model
    mags = results._base_magnitudes(model, preset, values)
    x_scale = scaling.unit_scale(model.units[x.name])
    g = scaling.base_expression(model, g)
    hi = scaling.base_expression(model, hi) if hi.is_finite else hi
    needed = g.free_symbols | (hi.free_symbols if hi.is_finite else set())
    mapping = {model.symbols[k]: sympy.Rational(repr(float(v))) for k, v in mags.items() if k != x.name and model.symbols[k] in needed}
    missing = sorted(s.name for s in g.free_symbols - {x} if s not in mapping)
    if missing:
        raise errors.EvaluationError(f"{model.id}: the fixed point needs values for {', '.join(missing)}")
    g_num = g.xreplace(mapping)
    if g_num.has(sympy.zoo, sympy.oo, -sympy.oo, sympy.nan):  # divided by an input that is 0 at the point: g binds nowhere there,
        g_num = sympy.oo  # as the evaluate path reads it (the certificate checks the answer on that path)
    unit = model.unit_text(x.name)
    with mpmath.workdps(40):
        # the pole read at 40 digits: at mpmath's default 53 bits it may round past the pole (2e-6 + 3e-22 s, c = 2000 ns
        # read from its double), where g has the other sign, and the bracket then shows no change of sign
        hi_v = mpmath.mpf(sympy.N(hi.xreplace(mapping), 40)) if hi.is_finite else mpmath.inf
        scale = mpmath.mpf(sympy.N(x_scale, 40))
        bound = None
        if bounds:
            numbers = [float(results._evaluate(model, b, preset, values, unit)) for b in bounds]
            if any(n != n for n in numbers):
                raise errors.EvaluationError(f"{model.id}: a bound of the fixed point has no value at the point ({', '.join(map(sympy.sstr, bounds))})")
            bound = min(mpmath.mpf(n) for n in numbers) * scale
    declared = declared_range.of(model, x)
    whole = mpmath.mpf(0) if not declared.integer else (scale if declared.word == "positive" else mpmath.mpf(0))
    return AtPoint(g_num, compiler.mpmath_function(x, x - g_num), compiler.mpmath_function(x, g_num),
                   mpmath.mpf(0) if lo == 0 else -mpmath.inf, hi_v, bound, whole, x_scale, unit)


def confirms(pt: AtPoint, x: sympy.Symbol, value: float) -> bool:
    """Is ``value`` (x's declared unit), a closed form's value at the point, the one fixed point there? The roots of
    ``x = g(x)`` are those of its numerator cleared of denominators (a polynomial at the point), kept where real, on
    the domain and roots of ``x - g(x)`` itself; with the bounds they must give exactly one fixed point, ``value``."""
    if pt.g == sympy.oo:
        return False
    numerator = sympy.expand(sympy.numer(sympy.together(x - pt.g)))
    if numerator == 0:
        return False
    try:
        poly = sympy.Poly(numerator, x)
    except sympy.PolynomialError:
        return False
    found = []
    with mpmath.workdps(40):
        coeffs = [mpmath.mpf(sympy.N(c, 40)) for c in poly.all_coeffs()]
        while coeffs and coeffs[0] == 0:
            coeffs = coeffs[1:]
        roots = mpmath.polyroots(coeffs, maxsteps=200, extraprec=100) if len(coeffs) > 1 else []
        for r in roots:
            if abs(mpmath.im(r)) > mpmath.mpf(10) ** -25 * max(abs(r), mpmath.mpf(10) ** -30):
                continue
            r = mpmath.re(r)
            if not pt.low < r < pt.high:
                continue
            try:
                gap = pt.f(r)
            except (ValueError, ZeroDivisionError, TypeError):
                continue
            if mpmath.isfinite(gap) and abs(gap) <= mpmath.mpf(10) ** -20 * max(abs(r), mpmath.mpf(10) ** -30):
                found.append(fixed_point_scan.FixedPoint(r, mpmath.re(pt.slope(r))))
        fixed = pt.fixed(found, pt.low, pt.high)
        target = mpmath.mpf(value) * mpmath.mpf(sympy.N(pt.scale, 40))
        return len(fixed) == 1 and abs(fixed[0].value - target) <= mpmath.mpf(10) ** -9 * max(abs(target), mpmath.mpf(10) ** -300)


def root(job: jobs._Job, pt: AtPoint, x: sympy.Symbol, lo: sympy.Expr, hi: sympy.Expr, preset: str | None, values: Mapping[str, Any],
         why: str, *, unique: bool) -> tuple[str, float]:
    """The fixed point at the point (x's declared unit) and how it was found. ``unique``: g was proved decreasing, so
    ``x - g(x)`` has at most one root and ``Min(r, K)`` is the fixed point.

    Raises:
        errors.NoAnswerHere: every value is a fixed point, or several are and not exactly one of them is stable.
        errors.DerivationError: the scan finds no fixed point.
    """
    model = job.model
    f, unit, x_scale = pt.f, pt.unit, pt.scale
    where_said = at_point.where_text(preset, values)
    if sympy.expand(x - pt.g) == 0:
        raise errors.NoAnswerHere(
            f"{model.id}: fixed point of {job.quantity} in {x} at {where_said}: g({x}) = {x} there, so every value of {x} in its domain"
            + (f" up to the bound {pt.shown(pt.bound)}" if pt.bound is not None else "") + " is a fixed point; there is no single answer")
    if pt.g == sympy.oo:
        if pt.bound is None or not pt.low < pt.bound < pt.high:
            raise errors.NoAnswerHere(f"{model.id}: fixed point of {job.quantity} in {x} at {where_said}: g({x}) has no finite value there "
                                      "(it divides by an input that is 0), and no bound inside the domain gives one")
        job.step("fixed points", sympy.Eq(x, sympy.Float(pt.bound / mpmath.mpf(sympy.N(x_scale, 40)), 15)),
                 f"g({x}) has no finite value at the point (it divides by an input that is 0 there), so it binds nowhere and "
                 f"{x} = Min(g({x}), bound) is the bound {pt.shown(pt.bound)}")
        return f"numeric: g({x}) binds nowhere at the point, so the fixed point is the bound — {why}, so no closed form is used", float(pt.bound) / float(x_scale)
    lo_v, hi_v = pt.low, pt.high
    if lo == 0 and hi.is_finite:  # a root of the whole domain, tried first; one outside an --assume bound is refused by _meets_assumed
        with mpmath.workdps(40):
            eps = hi_v * mpmath.mpf(10) ** -30
            a, b = lo_v + eps, hi_v - eps
            r = mpmath.findroot(f, (a, b), solver="anderson", tol=mpmath.mpf(10) ** -35) if f(a) * f(b) < 0 else None
            # one bracket of the whole domain, where x - g(x) crosses 0 (changing sign without vanishing, at a jump: the scan decides)
            if r is not None and not _jump_at(pt, r):
                how = (f"numeric: mpmath.findroot(solver='anderson') bracketed on (0, {float(hi_v) / float(x_scale):.8g} {unit}), "
                       f"40 digits — {why}, so no closed form is used")
                if (unique and r >= pt.whole) or (pt.bound is None and r >= pt.whole):
                    return how, float(r) / float(x_scale)
                whole = fixed_point_scan.Bracket(lo_v, hi_v, "", "")
                found, _, _ = fixed_point_scan.fixed_points(f, pt.slope, whole, pt.attained)
                fixed = pt.fixed(found, lo_v, hi_v)
                old = r if pt.bound is None else min(r, pt.bound)
                if len(fixed) == 1 and abs(fixed[0].value - old) <= mpmath.mpf(10) ** -12 * abs(old):
                    return how, float(r) / float(x_scale)
    where = fixed_point_scan.bracket(job, x, lo_v, hi_v, "the pole of g" if hi.is_finite else "no pole of g", preset, values, x_scale)
    found, points, jumps = fixed_point_scan.fixed_points(f, pt.slope, where, pt.attained)
    zero = _at_zero(pt) if where.low == 0 and declared_range.of(model, x).word == "nonnegative" else []  # x = 0 is in the declared range
    found = zero + found
    fixed = pt.fixed(found, where.low, where.high)
    count = len(points)
    span = (f"({pt.shown(where.low)}, {pt.shown(where.high)}) (low end: {where.low_from}; high end: {where.high_from}; scanned from "
            f"{pt.shown(points[0])} to {pt.shown(points[-1])})")
    bounded = _changed(found, fixed, pt.bound) if pt.bound is not None else len(fixed) != len(found)
    listed = ", ".join(f"{pt.shown(p.value)}{' (the bound)' if bounded and p.value == pt.bound else ''} (g' = {float(p.slope):.4g}, "
                       f"{'stable' if p.stable else 'unstable'})" for p in (fixed if bounded else found))
    on = {p.value for p in fixed}
    run = [i for i in range(len(points) - 1) if points[i] in on and points[i + 1] in on]
    if run:  # x - g(x) is 0 at neighbouring points of the scan: a whole stretch of fixed points
        raise errors.NoAnswerHere(
            f"{model.id}: fixed point of {job.quantity} in {x} at {where_said}: {x} = Min(g({x}), ...) holds at every point of the scan from "
            f"{pt.shown(points[run[0]])} to {pt.shown(points[run[-1] + 1])} ({len(run) + 1} neighbouring points of {span}): a range of fixed points, "
            f"no single answer; give --assume bounds on {x} around the one meant")
    if not fixed:
        outside = []
        if (where.low, where.high) != (lo_v, hi_v):  # narrowed by --assume: say where the domain's fixed points are
            every = pt.fixed(fixed_point_scan.fixed_points(f, pt.slope, fixed_point_scan.Bracket(lo_v, hi_v, "", ""), pt.attained)[0], lo_v, hi_v)
            outside = [pt.shown(p.value) for p in every]
        raise errors.DerivationError(
            f"{model.id}: fixed point of {job.quantity} in {x} at {where_said}: {x} - g({x}) changes sign "
            + (f"between the {count} log-spaced points of {span} only across a jump, where it does not vanish (after "
               f"{', '.join(pt.shown(j) for j in jumps)}: a step of a case table or a staircase, or a pole)" if jumps else
               f"at none of the {count} log-spaced points of {span}")
            + f", so no fixed point was found there (one where {x} - g({x}) only touches 0 is not seen)" + (f"; nor is the bound {pt.shown(pt.bound)} one (g is below it there, or it lies outside)" if pt.bound is not None else "")
            + (f"; outside the --assume bounds the scan finds {', '.join(outside)}" if outside else "")
            + f"; give --assume bounds on {x} around the fixed point meant (--assume '{x} >= A' --assume '{x} <= B'), or check the model")
    stable = [p for p in fixed if p.stable]
    if len(fixed) > 1 and len(stable) != 1:
        raise errors.NoAnswerHere(
            f"{model.id}: fixed point of {job.quantity} in {x} at {where_said}: {len(fixed)} fixed points in "
            f"{span}: {listed}; {'none' if not stable else len(stable)} of them stable (|g'| < 1), so which one the system settles at "
            f"depends on where it starts; give --assume bounds on {x} around the one meant")
    chosen = fixed[0] if len(fixed) == 1 else stable[0]
    others = [p for p in (fixed if bounded else found) if p.value != chosen.value]
    shown = fixed if bounded else found
    job.step("fixed points", sympy.Tuple(*[sympy.Eq(x, sympy.Float(p.value / mpmath.mpf(sympy.N(x_scale, 40)), 15)) for p in shown]),
             f"every root of {x} = g({x}) a scan of {span} finds ({count} log-spaced points, each change of sign of {x} - g({x}) "
             f"refined by mpmath.findroot)" + (f", and {x} = 0 (declared nonnegative; g(0) = 0)" if zero else "") + (f", with the bound {pt.shown(pt.bound)}: a root counts where it is at most the bound, "
                                               f"the bound where g is at least it ({x} = Min(g({x}), bound) holds there)" if bounded and pt.bound is not None else "")
             + (f", none below {pt.shown(pt.whole)} ({x} is a whole number)" if bounded and pt.whole > 0 else "")
             + f": {listed}" + (f"; the stable one is the answer (|g'| < 1: the iteration {x} <- g({x}) settles "
                                "there; it moves away from the others)" if others else ""))
    how = (f"numeric: every change of sign of {x} - g({x}) on a log-spaced scan of {span}, refined by mpmath.findroot at 40 digits"
           + (", with the bound" if bounded and pt.bound is not None else "") + (f" ({len(shown)} fixed points: the stable one)" if others else "") + f" — {why}, so no closed form is used")
    return how, float(chosen.value) / float(x_scale)


def _jump_at(pt: AtPoint, r: Any) -> bool:
    """Whether ``x - g(x)`` changes sign at ``r`` (a root findroot gave) without vanishing there: across a jump (a case
    table's step) whose edge is not :meth:`AtPoint.attained`, bisected by :func:`.fixed_point_scan.bisected` on ``r``
    times 1 -+ 1e-9; False where it does not change sign beside ``r`` (nothing to bisect) or has no real value there."""
    with mpmath.workdps(40):
        try:
            r = mpmath.re(r)
            points = sorted(r * (1 + k * mpmath.mpf(10) ** -9) for k in (1, -1))
            values = [pt.f(p) for p in points]
            if not all(mpmath.isfinite(v) and mpmath.im(v) == 0 for v in values):
                return False
            values = [mpmath.re(v) for v in values]
        except (ValueError, ZeroDivisionError, TypeError):
            return False
        if values[0] == 0 or values[1] == 0 or (values[0] < 0) == (values[1] < 0):
            return False
        ends = fixed_point_scan.bisected(pt.f, points[0], values[0], points[1], values[1])
        return ends is None or not (fixed_point_scan.vanishes(ends) or pt.attained(ends[0], ends[2]))


def _at_zero(pt: AtPoint) -> list[fixed_point_scan.FixedPoint]:
    """``x = 0`` as a fixed point where ``g(0) = 0`` exactly (a variable declared nonnegative; the scan starts above 0),
    its slope taken from above."""
    with mpmath.workdps(40):
        try:
            gap = pt.f(mpmath.mpf(0))
            if mpmath.isfinite(gap) and gap == 0:
                return [fixed_point_scan.FixedPoint(mpmath.mpf(0), mpmath.re(mpmath.diff(pt.g_of, mpmath.mpf(0), direction=1)))]
        except (ValueError, ZeroDivisionError, TypeError):
            pass
    return []


def _changed(found: list[fixed_point_scan.FixedPoint], fixed: list[fixed_point_scan.FixedPoint], bound: Any) -> bool:
    """Do the bounds change the answer the roots of x = g(x) alone give (as ``Min(r, K)``)? Not where ``fixed`` is the one
    root of ``found`` (or the one stable one), capped at the bound."""
    stable = [p for p in found if p.stable]
    if not found or (len(found) > 1 and len(stable) != 1) or len(fixed) != 1:
        return True
    old = min((found[0] if len(found) == 1 else stable[0]).value, bound)
    return not abs(fixed[0].value - old) <= mpmath.mpf(10) ** -12 * max(abs(old), mpmath.mpf(10) ** -300)
